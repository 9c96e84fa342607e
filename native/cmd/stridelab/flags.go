package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"
)

// A subcommand reads its command line in one way: a word first if it
// takes one (leadWord: grad's and layout's op, draw's scene, cluster's
// name), then its flags (newFlags, parse), then the flags it cannot do
// without (required). Errors come back to run, which prints them on one
// line; -h or --help prints the usage to stderr and returns flag.ErrHelp,
// which run turns into exit status 0.

// flagSet is a flag.FlagSet whose errors come back (not exit) and whose
// --help prints the synopsis and the flags.
type flagSet struct {
	*flag.FlagSet
	help func()
}

// newFlags returns the flags of the command name ("expand", "sbp plan",
// "draw expand"), whose --help prints usageLine(name, synopsis), then
// "flags:" and each flag with its default.
func newFlags(name, synopsis string, stderr io.Writer) *flagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {} // errors are reported in one line by run
	return &flagSet{FlagSet: fs, help: func() {
		fmt.Fprintf(stderr, "%s\nflags:\n", usageLine(name, synopsis))
		fs.SetOutput(stderr)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
	}}
}

// parse parses args; an unknown flag or stray argument is a usage error,
// --help prints usage and returns flag.ErrHelp.
func (fs *flagSet) parse(args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.help()
			return err
		}
		return usagef("%v (see --help)", err)
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q (see --help)", fs.Arg(0))
	}
	return nil
}

// usageLine is the line a command's --help opens with:
// "usage: stridelab NAME SYNOPSIS\n".
func usageLine(name, synopsis string) string {
	return fmt.Sprintf("usage: stridelab %s %s\n", name, synopsis)
}

// isHelp reports whether arg asks for a command's usage: -h or --help.
func isHelp(arg string) bool { return arg == "-h" || arg == "--help" }

// leadWord splits off args the word a command takes before its flags,
// which must be one that accept takes, and returns it and the rest.
// With -h or --help first it writes usage to stderr and returns
// flag.ErrHelp; with no word, or one that accept refuses, it returns
// missing.
func leadWord(args []string, accept func(string) bool, usage string, missing error, stderr io.Writer) (word string, rest []string, err error) {
	if len(args) > 0 && isHelp(args[0]) {
		io.WriteString(stderr, usage)
		return "", nil, flag.ErrHelp
	}
	if len(args) == 0 || !accept(args[0]) {
		return "", nil, missing
	}
	return args[0], args[1:], nil
}

// expandOrRepeat accepts the ops of grad and layout.
func expandOrRepeat(word string) bool { return word == "expand" || word == "repeat" }

// notFlag accepts any word that does not look like a flag (a scene, a
// cluster name or file, checked later).
func notFlag(word string) bool { return !strings.HasPrefix(word, "-") }

// required returns a usage error naming the first empty flag.
func required(flags map[string]string) error {
	names := make([]string, 0, len(flags))
	for n := range flags {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if flags[n] == "" {
			return usagef("--%s is required (see --help)", n)
		}
	}
	return nil
}
