package starter_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// A fileDiff is the part of a unified diff that changes one file.
type fileDiff struct {
	path  string
	hunks []hunk
}

// A hunk is one "@@ -a,b +c,d @@" block: oldStart is its first line in the
// old file (1-based; for a hunk that only adds, the line after which it
// adds), and each of lines starts with ' ', '-' or '+'.
type hunk struct {
	oldStart, oldLen, newLen int
	lines                    []string
}

// parseDiff reads a unified diff as `diff -u` writes it. Text before the
// first "--- " line is a description and is skipped, as patch(1) does.
func parseDiff(text string) ([]fileDiff, error) {
	var files []fileDiff
	lines := strings.SplitAfter(text, "\n")
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if line == "" {
			continue
		}
		switch {
		case strings.HasPrefix(line, "--- "):
			if i+1 >= len(lines) || !strings.HasPrefix(lines[i+1], "+++ ") {
				return nil, fmt.Errorf("line %d: a \"--- \" line must be followed by a \"+++ \" line", i+1)
			}
			path := strings.TrimSpace(strings.TrimPrefix(lines[i+1], "+++ "))
			if tab := strings.IndexByte(path, '\t'); tab >= 0 {
				path = path[:tab] // diff -u may add a date after a tab
			}
			files = append(files, fileDiff{path: path})
			i++
		case strings.HasPrefix(line, "@@ "):
			if len(files) == 0 {
				return nil, fmt.Errorf("line %d: a hunk before any file header", i+1)
			}
			h, err := parseHunkHeader(line)
			if err != nil {
				return nil, fmt.Errorf("line %d: %w", i+1, err)
			}
			oldSeen, newSeen := 0, 0
			for oldSeen < h.oldLen || newSeen < h.newLen {
				i++
				if i >= len(lines) || lines[i] == "" {
					return nil, fmt.Errorf("hunk at line %d ends early", h.oldStart)
				}
				body := lines[i]
				if !strings.HasSuffix(body, "\n") {
					return nil, fmt.Errorf("line %d: the diff must end with a newline", i+1)
				}
				switch body[0] {
				case ' ':
					oldSeen++
					newSeen++
				case '-':
					oldSeen++
				case '+':
					newSeen++
				case '\\':
					return nil, fmt.Errorf("line %d: files without a final newline are not supported", i+1)
				default:
					return nil, fmt.Errorf("line %d: %q is not a hunk line", i+1, strings.TrimSpace(body))
				}
				h.lines = append(h.lines, body)
			}
			f := &files[len(files)-1]
			f.hunks = append(f.hunks, h)
		case len(files) > 0:
			return nil, fmt.Errorf("line %d: %q is neither a file header nor a hunk", i+1, strings.TrimSpace(line))
		}
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no file header (\"--- \") found")
	}
	return files, nil
}

// parseHunkHeader reads "@@ -a,b +c,d @@" (a missing count means 1).
func parseHunkHeader(line string) (hunk, error) {
	fields := strings.Fields(line)
	if len(fields) < 4 || fields[3] != "@@" || !strings.HasPrefix(fields[1], "-") || !strings.HasPrefix(fields[2], "+") {
		return hunk{}, fmt.Errorf("%q is not a hunk header", strings.TrimSpace(line))
	}
	start, oldLen, err := parseRange(fields[1][1:])
	if err != nil {
		return hunk{}, fmt.Errorf("%q: %w", strings.TrimSpace(line), err)
	}
	_, newLen, err := parseRange(fields[2][1:])
	if err != nil {
		return hunk{}, fmt.Errorf("%q: %w", strings.TrimSpace(line), err)
	}
	return hunk{oldStart: start, oldLen: oldLen, newLen: newLen}, nil
}

func parseRange(s string) (start, n int, err error) {
	first, count, found := strings.Cut(s, ",")
	if start, err = strconv.Atoi(first); err != nil {
		return 0, 0, err
	}
	n = 1
	if found {
		if n, err = strconv.Atoi(count); err != nil {
			return 0, 0, err
		}
	}
	return start, n, nil
}

// applyHunks applies hunks to src strictly: every context and removed line
// must be exactly where the hunk says. A stage that no longer applies means
// the starter changed under it, and the error says where.
func applyHunks(src string, hunks []hunk) (string, error) {
	if src != "" && !strings.HasSuffix(src, "\n") {
		return "", fmt.Errorf("the file does not end with a newline")
	}
	old := strings.SplitAfter(src, "\n")
	old = old[:len(old)-1] // the empty string after the last newline
	var out []string
	next := 0 // index in old of the first line not yet copied
	for _, h := range hunks {
		at := h.oldStart - 1
		if h.oldLen == 0 {
			at = h.oldStart
		}
		if at < next || at > len(old) {
			return "", fmt.Errorf("hunk at line %d: out of order or past the end of the file (%d lines)", h.oldStart, len(old))
		}
		out = append(out, old[next:at]...)
		next = at
		for _, l := range h.lines {
			switch l[0] {
			case ' ', '-':
				if next >= len(old) {
					return "", fmt.Errorf("hunk at line %d: the file ends before %q", h.oldStart, strings.TrimSpace(l[1:]))
				}
				if old[next] != l[1:] {
					return "", fmt.Errorf("hunk at line %d: line %d is %q, the stage expects %q", h.oldStart, next+1, strings.TrimSuffix(old[next], "\n"), strings.TrimSuffix(l[1:], "\n"))
				}
				if l[0] == ' ' {
					out = append(out, old[next])
				}
				next++
			case '+':
				out = append(out, l[1:])
			}
		}
	}
	out = append(out, old[next:]...)
	return strings.Join(out, ""), nil
}

func TestApplyHunks(t *testing.T) {
	src := "a\nb\nc\nd\n"
	diff := "About this change.\n\n--- f\n+++ f\n@@ -1,2 +1,2 @@\n-a\n+A\n b\n@@ -4,0 +5,1 @@\n+e\n"
	files, err := parseDiff(diff)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 || files[0].path != "f" || len(files[0].hunks) != 2 {
		t.Fatalf("parsed %+v", files)
	}
	got, err := applyHunks(src, files[0].hunks)
	if err != nil {
		t.Fatal(err)
	}
	if want := "A\nb\nc\nd\ne\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}

	// A stage written for another version of the file must not apply.
	_, err = applyHunks("x\nb\nc\nd\n", files[0].hunks)
	if err == nil || !strings.Contains(err.Error(), `line 1 is "x", the stage expects "a"`) {
		t.Errorf("applying to a changed file: error %v", err)
	}

	for _, bad := range []string{
		"",                                    // nothing at all
		"--- f\n@@ -1 +1 @@\n-a\n+b\n",        // no +++ line
		"--- f\n+++ f\n@@ -1,2 +1,2 @@\n-a\n", // hunk cut short
		"--- f\n+++ f\n@@ -1 +1 @@\n-a\n+b\n\\ No newline at end of file\n",
	} {
		if _, err := parseDiff(bad); err == nil {
			t.Errorf("parseDiff(%q) gave no error", bad)
		}
	}
}
