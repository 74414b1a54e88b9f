package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// helpSections splits a command's help into its parts: "usage" (the first
// line), "about" (what comes before the first section) and each section by
// its heading ("Flags", "Exit codes", "Examples", "Servers").
func helpSections(help string) map[string]string {
	out := map[string]string{}
	first, rest, _ := strings.Cut(help, "\n")
	out["usage"] = first
	part := "about"
	for _, l := range strings.SplitAfter(rest, "\n") {
		switch strings.TrimSpace(l) {
		case "Flags:", "Exit codes:", "Examples:", "Servers:":
			part = strings.TrimSuffix(strings.TrimSpace(l), ":")
			continue
		}
		out[part] += l
	}
	return out
}

// TestEveryCommandHasHelp walks the command table: each command's -h says
// what it does, its exit codes (0 and 2 at least) and an example of the
// command itself, on stderr and with nothing on stdout (the stdout of
// serve, client and relay is a protocol stream); "lab help CMD" prints the
// same on stdout.
func TestEveryCommandHasHelp(t *testing.T) {
	exitLine := regexp.MustCompile(`(?m)^  (\d+|N) +\S`)
	for _, c := range commands() {
		code, stdout, stderr := lab(t, c.name, "-h")
		if code != 0 || stdout != "" {
			t.Errorf("lab %s -h: exit %d, stdout %q; want exit 0 and the help on stderr only", c.name, code, stdout)
			continue
		}
		s := helpSections(stderr)
		if !strings.HasPrefix(s["usage"], "Usage: lab "+c.name) {
			t.Errorf("lab %s -h starts %q, want \"Usage: lab %s\"", c.name, s["usage"], c.name)
		}
		if about := strings.TrimSpace(s["about"]); len(about) < 60 || !strings.Contains(about, ".") {
			t.Errorf("lab %s -h says too little of what the command does (at least a sentence): %q", c.name, about)
		}
		codes := map[string]bool{}
		for _, m := range exitLine.FindAllStringSubmatch(s["Exit codes"], -1) {
			codes[m[1]] = true
		}
		if !codes["0"] || !codes["2"] {
			t.Errorf("lab %s -h: the exit codes name %v; want 0 and 2 at least, in a section \"Exit codes:\":\n%s", c.name, codes, stderr)
		}
		found := false
		for _, x := range helpExamples(s["Examples"]) {
			found = found || strings.HasPrefix(x, "lab "+c.name+" ") || x == "lab "+c.name
		}
		if !found {
			t.Errorf("lab %s -h: no example starts with \"lab %s\":\n%s", c.name, c.name, s["Examples"])
		}
		hcode, hout, herr := lab(t, "help", c.name)
		if hcode != 0 || herr != "" || hout != stderr {
			t.Errorf("lab help %s: exit %d, stderr %q, stdout differs from lab %s -h: %v; want exit 0 and the same help on stdout",
				c.name, hcode, herr, c.name, hout != stderr)
		}
	}
}

// helpExamples returns the command lines of an Examples section (its lines
// that are not comments).
func helpExamples(section string) []string {
	var out []string
	for _, l := range strings.Split(section, "\n") {
		l = strings.TrimSpace(l)
		if l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return out
}

// shellWords splits a command line as a shell would for these examples:
// words apart at spaces, quotes grouping, up to the first unquoted |, <
// or >. It returns every lab command of the line (one before a pipe too).
func shellWords(line string) [][]string {
	var cmds [][]string
	var words []string
	var word strings.Builder
	inWord := false
	var quote rune
	flush := func() {
		if inWord {
			words = append(words, word.String())
		}
		word.Reset()
		inWord = false
	}
	end := func() {
		flush()
		if len(words) > 0 && words[0] == "lab" {
			cmds = append(cmds, words)
		}
		words = nil
	}
	skip := false
	for _, r := range line {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			word.WriteRune(r)
		case skip && r != '|':
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ':
			flush()
		case r == '|':
			end()
			skip = false
		case r == '<' || r == '>':
			end()
			skip = true
		default:
			word.WriteRune(r)
			inWord = true
		}
	}
	end()
	return cmds
}

// flagDef is one flag a command's help lists.
type flagDef struct{ takesValue bool }

// helpFlags reads the flags a command's help lists: "-name type" takes a
// value, "-name" alone is a switch.
func helpFlags(t *testing.T, name string) map[string]flagDef {
	t.Helper()
	_, _, stderr := lab(t, name, "-h")
	out := map[string]flagDef{}
	for _, m := range regexp.MustCompile(`(?m)^  -(\S+)( \S+)?$`).FindAllStringSubmatch(helpSections(stderr)["Flags"], -1) {
		out[m[1]] = flagDef{takesValue: m[2] != ""}
	}
	return out
}

// TestHelpExamplesParse checks that every example in every command's help
// is a command the lab has, with flags it defines and values they accept:
// each example's flags, with -h after them, parse and print the help (a
// lab command after -- is checked too), and every lesson file an example
// names exists in the repository.
func TestHelpExamplesParse(t *testing.T) {
	known := map[string]bool{}
	for _, c := range commands() {
		known[c.name] = true
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	var check func(from string, words []string)
	check = func(from string, words []string) {
		if len(words) < 2 || !known[words[1]] {
			t.Errorf("lab help %s: the example %q names no command of the lab", from, strings.Join(words, " "))
			return
		}
		name := words[1]
		flags := helpFlags(t, name)
		args := []string{name}
		for i := 2; i < len(words); i++ {
			w := words[i]
			if w == "--" {
				if rest := words[i+1:]; len(rest) > 0 && rest[0] == "lab" {
					check(from, rest)
				}
				break
			}
			if strings.HasPrefix(w, "lessons/") {
				if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(w))); err != nil {
					t.Errorf("lab help %s: the example %q names %s, which the repository does not hold: %v", from, strings.Join(words, " "), w, err)
				}
			}
			if !strings.HasPrefix(w, "-") || w == "-" {
				continue // a positional argument; flags may follow some (lab serve NAME --http ...)
			}
			fname, _, hasValue := strings.Cut(strings.TrimLeft(w, "-"), "=")
			def, ok := flags[fname]
			if !ok {
				t.Errorf("lab help %s: the example %q uses %s, which lab %s does not define", from, strings.Join(words, " "), w, name)
				return
			}
			args = append(args, w)
			if def.takesValue && !hasValue && i+1 < len(words) {
				i++
				args = append(args, words[i])
			}
		}
		code, stdout, stderr := lab(t, append(args, "-h")...)
		if code != 0 || stdout != "" || !strings.HasPrefix(stderr, "Usage: lab "+name) {
			t.Errorf("lab help %s: the example %q does not parse: lab %s exits %d, stdout %q, stderr:\n%s",
				from, strings.Join(words, " "), strings.Join(append(args, "-h"), " "), code, stdout, stderr)
		}
		checked++
	}
	for _, c := range commands() {
		_, _, stderr := lab(t, c.name, "-h")
		for _, line := range helpExamples(helpSections(stderr)["Examples"]) {
			cmds := shellWords(line)
			if len(cmds) == 0 {
				t.Errorf("lab help %s: the example %q runs no lab command", c.name, line)
			}
			for _, words := range cmds {
				check(c.name, words)
			}
		}
	}
	if checked < len(commands()) {
		t.Errorf("checked %d example commands, fewer than the %d commands", checked, len(commands()))
	}
}

// TestHelpValidateExamplesWork runs lab validate's examples as written (from
// the repository's root): they pass, the lesson's file of mistakes among
// them. That is what the help says a .invalid.jsonl file is for.
func TestHelpValidateExamplesWork(t *testing.T) {
	_, _, stderr := lab(t, "validate", "-h")
	s := helpSections(stderr)
	for _, want := range []string{"NAME.invalid.jsonl", "each must FAIL the schema", "a line that meets", "the schema fails the file"} {
		if !strings.Contains(strings.Join(strings.Fields(s["about"]), " "), want) {
			t.Errorf("lab help validate does not say %q of the .invalid.jsonl files:\n%s", want, s["about"])
		}
	}
	root := filepath.Join("..", "..")
	for _, line := range helpExamples(s["Examples"]) {
		for _, words := range shellWords(line) {
			args := words[1:]
			for i, a := range args {
				if strings.HasPrefix(a, "lessons/") {
					args[i] = filepath.Join(root, a)
				}
			}
			code, stdout, stderr := lab(t, args...)
			if code != 0 || !strings.Contains(stdout, "0 failed") {
				t.Errorf("%s: exit %d, stdout:\n%s\nstderr:\n%s\nwant exit 0, no file failed", line, code, stdout, stderr)
			}
		}
	}
}

// TestValidateInvalidFileAsHelpSays checks the help's account of a
// .invalid.jsonl file: it passes when each line fails the schema, and a
// line that meets the schema fails it, saying so.
func TestValidateInvalidFileAsHelpSays(t *testing.T) {
	dir := t.TempDir()
	good, err := os.ReadFile(filepath.Join("..", "..", "lessons", "02-json-rpc-on-the-wire", "wire", "01-discover.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	valid, _, _ := strings.Cut(string(good), "\n")
	mistakes := filepath.Join(dir, "mistakes.invalid.jsonl")
	if err := os.WriteFile(mistakes, []byte(`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`+"\n"+`{"id":2,"method":"ping"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, _ := lab(t, "validate", mistakes)
	if code != 0 || !strings.Contains(stdout, "ok    "+mistakes+" (invalid wire file, 2 message") || strings.Count(stdout, "fails, as it should") != 2 {
		t.Errorf("lab validate of two mistakes in a .invalid.jsonl: exit %d, stdout:\n%s\nwant exit 0, both lines failing as they should", code, stdout)
	}
	notMistake := filepath.Join(dir, "slipped.invalid.jsonl")
	if err := os.WriteFile(notMistake, []byte(valid+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, _ = lab(t, "validate", notMistake)
	if code != 1 || !strings.Contains(stdout, "FAIL  "+notMistake) || !strings.Contains(stdout, "but this file holds mistakes: each line must fail") {
		t.Errorf("lab validate of a valid message in a .invalid.jsonl: exit %d, stdout:\n%s\nwant exit 1, the file failing because the line meets the schema", code, stdout)
	}
}

// TestHelpListsEveryCommand checks "lab help": every command of the table
// with its one-line summary, on stdout, exit 0, lines that fit a terminal;
// "lab" alone prints the same on stderr and exits 2; a command the lab
// does not have is a usage error.
func TestHelpListsEveryCommand(t *testing.T) {
	code, stdout, stderr := lab(t, "help")
	if code != 0 || stderr != "" {
		t.Fatalf("lab help: exit %d, stderr %q; want exit 0 and the list on stdout", code, stderr)
	}
	for _, c := range commands() {
		if c.summary == "" || strings.Contains(c.summary, "\n") {
			t.Errorf("command %s: summary %q, want one line", c.name, c.summary)
		}
		if !regexp.MustCompile(`(?m)^  ` + regexp.QuoteMeta(c.name) + ` +` + regexp.QuoteMeta(c.summary) + `$`).MatchString(stdout) {
			t.Errorf("lab help does not list %s with its summary %q:\n%s", c.name, c.summary, stdout)
		}
	}
	for _, l := range strings.Split(stdout, "\n") {
		if len([]rune(l)) > 80 {
			t.Errorf("lab help: a line of %d characters, more than 80: %q", len([]rune(l)), l)
		}
	}
	code, out0, err0 := lab(t)
	if code != 2 || out0 != "" || err0 != stdout {
		t.Errorf("lab with no command: exit %d, stdout %q, stderr same as lab help: %v; want exit 2 and the list on stderr", code, out0, err0 == stdout)
	}
	for _, args := range [][]string{{"help", "bogus"}, {"help", "grade", "run"}} {
		code, out, errs := lab(t, args...)
		if code != 2 || out != "" || !strings.HasPrefix(errs, "lab help: ") {
			t.Errorf("lab %s: exit %d, stdout %q, stderr %q; want exit 2 and an error starting \"lab help: \"", strings.Join(args, " "), code, out, errs)
		}
	}
}
