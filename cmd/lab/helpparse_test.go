package main

import (
	"io/fs"
	"reflect"
	"strings"
	"testing"
)

// TestHelpFilesMatchCommands checks the files help/NAME.txt against the
// command table: every command has one, every file is a command's, and each
// parses into exit statuses the lab uses and at least one example.
func TestHelpFilesMatchCommands(t *testing.T) {
	names, err := fs.Glob(helpFiles, "help/*.txt")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]bool{}
	for _, n := range names {
		files[strings.TrimSuffix(strings.TrimPrefix(n, "help/"), ".txt")] = true
	}
	codes := map[int]bool{exitOK: true, exitFailed: true, exitCannot: true, exitInternal: true, exitOther: true}
	for _, c := range commands() {
		if !files[c.name] {
			t.Errorf("the command %s has no help file help/%s.txt", c.name, c.name)
			continue
		}
		delete(files, c.name)
		h, err := helpFor(c.name)
		if err != nil {
			t.Errorf("lab help %s: %v", c.name, err)
			continue
		}
		if h.about == "" || len(h.exits) == 0 || len(h.examples) == 0 {
			t.Errorf("help/%s.txt: about %d bytes, %d exit statuses, %d examples; want each", c.name, len(h.about), len(h.exits), len(h.examples))
		}
		for _, x := range h.exits {
			if !codes[x.code] {
				t.Errorf("help/%s.txt: exit status %d, which the lab does not use (0 to 3, or N)", c.name, x.code)
			}
		}
	}
	for f := range files {
		t.Errorf("help/%s.txt is the help of no command of the table", f)
	}
}

// TestParseHelp checks how a help file is read: the about text as written,
// exit meanings and example words joined across lines, N as another
// program's status, and an example that says two things in two lines.
func TestParseHelp(t *testing.T) {
	text := "\nDoes a thing.\n\n  indented stays\n\nExit codes:\n  0  it worked,\n     all of it\n  N  the other program's\n\n" +
		"Examples:\n  # first\n  # and more\n  lab x --y\n  lab x --z\n"
	h, err := parseHelp(text)
	if err != nil {
		t.Fatal(err)
	}
	want := helpText{
		about:    "Does a thing.\n\n  indented stays",
		exits:    []exitDoc{{0, "it worked, all of it"}, {exitOther, "the other program's"}},
		examples: []example{{"first and more", "lab x --y"}, {"", "lab x --z"}},
	}
	if !reflect.DeepEqual(h, want) {
		t.Errorf("parseHelp:\n got %#v\nwant %#v", h, want)
	}
}

// TestParseHelpRejects checks that a malformed help file is an error that
// names the line and what is wrong with it.
func TestParseHelpRejects(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"About.\nExit codes:\n  0  ok\nExit codes:\n", "line 4: a second section \"Exit codes:\""},
		{"About.\nExit codes:\nzero means ok\n", "line 3: \"zero means ok\" is neither an exit status"},
		{"About.\nExit codes:\n     continued, of nothing\n", "line 3: \"     continued, of nothing\" is neither"},
		{"About.\nExamples:\n  # says\n", "the last example, said \"says\", has no command line"},
		{"About.\nExamples:\n  # says\nExit codes:\n", "line 4: the example said \"says\" has no command line"},
		{"About.\nExamples:\nlab x\n", "line 3: \"lab x\": an example's lines start with two spaces"},
	} {
		_, err := parseHelp(c.text)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("parseHelp(%q): error %v, want one containing %q", c.text, err, c.want)
		}
	}
}
