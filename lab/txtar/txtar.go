// Package txtar reads the lab's data archives: scenario files, check
// catalogues, the starters' archive. The format is golang.org/x/tools/txtar's
// (a comment, then files that each start with a line "-- NAME --"), read
// by the lab's own reader, which keeps each file's line number so that a
// teacher's mistake is reported at its line.
package txtar

import (
	"bytes"
	"fmt"
	"strings"
)

// Archive is one archive: its comment and its files, in order.
type Archive struct {
	// Comment is every line before the first file's marker.
	Comment []byte
	// Files are the archive's files; a marker with no name makes a file
	// named "".
	Files []File
}

// File is one file of an archive.
type File struct {
	// Name is the name between "-- " and " --", spaces trimmed.
	Name string
	// Data is the lines after the marker, up to the next one.
	Data []byte
	// Line is the line number of the file's "-- NAME --" marker, from 1.
	Line int
}

// Parse splits data into its comment and files. It never fails: a line is
// a marker when it starts with "-- " and ends with " --" (a "\r" before its
// "\n" dropped), and every other line belongs to the comment or to the
// file before it.
func Parse(data []byte) Archive {
	var ar Archive
	var cur *File
	lineNo := 0
	for len(data) > 0 {
		var line []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i+1], data[i+1:]
		} else {
			line, data = data, nil
		}
		lineNo++
		if name, ok := marker(line); ok {
			ar.Files = append(ar.Files, File{Name: name, Line: lineNo})
			cur = &ar.Files[len(ar.Files)-1]
			continue
		}
		if cur == nil {
			ar.Comment = append(ar.Comment, line...)
		} else {
			cur.Data = append(cur.Data, line...)
		}
	}
	return ar
}

// Files returns the files of the archive data, for a reader that has no
// use for a file with no name: a marker with no name is an error that
// names its line.
func Files(data []byte) ([]File, error) {
	ar := Parse(data)
	for _, f := range ar.Files {
		if f.Name == "" {
			return nil, fmt.Errorf("line %d: a file marker with no name", f.Line)
		}
	}
	return ar.Files, nil
}

// marker returns the name of a file marker line.
func marker(line []byte) (string, bool) {
	s := strings.TrimRight(string(line), "\r\n")
	if !strings.HasPrefix(s, "-- ") || !strings.HasSuffix(s, " --") || len(s) < 7 {
		return "", false
	}
	return strings.TrimSpace(s[3 : len(s)-3]), true
}
