package main

import (
	"context"
	"io"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// helpRoot builds the command tree as main does, without running anything.
func helpRoot() *cobra.Command {
	ctx := context.Background()
	return newRootCommand(&signals{soft: ctx, hard: ctx, stop: func() {}}, streams{strings.NewReader(""), io.Discard, io.Discard})
}

// eachFlag calls fn for every flag every command defines (its own and its persistent ones), with
// the command that defines it; flags met again through inheritance are skipped.
func eachFlag(c *cobra.Command, fn func(*cobra.Command, *pflag.Flag)) {
	seen := map[*pflag.Flag]bool{}
	visit := func(f *pflag.Flag) {
		if !seen[f] {
			seen[f] = true
			fn(c, f)
		}
	}
	c.LocalFlags().VisitAll(visit)
	c.PersistentFlags().VisitAll(visit)
	for _, sub := range c.Commands() {
		eachFlag(sub, fn)
	}
}

// valueName is what a back-quoted value name may be: a placeholder such as N, NAME=VALUE, FILE or
// first|all, never a phrase.
var valueName = regexp.MustCompile(`^[A-Za-z0-9_.:,=|<>\[\]/-]+$`)

// pflag shows the first back-quoted word of a flag's usage as its value name in --help
// ("-o, --out dnecho run -o" when the prose quoted a command): a back-quote in any command's
// flag usage must name a value, not quote prose.
func TestHelpValueNamesAreNotProse(t *testing.T) {
	n := 0
	eachFlag(helpRoot(), func(c *cobra.Command, f *pflag.Flag) {
		n++
		if !strings.Contains(f.Usage, "`") {
			return
		}
		name, _ := pflag.UnquoteUsage(f)
		if !valueName.MatchString(name) {
			t.Errorf("%s --%s: --help shows the value name %q, taken from back-quoted prose in %q", c.CommandPath(), f.Name, name, f.Usage)
		}
	})
	if n < 50 {
		t.Fatalf("only %d flags visited: the walk missed commands", n)
	}
}

// The freon subtree's flag descriptions follow k6's style: they start lower case (an acronym
// such as SCM may start one) and end without a period.
func TestFreonHelpStyle(t *testing.T) {
	root := helpRoot()
	freonCmd, _, err := root.Find([]string{"freon"})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	eachFlag(freonCmd, func(c *cobra.Command, f *pflag.Flag) {
		if f.Hidden {
			return
		}
		n++
		_, usage := pflag.UnquoteUsage(f)
		first, _, _ := strings.Cut(usage, " ")
		r := []rune(first)
		acronym := len(r) > 1 && unicode.IsUpper(r[0]) && (unicode.IsUpper(r[1]) || unicode.IsDigit(r[1]))
		if len(r) == 0 || (unicode.IsUpper(r[0]) && !acronym) {
			t.Errorf("%s --%s: description starts upper case: %q", c.CommandPath(), f.Name, usage)
		}
		if strings.HasSuffix(strings.TrimSpace(usage), ".") {
			t.Errorf("%s --%s: description ends with a period: %q", c.CommandPath(), f.Name, usage)
		}
	})
	if n < 30 {
		t.Fatalf("only %d freon flags visited", n)
	}
}
