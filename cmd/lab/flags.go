package main

import (
	"errors"
	"flag"
	"io"
	"strings"
)

// errHelp is returned when the user asked for a command's help.
var errHelp = errors.New("help requested")

// newFlags returns the flag set of the command name, whose errors are usage
// errors and whose help goes to w: the synopsis (the first line of usage),
// then what its help/NAME.txt says of the command, its flags among it.
func newFlags(name, usage string, w io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(w)
	synopsis, _, _ := strings.Cut(usage, "\n")
	fs.Usage = func() { printHelp(w, name, synopsis, fs) }
	return fs
}

// parseFlags parses args, splitting off the command after "--".
func parseFlags(fs *flag.FlagSet, args []string) (command []string, err error) {
	for i, a := range args {
		if a == "--" {
			args, command = args[:i], args[i+1:]
			break
		}
	}
	// The flag package prints a bad flag's error and the whole usage
	// itself; the caller prints the error once, with a pointer to the help,
	// so the parse is silent and only -h prints the usage.
	out, usage := fs.Output(), fs.Usage
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	err = fs.Parse(args)
	fs.SetOutput(out)
	fs.Usage = usage
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.Usage()
			return nil, errHelp
		}
		return nil, usageError{strings.TrimSpace(err.Error())}
	}
	if fs.NArg() > 0 && command == nil {
		return fs.Args(), nil
	}
	if fs.NArg() > 0 {
		return nil, usagef("unexpected arguments before --: %s", strings.Join(fs.Args(), " "))
	}
	return command, nil
}
