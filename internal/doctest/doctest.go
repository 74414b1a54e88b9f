// Package doctest reads the commands that Markdown files show, so a test can
// run every one of them and the documents cannot drift from what the code
// does. It is a small script-test runner over fenced code blocks.
//
// A fenced block whose info string is sh, bash, shell or console holds
// commands: each line is one (a line ending in a backslash goes on to the
// next), blank lines and lines that are only a # comment are not, and in a
// console block only the lines that start with "$ " are. A yaml block is
// read as GitHub Actions steps: the value of each "run:" key is a command
// ("run: |" takes the indented lines below it). Other blocks hold no
// commands.
//
// Each command runs on its own (bash -c), from the folder of the file that
// shows it, with nothing on stdin, and must exit with status 0. An HTML
// comment that starts with "doctest" says otherwise for the next fenced
// block; each of its lines is one directive, and a reason after " # " is
// required where shown:
//
//	cd DIR                      run the block's commands in DIR, relative to the file's folder (made if missing)
//	setup COMMAND               run COMMAND first, unseen by readers (a fixture); it must exit 0
//	skip # REASON               the block is shown, not run
//	skip PREFIX # REASON        lines that start with PREFIX are shown, not run
//	exit N PREFIX # REASON      lines that start with PREFIX must exit with status N
//	slow PREFIX # REASON        lines that start with PREFIX run only when the runner asks
//	                            for slow commands (a benchmark of minutes, say)
//	output COMMAND              the block is exactly what COMMAND prints on stdout
//	interleaved PREFIX # REASON with output: lines that start with PREFIX come from
//	                            another stream; they keep their order among themselves,
//	                            but their place among the other lines is free
//
// A single-line comment works too: <!-- doctest: skip # needs a registry -->.
package doctest

import (
	"bufio"
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// Doc is one Markdown file's blocks, in order.
type Doc struct {
	// Path is the file's name, as given to Parse.
	Path   string
	Blocks []Block
}

// Block is one fenced code block and the directives that apply to it.
type Block struct {
	// Line is the line number of the opening fence.
	Line int
	// Lang is the first word of the info string, lower case.
	Lang string
	// Text is the block's content, each line ending in a newline.
	Text string
	// Commands are the commands the block shows, skipped ones included.
	Commands []Command
	// Dir is the "cd" directive's folder, relative to the file's folder;
	// empty means the file's folder.
	Dir string
	// Setup are the "setup" commands, run before the block's own.
	Setup []Command
	// Skip is the reason the whole block is not run, or empty.
	Skip string
	// Output, when set, is the command whose stdout the block must equal.
	Output *Command
	// Interleaved are the line prefixes of output from another stream.
	Interleaved []string
}

// Command is one command line.
type Command struct {
	// Line is the line number, in the file, where the command starts.
	Line int
	// Text is the command, continuation lines joined.
	Text string
	// Exit is the status the command must end with.
	Exit int
	// Skip is the reason the command is not run, or empty.
	Skip string
	// Slow is the reason the command runs only when slow commands are
	// asked for, or empty.
	Slow string
}

// directives are the parsed directives waiting for their block.
type directives struct {
	line        int // where the comment starts, for errors
	dir         string
	setup       []Command
	skip        string
	skipLines   []prefixRule
	slowLines   []prefixRule
	exitLines   []exitRule
	output      *Command
	interleaved []string
}

type prefixRule struct{ prefix, reason string }

type exitRule struct {
	prefix string
	code   int
}

// Parse reads a Markdown file's fenced blocks and directives. An unknown or
// malformed directive, a directive with no block after it, a skip without a
// reason, a rule that matches no command, and an unclosed block are errors,
// so an annotation cannot go stale unnoticed.
func Parse(path string, data []byte) (*Doc, error) {
	doc := &Doc{Path: path}
	lines := splitLines(string(data))
	var pending *directives
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "<!--") && strings.HasPrefix(strings.TrimSpace(strings.TrimPrefix(trimmed, "<!--")), "doctest") {
			start := i
			var body strings.Builder
			rest := strings.TrimSpace(strings.TrimPrefix(trimmed, "<!--"))
			for !strings.Contains(rest, "-->") {
				body.WriteString(rest + "\n")
				i++
				if i >= len(lines) {
					return nil, fmt.Errorf("%s:%d: doctest comment is never closed with -->", path, start+1)
				}
				rest = lines[i]
			}
			body.WriteString(rest[:strings.Index(rest, "-->")])
			if pending != nil {
				return nil, fmt.Errorf("%s:%d: a second doctest comment before the block of the one at line %d; put all directives in one comment", path, start+1, pending.line)
			}
			d, err := parseDirectives(path, start+1, body.String())
			if err != nil {
				return nil, err
			}
			pending = d
			continue
		}
		fence, info, ok := openingFence(line)
		if !ok {
			continue
		}
		b := Block{Line: i + 1, Lang: strings.ToLower(firstWord(info))}
		var text strings.Builder
		closed := false
		for i++; i < len(lines); i++ {
			if isClosingFence(lines[i], fence) {
				closed = true
				break
			}
			text.WriteString(strings.TrimPrefix(lines[i], indentOf(line)) + "\n")
		}
		if !closed {
			return nil, fmt.Errorf("%s:%d: code block is never closed", path, b.Line)
		}
		b.Text = text.String()
		b.Commands = commands(b.Lang, b.Text, b.Line+1)
		if pending != nil {
			if err := pending.apply(path, &b); err != nil {
				return nil, err
			}
			pending = nil
		}
		doc.Blocks = append(doc.Blocks, b)
	}
	if pending != nil {
		return nil, fmt.Errorf("%s:%d: doctest comment with no code block after it", path, pending.line)
	}
	return doc, nil
}

func parseDirectives(path string, line int, body string) (*directives, error) {
	body = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(body), "doctest"))
	body = strings.TrimPrefix(body, ":")
	d := &directives{line: line}
	for n, raw := range strings.Split(body, "\n") {
		raw = strings.TrimSpace(raw)
		if raw == "" {
			continue
		}
		where := fmt.Sprintf("%s:%d", path, line+n)
		verb, arg, _ := strings.Cut(raw, " ")
		arg = strings.TrimSpace(arg)
		what, reason := arg, ""
		if k := strings.Index(" "+arg, " # "); k >= 0 {
			what, reason = strings.TrimSpace((" " + arg)[:k]), strings.TrimSpace((" " + arg)[k+3:])
		}
		needReason := func() error {
			if reason == "" {
				return fmt.Errorf("%s: %q needs a reason after \" # \": say why this cannot run here", where, raw)
			}
			return nil
		}
		switch verb {
		case "cd":
			if arg == "" {
				return nil, fmt.Errorf("%s: cd needs a folder", where)
			}
			d.dir = arg
		case "setup":
			if arg == "" {
				return nil, fmt.Errorf("%s: setup needs a command", where)
			}
			d.setup = append(d.setup, Command{Line: line + n, Text: arg})
		case "skip":
			if err := needReason(); err != nil {
				return nil, err
			}
			if what == "" {
				d.skip = reason
			} else {
				d.skipLines = append(d.skipLines, prefixRule{what, reason})
			}
		case "slow":
			if err := needReason(); err != nil {
				return nil, err
			}
			if what == "" {
				return nil, fmt.Errorf("%s: slow needs a command prefix", where)
			}
			d.slowLines = append(d.slowLines, prefixRule{what, reason})
		case "exit":
			if err := needReason(); err != nil {
				return nil, err
			}
			num, prefix, _ := strings.Cut(what, " ")
			code, err := strconv.Atoi(num)
			if err != nil || strings.TrimSpace(prefix) == "" {
				return nil, fmt.Errorf("%s: want \"exit N PREFIX # REASON\", got %q", where, raw)
			}
			d.exitLines = append(d.exitLines, exitRule{strings.TrimSpace(prefix), code})
		case "output":
			if arg == "" {
				return nil, fmt.Errorf("%s: output needs a command", where)
			}
			d.output = &Command{Line: line + n, Text: arg}
		case "interleaved":
			if err := needReason(); err != nil {
				return nil, err
			}
			if what == "" {
				return nil, fmt.Errorf("%s: interleaved needs a line prefix", where)
			}
			d.interleaved = append(d.interleaved, what)
		default:
			return nil, fmt.Errorf("%s: unknown doctest directive %q (known: cd, setup, skip, slow, exit, output, interleaved)", where, verb)
		}
	}
	return d, nil
}

// apply attaches the directives to their block and checks that each rule
// matches a command.
func (d *directives) apply(path string, b *Block) error {
	b.Dir, b.Setup, b.Skip, b.Output, b.Interleaved = d.dir, d.setup, d.skip, d.output, d.interleaved
	if len(d.interleaved) > 0 && d.output == nil {
		return fmt.Errorf("%s:%d: interleaved applies only with output", path, d.line)
	}
	for _, r := range d.skipLines {
		if !b.matchAll(r.prefix, func(c *Command) { c.Skip = r.reason }) {
			return fmt.Errorf("%s:%d: skip %q matches no command of the block at line %d", path, d.line, r.prefix, b.Line)
		}
	}
	for _, r := range d.slowLines {
		if !b.matchAll(r.prefix, func(c *Command) { c.Slow = r.reason }) {
			return fmt.Errorf("%s:%d: slow %q matches no command of the block at line %d", path, d.line, r.prefix, b.Line)
		}
	}
	for _, r := range d.exitLines {
		if !b.matchAll(r.prefix, func(c *Command) { c.Exit = r.code }) {
			return fmt.Errorf("%s:%d: exit %d %q matches no command of the block at line %d", path, d.line, r.code, r.prefix, b.Line)
		}
	}
	if b.Skip != "" {
		for i := range b.Commands {
			b.Commands[i].Skip = b.Skip
		}
	}
	return nil
}

func (b *Block) matchAll(prefix string, set func(*Command)) bool {
	found := false
	for i := range b.Commands {
		if strings.HasPrefix(b.Commands[i].Text, prefix) {
			set(&b.Commands[i])
			found = true
		}
	}
	return found
}

// commands extracts the commands of a block that starts at line first.
func commands(lang, text string, first int) []Command {
	lines := splitLines(text)
	var out []Command
	switch lang {
	case "sh", "bash", "shell", "console":
		for i := 0; i < len(lines); i++ {
			start := i
			l := strings.TrimSpace(lines[i])
			if lang == "console" {
				if !strings.HasPrefix(l, "$ ") {
					continue
				}
				l = strings.TrimSpace(l[2:])
			}
			for strings.HasSuffix(l, `\`) && i+1 < len(lines) {
				i++
				l = strings.TrimSuffix(l, `\`) + " " + strings.TrimSpace(lines[i])
			}
			if l == "" || strings.HasPrefix(l, "#") {
				continue
			}
			out = append(out, Command{Line: first + start, Text: l})
		}
	case "yaml", "yml":
		for i := 0; i < len(lines); i++ {
			key := strings.TrimSpace(lines[i])
			key = strings.TrimSpace(strings.TrimPrefix(key, "- "))
			v, ok := strings.CutPrefix(key, "run:")
			if !ok {
				continue
			}
			v = strings.TrimSpace(v)
			if v != "|" {
				out = append(out, Command{Line: first + i, Text: unquoteYAML(v)})
				continue
			}
			indent := len(indentOf(lines[i]))
			for i+1 < len(lines) && len(indentOf(lines[i+1])) > indent && strings.TrimSpace(lines[i+1]) != "" {
				i++
				if l := strings.TrimSpace(lines[i]); !strings.HasPrefix(l, "#") {
					out = append(out, Command{Line: first + i, Text: l})
				}
			}
		}
	}
	return out
}

// unquoteYAML strips the quotes of a quoted scalar and a trailing comment
// of a plain one.
func unquoteYAML(v string) string {
	if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
		if v[0] == '"' {
			if u, err := strconv.Unquote(v); err == nil {
				return u
			}
		}
		return strings.ReplaceAll(v[1:len(v)-1], "''", "'")
	}
	return v
}

func openingFence(line string) (fence, info string, ok bool) {
	t := strings.TrimLeft(line, " ")
	if len(line)-len(t) > 3 {
		return "", "", false
	}
	for _, c := range []string{"```", "~~~"} {
		if strings.HasPrefix(t, c) {
			n := len(t) - len(strings.TrimLeft(t, c[:1]))
			return t[:n], strings.TrimSpace(t[n:]), true
		}
	}
	return "", "", false
}

func isClosingFence(line, fence string) bool {
	t := strings.TrimSpace(line)
	return strings.HasPrefix(t, fence) && strings.Trim(t, fence[:1]) == ""
}

func indentOf(line string) string { return line[:len(line)-len(strings.TrimLeft(line, " \t"))] }

func firstWord(s string) string {
	if f := strings.Fields(s); len(f) > 0 {
		return strings.Trim(f[0], "{}.")
	}
	return ""
}

func splitLines(s string) []string {
	var out []string
	sc := bufio.NewScanner(strings.NewReader(s))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	return out
}

// CompareOutput reports how got differs from want, the text of an output
// block, or returns nil when they agree. Lines that start with one of
// interleaved are compared in order among themselves, wherever they stand
// among the other lines, which are compared in order too.
func CompareOutput(want, got string, interleaved []string) error {
	streams := func(s string) map[string][]string {
		m := map[string][]string{}
		for _, l := range splitLines(s) {
			key := ""
			for _, p := range interleaved {
				if strings.HasPrefix(l, p) {
					key = p
					break
				}
			}
			m[key] = append(m[key], l)
		}
		return m
	}
	w, g := streams(want), streams(got)
	keys := append([]string{""}, interleaved...)
	var diffs bytes.Buffer
	for _, k := range keys {
		if d := diffLines(w[k], g[k]); d != "" {
			name := "the lines"
			if k != "" {
				name = fmt.Sprintf("the lines that start with %q", k)
			}
			fmt.Fprintf(&diffs, "%s differ:\n%s", name, d)
		}
	}
	if diffs.Len() == 0 {
		return nil
	}
	return fmt.Errorf("%s", diffs.String())
}

// diffLines shows the first difference of two line lists with its context.
func diffLines(want, got []string) string {
	n := min(len(want), len(got))
	i := 0
	for i < n && want[i] == got[i] {
		i++
	}
	if i == len(want) && i == len(got) {
		return ""
	}
	at := func(l []string) string {
		if i < len(l) {
			return strconv.Quote(l[i])
		}
		return "(end)"
	}
	return fmt.Sprintf("  line %d of them: the document has %s\n  the command printed %s\n", i+1, at(want), at(got))
}
