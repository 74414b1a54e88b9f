package main

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// exitLine is the first line of an exit status in a help file: two spaces,
// the status (or N, see exitOther) and what it means.
var exitLine = regexp.MustCompile(`^  (\d+|N) +(\S.*)$`)

// parseHelp reads a command's help file, laid out as the help prints it:
//
//	What the command does: any text, printed as it is (leading and
//	trailing blank lines dropped), up to the first section.
//
//	Exit codes:
//	  0  what status 0 means, continued on lines
//	     that start with a space
//	  N  the exit status of another program the command passes on
//
//	Examples:
//	  # what the next command line does (lines starting "#" join up)
//	  lab CMD ARGS
//
// The sections may come in either order, each at most once. The meaning of
// an exit status and the words of an example are wrapped to fit a terminal
// when printed, so their line breaks in the file do not matter; the command
// line of an example is printed as it is.
func parseHelp(text string) (helpText, error) {
	var h helpText
	var about strings.Builder
	section := ""
	seen := map[string]bool{}
	var says []string
	for i, line := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		n := i + 1
		if line == "Exit codes:" || line == "Examples:" {
			if seen[line] {
				return helpText{}, fmt.Errorf("line %d: a second section %q; each section comes once", n, line)
			}
			if len(says) > 0 {
				return helpText{}, fmt.Errorf("line %d: the example said %q has no command line after it", n, strings.Join(says, " "))
			}
			seen[line], section = true, line
			continue
		}
		var err error
		switch section {
		case "":
			about.WriteString(line + "\n")
		case "Exit codes:":
			h.exits, err = addExitLine(h.exits, line)
		case "Examples:":
			h.examples, says, err = addExampleLine(h.examples, says, line)
		}
		if err != nil {
			return helpText{}, fmt.Errorf("line %d: %w", n, err)
		}
	}
	if len(says) > 0 {
		return helpText{}, fmt.Errorf("the last example, said %q, has no command line", strings.Join(says, " "))
	}
	h.about = strings.TrimSpace(about.String())
	return h, nil
}

// addExitLine adds one line of an "Exit codes:" section to exits: a new
// status, or more words of the last one's meaning.
func addExitLine(exits []exitDoc, line string) ([]exitDoc, error) {
	if strings.TrimSpace(line) == "" {
		return exits, nil
	}
	if m := exitLine.FindStringSubmatch(line); m != nil {
		code := exitOther
		if m[1] != "N" {
			c, err := strconv.Atoi(m[1])
			if err != nil {
				return nil, fmt.Errorf("exit status %q: %w", m[1], err)
			}
			code = c
		}
		return append(exits, exitDoc{code: code, means: m[2]}), nil
	}
	if len(exits) > 0 && strings.HasPrefix(line, "   ") {
		last := &exits[len(exits)-1]
		last.means += " " + strings.TrimSpace(line)
		return exits, nil
	}
	return nil, fmt.Errorf("%q is neither an exit status (\"  0  what it means\") nor, indented more, the rest of one's meaning", line)
}

// addExampleLine adds one line of an "Examples:" section: a line "# ..."
// adds to what the next command line does (says), any other line is that
// command line and ends the example.
func addExampleLine(examples []example, says []string, line string) ([]example, []string, error) {
	l := strings.TrimSpace(line)
	switch {
	case l == "":
		return examples, says, nil
	case !strings.HasPrefix(line, "  "):
		return nil, nil, fmt.Errorf("%q: an example's lines start with two spaces", line)
	case strings.HasPrefix(l, "#"):
		return examples, append(says, strings.TrimSpace(strings.TrimPrefix(l, "#"))), nil
	}
	return append(examples, example{says: strings.Join(says, " "), line: l}), nil, nil
}
