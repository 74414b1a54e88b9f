package lessons

import (
	"bytes"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite starters.txtar from the lessons' starter folders")

const startersHeader = `Every lesson's starters, one file per "-- LESSON/starter/LANG/PATH --"
section: go:embed cannot reach them in their folders, since a Go starter is a
module of its own. Made by "go generate ./lessons"; do not edit (edit the
folders, then run it again).
`

// buildStartersArchive reads every lessons' starter/LANG/ folder from disk.
func buildStartersArchive(t *testing.T) []byte {
	t.Helper()
	var names []string
	for _, lang := range StarterLanguages() {
		dirs, _ := filepath.Glob(filepath.Join("*", "starter", lang))
		for _, d := range dirs {
			err := filepath.WalkDir(d, func(p string, de fs.DirEntry, err error) error {
				if err != nil {
					return err
				}
				if de.Type().IsRegular() {
					names = append(names, filepath.ToSlash(p))
				} else if !de.IsDir() {
					return fmt.Errorf("%s is neither a file nor a folder", p)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	sort.Strings(names)
	var b bytes.Buffer
	b.WriteString(startersHeader)
	for _, n := range names {
		data, err := os.ReadFile(filepath.FromSlash(n))
		if err != nil {
			t.Fatal(err)
		}
		if bytes.IndexByte(data, 0) >= 0 {
			continue // a program built in place (go build), not the starter's text
		}
		if len(data) == 0 || data[len(data)-1] != '\n' {
			t.Fatalf("%s does not end with a newline: the archive could not give it back as it is", n)
		}
		for _, line := range strings.Split(string(data), "\n") {
			if strings.HasPrefix(line, "-- ") && strings.HasSuffix(line, " --") {
				t.Fatalf("%s has a line %q that the archive would take for a file marker", n, line)
			}
		}
		fmt.Fprintf(&b, "-- %s --\n", n)
		b.Write(data)
	}
	return b.Bytes()
}

func TestStartersArchive(t *testing.T) {
	want := buildStartersArchive(t)
	if *update {
		if err := os.WriteFile("starters.txtar", want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if !bytes.Equal(startersArchive, want) {
		t.Fatal("starters.txtar does not match the lessons' starter folders: run go generate ./lessons")
	}
}

func TestStarter(t *testing.T) {
	m, err := Get(1)
	if err != nil {
		t.Fatal(err)
	}
	files, err := m.Starter("python")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		disk, err := os.ReadFile(path.Join(m.Dir, "starter", "python", f.Name))
		if err != nil || !bytes.Equal(disk, f.Data) {
			t.Errorf("%s: the embedded copy differs from the folder's (%v)", f.Name, err)
		}
	}
	if len(files) == 0 {
		t.Fatal("no files")
	}
	if _, err := m.Starter("cobol"); err == nil || !strings.Contains(err.Error(), "go, javascript, python") {
		t.Errorf("Starter(cobol) = %v, want an error listing the languages", err)
	}
	m3, err := Get(3)
	if err != nil {
		t.Fatal(err)
	}
	for lang, source := range map[string]string{"go": "main.go", "python": "client.py", "javascript": "client.js"} {
		files, err := m3.Starter(lang)
		if err != nil || !slices.ContainsFunc(files, func(f StarterFile) bool { return f.Name == source }) {
			t.Errorf("lesson 3 Starter(%s) = %d files (%v), want one of them %s", lang, len(files), err, source)
		}
	}
}
