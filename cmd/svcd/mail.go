package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/svcplatform/svc/app"
	"github.com/svcplatform/svc/internal/emailauth"
)

// devMail runs `svcd dev mail [--to ADDR] [--last N]`: it prints the newest messages of the dev mailbox
// of the running svcd dev (or of DATABASE_URL), oldest first.
func devMail(ctx context.Context, cfg app.Config, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("dev mail", flag.ContinueOnError)
	fs.SetOutput(stderr)
	to := fs.String("to", "", "only the messages to this address")
	last := fs.Int("last", 5, "how many of the newest messages to print")
	if err := fs.Parse(args); err != nil {
		return usageError{err.Error()}
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Sprintf("dev mail: unexpected argument %q", fs.Arg(0))}
	}
	if *last < 1 || *last > 1000 {
		return usageError{"dev mail: --last must be between 1 and 1000"}
	}
	msgs, err := app.DevMail(ctx, cfg, *to, *last, stderr)
	if err != nil {
		return fmt.Errorf("dev mail: %w", err)
	}
	printMail(stdout, msgs)
	return nil
}

// printMail writes each message: to, subject, time and body, separated by a rule.
func printMail(w io.Writer, msgs []emailauth.StoredMessage) {
	if len(msgs) == 0 {
		fmt.Fprintln(w, "The dev mailbox is empty.")
		return
	}
	for i, m := range msgs {
		if i > 0 {
			fmt.Fprintln(w, "----")
		}
		fmt.Fprintf(w, "To:      %s\nSubject: %s\nDate:    %s\n\n%s", m.To, m.Subject, m.CreatedAt.UTC().Format(time.RFC3339), m.Body)
		if n := len(m.Body); n == 0 || m.Body[n-1] != '\n' {
			fmt.Fprintln(w)
		}
	}
}
