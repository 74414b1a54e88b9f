package main

import (
	"embed"
	"flag"
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/mcplab/mcplab/internal/servers"
)

// helpFiles holds the help of every command, help/NAME.txt for the command
// NAME of the command table (see commands); a test checks that each
// command has one and that each file parses.
//
//go:embed help/*.txt
var helpFiles embed.FS

// helpText is what "lab help CMD" and "lab CMD -h" say of a command besides
// its synopsis and its flags.
type helpText struct {
	// about says what the command does, in words a student follows.
	about string
	// more, when set, adds a section computed from the lab itself (such as
	// the names of the reference servers), printed after about.
	more func() string
	// exits are every exit status the command uses, with what each means.
	exits []exitDoc
	// examples are command lines that work as written, each with a line
	// that says what it does. Those that name a lesson's files work from
	// the root of a clone.
	examples []example
}

// exitOther stands in an exitDoc for the exit statuses of another program
// a command passes on; the help shows it as N.
const exitOther = -1

// exitDoc is one exit status and what it means for the command.
type exitDoc struct {
	code  int
	means string
}

// example is one command line and what it does.
type example struct {
	says string
	line string
}

// helpFor returns the help of the command name, from its file
// help/NAME.txt (see parseHelp), or an error when the lab has no help for
// it or its file is malformed.
func helpFor(name string) (helpText, error) {
	data, err := helpFiles.ReadFile("help/" + name + ".txt")
	if err != nil {
		return helpText{}, fmt.Errorf("no help for the command %q: %w", name, err)
	}
	h, err := parseHelp(string(data))
	if err != nil {
		return helpText{}, fmt.Errorf("help/%s.txt: %w", name, err)
	}
	if name == "serve" {
		h.more = serverHelp
	}
	return h, nil
}

// serverHelp lists the reference servers lab serve runs, with what each
// is and the lesson that uses it.
func serverHelp() string {
	var b strings.Builder
	b.WriteString("Servers:\n")
	for _, s := range servers.All() {
		what := s.Summary
		if m := lessonServing(s.Name); m != nil {
			what += fmt.Sprintf(" (lesson %d)", m.Number)
		}
		fmt.Fprintf(&b, "  %-10s %s\n", s.Name, wrap(what, 78-13, strings.Repeat(" ", 13)))
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// printHelp writes the help of the command name: its synopsis, what it
// does, its flags, its exit codes and examples.
func printHelp(w io.Writer, name, synopsis string, fs *flag.FlagSet) {
	fmt.Fprintf(w, "Usage: lab %s\n", synopsis)
	h, err := helpFor(name)
	if err != nil {
		fmt.Fprintf(w, "\n(the lab has no help for this command: %v; report it as a bug)\n", err)
	}
	if h.about != "" {
		fmt.Fprintf(w, "\n%s\n", strings.TrimSpace(h.about))
	}
	if h.more != nil {
		fmt.Fprintf(w, "\n%s\n", h.more())
	}
	hasFlags := false
	fs.VisitAll(func(*flag.Flag) { hasFlags = true })
	if hasFlags {
		fmt.Fprintf(w, "\nFlags:\n")
		printFlags(w, fs)
	}
	if len(h.exits) > 0 {
		fmt.Fprintf(w, "\nExit codes:\n")
		for _, x := range h.exits {
			code := fmt.Sprint(x.code)
			if x.code == exitOther {
				code = "N"
			}
			fmt.Fprintf(w, "  %-2s %s\n", code, wrap(x.means, 78-5, "     "))
		}
	}
	if len(h.examples) > 0 {
		fmt.Fprintf(w, "\nExamples:\n")
		for _, x := range h.examples {
			if x.says != "" {
				fmt.Fprintf(w, "  # %s\n", wrap(x.says, 78-4, "  # "))
			}
			fmt.Fprintf(w, "  %s\n", x.line)
		}
	}
}

// printFlags lists the flags of fs as flag.PrintDefaults does, "-name
// type" and then what it is for, with the text wrapped to fit a terminal.
func printFlags(w io.Writer, fs *flag.FlagSet) {
	const indent = "      "
	fs.VisitAll(func(f *flag.Flag) {
		typ, usage := flag.UnquoteUsage(f)
		head := "  -" + f.Name
		if typ != "" {
			head += " " + typ
		}
		if !isZeroValue(f) {
			if typ == "string" {
				usage += fmt.Sprintf(" (default %q)", f.DefValue)
			} else {
				usage += fmt.Sprintf(" (default %s)", f.DefValue)
			}
		}
		fmt.Fprintf(w, "%s\n%s%s\n", head, indent, wrap(usage, 78-len(indent), indent))
	})
}

// isZeroValue reports whether the flag's default is its type's zero value
// (which the help does not show), as the flag package decides it.
func isZeroValue(f *flag.Flag) (zero bool) {
	defer func() {
		if recover() != nil {
			zero = f.DefValue == ""
		}
	}()
	t := reflect.TypeOf(f.Value)
	var z reflect.Value
	if t.Kind() == reflect.Pointer {
		z = reflect.New(t.Elem())
	} else {
		z = reflect.Zero(t)
	}
	v, ok := z.Interface().(flag.Value)
	if !ok {
		return f.DefValue == ""
	}
	return f.DefValue == v.String()
}

// wrap breaks text into lines of at most width characters at spaces; the
// lines after the first start with indent.
func wrap(text string, width int, indent string) string {
	var b strings.Builder
	n := 0
	for i, word := range strings.Fields(text) {
		switch {
		case i == 0:
		case n+1+len(word) > width:
			b.WriteString("\n" + indent)
			n = 0
		default:
			b.WriteByte(' ')
			n++
		}
		b.WriteString(word)
		n += len(word)
	}
	return b.String()
}
