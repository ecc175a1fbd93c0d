package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"
)

// formatCredits shows a credit amount in plain decimal notation, without trailing zeros.
func formatCredits(v float64) string {
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// statusLine shows an HTTP status with its text, e.g. "404 Not Found".
func statusLine(status int) string {
	if text := http.StatusText(status); text != "" {
		return fmt.Sprintf("%d %s", status, text)
	}
	return fmt.Sprint(status)
}

// titleLine is "<title> <id> (<name>) [replayed answer]", without the name when it is empty and without
// the mark when the answer is not replayed.
func titleLine(title, id, name string, replayed bool) string {
	line := title + " " + id
	if name != "" {
		line += " (" + name + ")"
	}
	if replayed {
		line += " [replayed answer]"
	}
	return line
}

// orDash shows "" as "-".
func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// deref is *s, or "" for nil.
func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// printSecretOnce shows a secret between bars with the warning that it is shown only once; nothing when
// secret is empty.
func (a *app) printSecretOnce(secret string) {
	if secret == "" {
		return
	}
	bar := strings.Repeat("=", 72)
	fmt.Fprintf(a.stdout, "\n%s\n  SECRET:  %s\n%s\n", bar, secret, bar)
	fmt.Fprintln(a.stdout, "WARNING: this secret is shown only once and cannot be retrieved again. Store it now.")
}

// oneLine puts s on one line (tabs and line breaks become spaces, so tables stay aligned) and, when max
// is positive, shortens it to max characters.
func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if max > 0 && utf8.RuneCountInString(s) > max {
		r := []rune(s)
		s = string(r[:max-1]) + "…"
	}
	return s
}

// yesNo shows a boolean as yes or no.
func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// compactJSON shows a value as one line of JSON.
func compactJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
