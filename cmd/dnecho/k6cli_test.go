package main

import (
	"context"
	"io"
	"strings"
	"testing"
	"unicode"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// TestArchiveListsItsOwnFlags: archive's help lists the flags that shape an archive, not run's
// own (outputs, cluster, aggregator, REST API lingering, slow-DataNode verdict).
func TestArchiveListsItsOwnFlags(t *testing.T) {
	t.Parallel()
	archive, run := helpOf(t, "archive"), helpOf(t, "run")
	for _, name := range runOnlyFlags {
		if strings.Contains(archive, "--"+name+" ") {
			t.Errorf("archive --help lists --%s", name)
		}
		if !strings.Contains(run, "--"+name+" ") {
			t.Errorf("run --help lacks --%s", name)
		}
	}
	for _, name := range []string{"--archive-out", "--exclude-env-vars", "--vus", "--tag", "--paused", "--summary-mode"} {
		if !strings.Contains(archive, name+" ") {
			t.Errorf("archive --help lacks %s", name)
		}
	}
}

// TestHelpStyle: every flag of every command but the freon subtree (which follows Java freon's
// texts) is described in k6's style: lower case, unless the first word is a name or an acronym,
// and no full stop at the end.
func TestHelpStyle(t *testing.T) {
	root := newRootCommand(&signals{}, streams{in: strings.NewReader(""), out: io.Discard, err: io.Discard})
	checked := 0
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Name() == "freon" {
			return
		}
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			if f.Hidden {
				return
			}
			checked++
			if msg := helpStyle(f.Usage); msg != "" {
				t.Errorf("%s --%s: %s: %q", c.CommandPath(), f.Name, msg, f.Usage)
			}
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	if checked < 80 {
		t.Errorf("checked %d flags: the walk missed commands", checked)
	}
}

// helpOf is what `dnecho CMD --help` prints, from the command tree main builds.
func helpOf(t *testing.T, cmd string) string {
	t.Helper()
	var out strings.Builder
	ctx := context.Background()
	root := newRootCommand(&signals{soft: ctx, hard: ctx, stop: func() {}}, streams{strings.NewReader(""), &out, &out})
	root.SetArgs([]string{cmd, "--help"})
	if err := root.Execute(); err != nil {
		t.Fatalf("%s --help: %v", cmd, err)
	}
	return out.String()
}

// helpStyle says what is wrong with a flag description, or "" when nothing is.
func helpStyle(usage string) string {
	usage = strings.TrimSpace(usage)
	if strings.HasSuffix(usage, ".") {
		return "ends with a full stop"
	}
	first, _, _ := strings.Cut(usage, " ")
	r := []rune(first)
	if len(r) == 0 || !unicode.IsUpper(r[0]) || properNames[strings.Trim(first, ",:;()")] {
		return ""
	}
	for _, c := range r[1:] {
		if unicode.IsUpper(c) || unicode.IsDigit(c) {
			return "" // an acronym or a name: SCM, JSON, CA, DataNodes
		}
	}
	return "starts with a capital"
}

// properNames may start a flag's description capitalised.
var properNames = map[string]bool{"Ozone": true, "Kerberos": true, "Hadoop": true, "Go": true, "JavaScript": true}
