package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
)

// A subcommand reads its command line in one way: its flags (newFlags,
// parse), after a word for the commands that take one (subcommand: grad's
// and layout's op), then the flags it cannot do without (required).
// Errors come back to run, which prints them on one line; --help prints
// the usage to stderr.

// flagSet is a flag.FlagSet whose errors come back (not exit) and whose
// --help prints the synopsis and the flags.
type flagSet struct {
	*flag.FlagSet
	help func()
}

func newFlags(name, synopsis string, stderr io.Writer) *flagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {} // errors are reported in one line by run
	return &flagSet{FlagSet: fs, help: func() {
		fmt.Fprintf(stderr, "usage: stridelab %s %s\n\nflags:\n", name, synopsis)
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

// subcommand splits "expand ..." or "repeat ..." off args for commands
// with an op word (grad, layout). It prints usage and returns ok=false
// with a nil error for --help.
func subcommand(cmd string, args []string, usage string, stderr io.Writer) (op string, rest []string, ok bool, err error) {
	if len(args) > 0 && (args[0] == "expand" || args[0] == "repeat") {
		return args[0], args[1:], true, nil
	}
	if len(args) > 0 && (args[0] == "--help" || args[0] == "-h") {
		io.WriteString(stderr, usage)
		return "", nil, false, nil
	}
	return "", nil, false, usagef("say which op: %s expand or %s repeat", cmd, cmd)
}

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
