package capture

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/mcplab/mcplab/lab/textesc"
	"github.com/mcplab/mcplab/lab/wire"
)

// WriteJSONL writes the session's records, one JSON object a line.
func (s *Session) WriteJSONL(w io.Writer) error {
	bw := bufio.NewWriter(w)
	for _, r := range s.Records {
		b, err := wire.MarshalCompact(r)
		if err != nil {
			return fmt.Errorf("encoding record %d: %w", r.Seq, err)
		}
		bw.Write(b)
		bw.WriteByte('\n')
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("writing the session: %w", err)
	}
	return nil
}

// ReadJSONL reads the records of a session file.
func ReadJSONL(data []byte) ([]Record, error) {
	var out []Record
	for i, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var f fileRecord
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&f); err != nil {
			return nil, fmt.Errorf("line %d is not a session record: %w", i+1, err)
		}
		from, ok := kindOf(f.From)
		if !ok {
			return nil, fmt.Errorf("line %d: unknown sender %q", i+1, f.From)
		}
		out = append(out, Record{Seq: f.Seq, Ms: f.Ms, From: from, Message: f.Message, Text: f.Text})
	}
	return out, nil
}

// LooksLikeSession reports whether a .jsonl file holds session records
// rather than bare messages: its first line has "from" and no "jsonrpc".
func LooksLikeSession(data []byte) bool {
	first, _, _ := bytes.Cut(bytes.TrimLeft(data, " \t\r\n"), []byte("\n"))
	var obj map[string]json.RawMessage
	if json.Unmarshal(first, &obj) != nil {
		return false
	}
	_, from := obj["from"]
	_, rpc := obj["jsonrpc"]
	return from && !rpc
}

// WriteMarkdown writes the session for people: the exchange in order, each
// message pretty-printed under who sent it and when, then the server's log.
// Control characters and invisible reordering characters in anything the
// server, the command line or a file name put there are shown as escapes
// (ESC as \x1b, see textesc), so the file does nothing to the terminal or
// viewer that shows it.
func (s *Session) WriteMarkdown(w io.Writer, title string) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "# %s\n\n", textesc.Line(title))
	fmt.Fprintf(bw, "Recorded with `lab capture`: the server %s was sent the lines of %s one at a time; "+
		"after each request the recorder waited for its answer. Times are milliseconds since the server started.\n\n",
		codeSpan(strings.Join(s.Command, " ")), codeSpan(s.Input))
	for _, r := range s.Records {
		switch r.From {
		case Client:
			fmt.Fprintf(bw, "**client → server** at %.1f ms\n\n", r.Ms)
			writeLine(bw, r)
		case Server:
			fmt.Fprintf(bw, "**server → client** at %.1f ms\n\n", r.Ms)
			writeLine(bw, r)
		case Lab:
			fmt.Fprintf(bw, "*%s* at %.1f ms\n\n", textesc.Line(r.Line()), r.Ms)
		}
	}
	fmt.Fprintf(bw, "## What the server logged on stderr\n\n")
	var log []string
	for _, r := range s.Records {
		if r.From == Stderr {
			log = append(log, fmt.Sprintf("%8.1f ms  %s", r.Ms, fenced(r.Line())))
		}
	}
	if len(log) == 0 {
		fmt.Fprintf(bw, "Nothing.\n")
	} else {
		fmt.Fprintf(bw, "```\n%s\n```\n", strings.Join(log, "\n"))
	}
	if len(s.Missing) > 0 {
		fmt.Fprintf(bw, "\n## Answers that never came\n\n")
		for _, m := range s.Missing {
			fmt.Fprintf(bw, "- %s\n", textesc.Line(m))
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("writing the session: %w", err)
	}
	return nil
}

// writeLine shows a message pretty-printed, or a line that is not JSON as
// it was.
func writeLine(w io.Writer, r Record) {
	if r.Message != nil {
		var buf bytes.Buffer
		if json.Indent(&buf, r.Message, "", "  ") == nil {
			fmt.Fprintf(w, "```json\n%s\n```\n\n", fenced(buf.String()))
			return
		}
	}
	fmt.Fprintf(w, "```\n%s\n```\n(not JSON)\n\n", fenced(r.Line()))
}

// fenced shows text inside a fenced code block: control characters as
// escapes (textesc.Visible; a record's line holds no newline), and a run of
// three backticks broken by a backslash, so the text cannot end the block
// early.
func fenced(s string) string {
	return strings.ReplaceAll(textesc.Visible(s), "```", "`\\``")
}

// codeSpan shows text as inline code on one line: control characters as
// escapes, and fenced by more backticks than the text holds in a row.
func codeSpan(s string) string {
	s = textesc.Line(s)
	run, longest := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if longest > 0 {
		return fence + " " + s + " " + fence
	}
	return fence + s + fence
}
