package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// promptSecret asks for a secret on the terminal, hiding the typed characters when stty is available.
func (a *app) promptSecret(prompt string) (string, error) {
	fmt.Fprint(a.stderr, prompt)
	restore := hideInput(a.stdin)
	line, err := bufio.NewReader(a.stdin).ReadString('\n')
	restore()
	fmt.Fprintln(a.stderr)
	if err != nil && line == "" {
		return "", fmt.Errorf("read from the terminal: %w", err)
	}
	return strings.TrimSpace(line), nil
}

// hideInput turns terminal echo off with stty (standard library only) and returns the function that
// turns it back on. Where stty is unavailable, input stays visible.
func hideInput(in any) func() {
	f, ok := in.(*os.File)
	if !ok {
		return func() {}
	}
	off := exec.Command("stty", "-echo")
	off.Stdin = f
	if off.Run() != nil {
		return func() {}
	}
	return func() {
		on := exec.Command("stty", "echo")
		on.Stdin = f
		_ = on.Run()
	}
}

// promptLine asks for one line on the terminal, the typed characters visible.
func (a *app) promptLine(prompt string) (string, error) {
	fmt.Fprint(a.stderr, prompt)
	line, err := bufio.NewReader(a.stdin).ReadString('\n')
	if err != nil && line == "" {
		fmt.Fprintln(a.stderr)
		return "", fmt.Errorf("read from the terminal: %w", err)
	}
	return strings.TrimSpace(line), nil
}
