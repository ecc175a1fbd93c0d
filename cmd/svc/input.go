package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

// inputFlags are the --input and --input-file flags of a command that sends a JSON object.
type inputFlags struct {
	text string
	file string
}

// msgInputBoth is the usage message when both --input and --input-file are given.
const msgInputBoth = "use --input or --input-file, not both"

// register adds --input and --input-file to fs.
func (f *inputFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.text, "input", "", "input as a JSON object")
	fs.StringVar(&f.file, "input-file", "", "file holding the input JSON object (- for stdin)")
}

// both reports whether --input and --input-file were both given (a usage error, msgInputBoth).
func (f *inputFlags) both() bool {
	return f.text != "" && f.file != ""
}

// read returns the input object (nil for none) from --input or --input-file, or reports the usage error
// of cmd and returns its exit code with ok false.
func (f *inputFlags) read(a *app, cmd string) (in map[string]any, code int, ok bool) {
	raw := []byte(f.text)
	if f.file != "" {
		var err error
		if raw, err = a.readInputFile(f.file); err != nil {
			return nil, a.usageError(cmd, "--input-file: %v", err), false
		}
	}
	in, err := parseInput(raw)
	if err != nil {
		return nil, a.usageError(cmd, "input: %v", err), false
	}
	return in, 0, true
}

// readInputFile reads the input file, or stdin for "-".
func (a *app) readInputFile(name string) ([]byte, error) {
	if name == "-" {
		return io.ReadAll(io.LimitReader(a.stdin, 1<<20+1))
	}
	return os.ReadFile(name)
}

// parseInput decodes the run input: a JSON object, or nothing. Numbers keep their exact text.
func parseInput(raw []byte) (map[string]any, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("not valid JSON: %v", err)
	}
	if err := dec.Decode(&struct{}{}); err != io.EOF {
		return nil, fmt.Errorf("not valid JSON: unexpected data after the object")
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("must be a JSON object, e.g. {\"message\": \"hi\"}")
	}
	return obj, nil
}

// hasControl reports whether s holds an ASCII control character (CR, LF, NUL, DEL...).
func hasControl(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f })
}

// stringList is a repeatable flag; each value may also be a comma-separated list.
type stringList []string

// String implements flag.Value.
func (l *stringList) String() string { return strings.Join(*l, ",") }

// Set implements flag.Value.
func (l *stringList) Set(v string) error {
	for _, part := range strings.Split(v, ",") {
		if part = strings.TrimSpace(part); part != "" {
			*l = append(*l, part)
		}
	}
	return nil
}
