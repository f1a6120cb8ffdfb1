package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// cmdFlags is a subcommand's flag set with one usage shape for every
// command (`Usage: farebox CMD ...`, what it is for, its flags) and
// mistakes answered in one line with a suggestion instead of the whole
// usage text.
type cmdFlags struct {
	*flag.FlagSet
	name   string
	header string
	stderr io.Writer
}

// newFlagSet returns the flags of `farebox name`; syntax follows the
// command name in the usage line, purpose says what the command is for.
func newFlagSet(name, syntax, purpose string, stderr io.Writer) *cmdFlags {
	fs := &cmdFlags{FlagSet: flag.NewFlagSet(name, flag.ContinueOnError), name: name, stderr: stderr,
		header: fmt.Sprintf("Usage: farebox %s %s\n\n%s\n\nFlags:\n", name, syntax, purpose)}
	// The flag package prints its error and the usage on every mistake;
	// parse returns the error instead and prints the usage only for -h.
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// printUsage writes the usage: the header, then every flag.
func (fs *cmdFlags) printUsage() {
	fmt.Fprint(fs.stderr, fs.header)
	fs.SetOutput(fs.stderr)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
}

// parse parses args; -h prints the usage (flag.ErrHelp), any other mistake
// is one error naming the flag, the closest real one, and where the list is.
func (fs *cmdFlags) parse(args []string) error {
	err := fs.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		fs.printUsage()
	}
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return err
	}
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		msg = "unknown flag --" + name
		if s := fs.closest(name); s != "" {
			msg += " (did you mean --" + s + "?)"
		}
	}
	return fmt.Errorf("%s; farebox %s -h lists the flags", msg, fs.name)
}

// closest is the defined flag nearest to name by edit distance, or ""
// when none is near enough to be what was meant.
func (fs *cmdFlags) closest(name string) string {
	best, bestD := "", len(name)/2+2
	fs.VisitAll(func(f *flag.Flag) {
		d := editDistance(name, f.Name)
		if strings.HasPrefix(f.Name, name) || strings.HasPrefix(name, f.Name) {
			d = min(d, 1)
		}
		if d < bestD {
			best, bestD = f.Name, d
		}
	})
	return best
}

// editDistance is the Levenshtein distance of a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// publicDevPayerKey is the key `farebox dev` funds
// (devchain.DevPayerKey, which a test keeps equal): a client command pays
// with it when FAREBOX_PAYER_KEY is unset, and naming it here keeps the
// dev chain's package out of builds without `dev`.
const publicDevPayerKey = "ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"
