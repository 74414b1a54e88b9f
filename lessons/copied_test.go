package lessons

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"unicode"
)

// copiedRun is the length, in words, of the shortest run of words that
// counts as copied: eight words in a row of a source document standing in a
// lesson text means the sentence was carried over, not just the fact.
const copiedRun = 8

// maxTextFile bounds the bytes read of any one file, lesson text or source.
const maxTextFile = 4 << 20

// TestNoCopiedSentences fails when a run of eight or more words of a source
// document in ../shared/seeds/ (beside the repository) also stands in any
// text file under lessons/. A fact may carry over, a sentence may not.
//
// Wire bytes and code identifiers are not words here, on both sides:
//   - files ending .json or .jsonl, and fenced blocks marked json or jsonl,
//     are skipped whole;
//   - a line whose first character (after spaces) is { or [, or that is a
//     member ("code": -32022,) of a JSON object spread over lines, is a wire
//     line and skipped; so is an HTTP request, status or header line
//     (Mcp-Method: tools/call) in a fenced block;
//   - inside any other line, every span that starts at { and decodes as one
//     JSON object (a tagged expectation, a transcript line, an inline
//     `{"waited":5}`) is cut out, and a cut ends a run;
//   - a `backtick span` and any token holding _ . / or an inner capital
//     (params.ms, server/discover, mcp__tickets__search, readLine) is an
//     identifier: it neither counts as a word nor ends a run.
//
// Numbers, codes and dates (digits and hyphens) are facts, not words, and
// are left out the same way. Words are compared lower-cased, split at hyphens, across line breaks.
func TestNoCopiedSentences(t *testing.T) {
	root, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	sourceDir := filepath.Join(filepath.Dir(root), "shared", "seeds")
	sources, err := filepath.Glob(filepath.Join(sourceDir, "*.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if len(sources) == 0 {
		t.Skipf("no source documents (*.txt) in %s: the check needs the shared folder beside the repository (CI has it at ../shared)", sourceDir)
	}
	texts := map[string]string{}
	for _, src := range sources {
		text, err := readBounded(src)
		if err != nil {
			t.Fatal(err)
		}
		texts[filepath.Base(src)] = text
	}
	grams := sourceGrams(texts)

	lessonsDir := filepath.Join(root, "lessons")
	found := map[string][]string{}
	err = filepath.WalkDir(lessonsDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !d.Type().IsRegular() {
			return nil
		}
		if ext := filepath.Ext(path); ext == ".json" || ext == ".jsonl" {
			return nil
		}
		text, err := readBounded(path)
		if err != nil {
			return err
		}
		if bytes.IndexByte([]byte(text), 0) >= 0 {
			return nil // not a text file
		}
		rel, _ := filepath.Rel(lessonsDir, path)
		found[filepath.ToSlash(rel)] = copies(text, grams)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}

	names := make([]string, 0, len(found))
	for name := range found {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		for _, r := range found[name] {
			t.Errorf("lessons/%s:%s", name, r)
		}
	}
	if t.Failed() {
		t.Log("Each run above is eight or more words in a row of a source document in ../shared/seeds/. " +
			"Keep the fact and write the sentence anew: say it in the lesson's own terms, in another order, or as an example.")
	}
}

// sourceGrams maps every run of copiedRun words of the named source texts
// to the name of a source that holds it.
func sourceGrams(sources map[string]string) map[string]string {
	grams := map[string]string{}
	for name, text := range sources {
		for _, seg := range segments(text) {
			for i := 0; i+copiedRun <= len(seg); i++ {
				grams[key(seg[i:i+copiedRun])] = name
			}
		}
	}
	return grams
}

// word is one word of a text and the line it stands on.
type word struct {
	text string
	line int
}

// segments splits a text into runs of words that wire bytes do not
// interrupt.
func segments(text string) [][]word {
	var segs [][]word
	var cur []word
	cut := func() {
		if len(cur) > 0 {
			segs = append(segs, cur)
			cur = nil
		}
	}
	fence, skipFence := false, false
	for n, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "```") {
			if !fence {
				lang := strings.ToLower(strings.TrimSpace(strings.TrimLeft(trimmed, "`")))
				skipFence = lang == "json" || lang == "jsonl" || lang == "jsonc"
			}
			fence = !fence
			cut()
			continue
		}
		if (fence && (skipFence || httpLine.MatchString(trimmed))) || wireLine.MatchString(trimmed) {
			cut()
			continue
		}
		for i, piece := range cutJSON(line) {
			if i > 0 {
				cut()
			}
			for _, w := range words(piece) {
				cur = append(cur, word{w, n + 1})
			}
		}
	}
	cut()
	return segs
}

// cutJSON splits a line at every span of JSON object it holds, dropping the
// spans: from a { that opens an object (the next character, after spaces, is
// a quote or the closing brace) to the brace that closes it, quotes
// respected, so a span with a placeholder such as THE_VERSION in it counts
// as wire bytes too. An object left open runs to the end of the line.
func cutJSON(line string) []string {
	var pieces []string
	start := 0
	for i := 0; i < len(line); i++ {
		if line[i] != '{' {
			continue
		}
		if next := strings.TrimLeft(line[i+1:], " \t"); next == "" || (next[0] != '"' && next[0] != '}') {
			continue
		}
		pieces = append(pieces, line[start:i])
		end := closingBrace(line, i)
		i, start = end, end+1
	}
	if start >= len(line) {
		return pieces
	}
	return append(pieces, line[start:])
}

// closingBrace returns the index of the brace that closes the object
// opened at line[open], or the line's last index when it stays open.
func closingBrace(line string, open int) int {
	depth, inString := 0, false
	for i := open; i < len(line); i++ {
		switch c := line[i]; {
		case inString && c == '\\':
			i++
		case c == '"':
			inString = !inString
		case inString:
		case c == '{':
			depth++
		case c == '}':
			if depth--; depth == 0 {
				return i
			}
		}
	}
	return len(line) - 1
}

// wireLine tells a line of JSON: one that opens with { or [, or a member
// ("code": -32022,) of an object spread over several lines.
var wireLine = regexp.MustCompile(`^(?:[{\[]|"[^"]*"\s*:)`)

// httpLine tells a line of an HTTP message shown in a fenced block: a
// request line, a status line, or a header such as "Mcp-Method: x".
var httpLine = regexp.MustCompile(`^(?:(?:GET|POST|PUT|DELETE|HEAD|OPTIONS|PATCH) \S+ HTTP/\d|HTTP/\d(?:\.\d)? \d{3}|[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*: \S)`)

// words returns the words of a piece of a line, lower-cased, with code
// spans and identifiers left out.
func words(s string) []string {
	var out []string
	parts := strings.Split(s, "`")
	for i, part := range parts {
		if i%2 == 1 && i < len(parts)-1 {
			continue // a code span
		}
		for _, tok := range strings.FieldsFunc(part, func(r rune) bool {
			return !(unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("_./'’-", r))
		}) {
			tok = strings.Trim(strings.ReplaceAll(tok, "’", "'"), ".'-")
			if tok == "" || isIdentifier(tok) || isNumber(tok) {
				continue
			}
			for _, w := range strings.Split(tok, "-") {
				if w = strings.Trim(w, "'"); w != "" {
					out = append(out, strings.ToLower(w))
				}
			}
		}
	}
	return out
}

// isIdentifier tells a code identifier from a word: it holds _ . or /, or a
// capital letter after a small one.
func isIdentifier(tok string) bool {
	if strings.ContainsAny(tok, "_./") {
		return true
	}
	prev := ' '
	for _, r := range tok {
		if unicode.IsUpper(r) && unicode.IsLower(prev) {
			return true
		}
		prev = r
	}
	return false
}

// isNumber tells a number, a code or a date (digits and hyphens): a fact,
// never the words of a sentence.
func isNumber(tok string) bool {
	return strings.Trim(tok, "0123456789-") == ""
}

// key joins words into a map key.
func key(ws []word) string {
	var b strings.Builder
	for i, w := range ws {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(w.text)
	}
	return b.String()
}

// copies returns each maximal run of a text whose every eight words stand
// in a source, as "LINE: N words from SOURCE: «words»".
func copies(text string, grams map[string]string) []string {
	var out []string
	for _, seg := range segments(text) {
		end := -1 // the run being built covers seg[start:end]
		start, src := 0, ""
		flush := func() {
			if end > start {
				out = append(out, fmt.Sprintf("%d: %d words from %s: «%s»", seg[start].line, end-start, src, key(seg[start:end])))
			}
			end = -1
		}
		for i := 0; i+copiedRun <= len(seg); i++ {
			s, ok := grams[key(seg[i:i+copiedRun])]
			switch {
			case !ok:
				if end >= 0 && i >= end {
					flush()
				}
			case end >= 0 && i <= end:
				end = i + copiedRun
			default:
				flush()
				start, end, src = i, i+copiedRun, s
			}
		}
		flush()
	}
	return out
}

// readBounded reads a file that must be no bigger than maxTextFile.
func readBounded(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("reading %s: %w", path, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxTextFile+1))
	if err != nil {
		return "", fmt.Errorf("reading %s: %w", path, err)
	}
	if len(b) > maxTextFile {
		return "", fmt.Errorf("reading %s: larger than %d bytes, too big for a text", path, maxTextFile)
	}
	return string(b), nil
}

// repoRoot finds the folder of the module's go.mod, upward from the
// package's folder.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("finding the repository root: %w", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("finding the repository root: no go.mod above the test's folder")
		}
		dir = parent
	}
}

// TestCopiedRunRules pins what counts as a copied run and what does not:
// case, punctuation and line breaks do not hide a copy; wire bytes, code
// spans, identifiers and numbers are not words; seven words are not a run.
func TestCopiedRunRules(t *testing.T) {
	grams := sourceGrams(map[string]string{"src.txt": "" +
		"Intro. The reader keeps every byte until a newline ends the line, then parses it.\n" +
		`{"jsonrpc":"2.0","id":1,"method":"wait","params":{"ms":80}} is what the client sends first` + "\n" +
		"Call `tools/list` and read every page until nextCursor is absent from the result.\n" +
		"It answered 4096 bytes of a 2026-07-28 request with one short error line.\n"})
	for _, c := range []struct {
		name, text string
		want       []string
	}{
		{"a copy across a line break, with other case and marks", "Note: the Reader keeps every\nbyte, until a newline ends the line; then\n",
			[]string{"1: 12 words from src.txt: «the reader keeps every byte until a newline ends the line then»"}},
		{"seven words are no run", "so the reader keeps every byte until a stop\n", nil},
		{"a JSON line is wire bytes", `{"text":"the reader keeps every byte until a newline ends the line"}` + "\n", nil},
		{"a JSON member line is wire bytes", `  "text": "the reader keeps every byte until a newline ends the line",` + "\n", nil},
		{"fenced JSON is wire bytes", "```json\nthe reader keeps every byte until a newline ends the line\n```\n", nil},
		{"an HTTP header in a fence is wire bytes", "```\nX-Note: the reader keeps every byte until a newline ends\n```\n", nil},
		{"inline JSON cuts a run", "the reader keeps every {\"a\":1} byte until a newline ends the line\n", nil},
		{"inline JSON with a placeholder cuts a run too", "the reader keeps every {\"a\":THE_ID} byte until a newline ends the line\n", nil},
		{"a code span is no word and no cut", "call `tools/list` and read every page until `nextCursor` is absent\n",
			[]string{"1: 8 words from src.txt: «call and read every page until is absent»"}},
		{"an identifier is no word and no cut", "call tools/list and read every page until nextCursor is absent from\n",
			[]string{"1: 9 words from src.txt: «call and read every page until is absent from»"}},
		{"numbers and dates are no words", "it answered 512 bytes of a 2025-11-25 request with one\n",
			[]string{"1: 8 words from src.txt: «it answered bytes of a request with one»"}},
		{"words after a JSON span", "is what the client sends first, then more\n", nil},
	} {
		got := copies(c.text, grams)
		if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
			t.Errorf("%s: copies(%q)\n got %q\nwant %q", c.name, c.text, got, c.want)
		}
	}
}
