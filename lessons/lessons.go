// Package lessons holds the lessons' data, embedded into the lab binary so
// the image is one file: scenario files, the grading checks, and the texts a
// student reads.
package lessons

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
)

//go:embed 01-reading-messages/*.txtar 01-reading-messages/*.md 01-reading-messages/grading/*.txtar 01-reading-messages/model/*.txt 02-json-rpc-on-the-wire/data/*.json
var files embed.FS

// FS returns the lessons' files, one folder per lesson.
func FS() fs.FS { return files }

// Lesson is one lesson's data.
type Lesson struct {
	Number int
	// Dir is the lesson's folder, such as "01-reading-messages".
	Dir string
}

// Get returns lesson n, or an error listing the lessons there are.
func Get(n int) (Lesson, error) {
	entries, err := fs.ReadDir(files, ".")
	if err != nil {
		return Lesson{}, fmt.Errorf("listing lessons: %w", err)
	}
	var have []string
	for _, e := range entries {
		var num int
		if _, err := fmt.Sscanf(e.Name(), "%02d-", &num); err == nil && e.IsDir() {
			if num == n {
				return Lesson{Number: n, Dir: e.Name()}, nil
			}
			have = append(have, fmt.Sprint(num))
		}
	}
	sort.Strings(have)
	return Lesson{}, fmt.Errorf("there is no lesson %d (lessons: %s)", n, strings.Join(have, ", "))
}

// Read returns one file of the lesson, by its path inside the lesson's folder.
func (l Lesson) Read(name string) ([]byte, error) {
	b, err := fs.ReadFile(files, path.Join(l.Dir, name))
	if err != nil {
		return nil, fmt.Errorf("lesson %d: %w", l.Number, err)
	}
	return b, nil
}

// GradingScenarios lists the paths, inside the lesson's folder, of the
// scenario files the grader plays, in the order it plays them.
func (l Lesson) GradingScenarios() ([]string, error) {
	matches, err := fs.Glob(files, path.Join(l.Dir, "grading", "*.txtar"))
	if err != nil {
		return nil, fmt.Errorf("lesson %d: %w", l.Number, err)
	}
	var out []string
	for _, m := range matches {
		if path.Base(m) == "checks.txtar" {
			continue
		}
		out = append(out, strings.TrimPrefix(m, l.Dir+"/"))
	}
	sort.Strings(out)
	return out, nil
}
