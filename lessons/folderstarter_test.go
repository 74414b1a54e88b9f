package lessons

import (
	"fmt"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"
)

// TestFolderStarter reads the starters of a lesson folder on disk (a
// teacher's --lesson-dir), as lab assignment hands them out: its own
// starter/LANG files, sorted, and the same errors as a built-in lesson's
// for a language it has no starter in; a link or a file over the bounds
// is refused, naming it.
func TestFolderStarter(t *testing.T) {
	manifest := &fstest.MapFile{Data: []byte("number: 42\ntitle: T\nsubject: server\nserver: reader\n")}
	dir := fstest.MapFS{
		"lesson.txt":                 manifest,
		"starter/python/server.py":   {Data: []byte("print('hi')\n")},
		"starter/python/README.md":   {Data: []byte("# Starter\n")},
		"starter/python/lib/util.py": {Data: []byte("x = 1\n")},
		"starter/go/main.go":         {Data: []byte("package main\n")},
	}
	m, err := Find(42, dir)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := listFiles(m.Starter("python")), "README.md=# Starter\n lib/util.py=x = 1\n server.py=print('hi')\n"; got != want {
		t.Errorf("python starter %q, want %q", got, want)
	}
	for name, c := range map[string]struct {
		dir  fstest.MapFS
		lang string
		want string
	}{
		"another language": {dir, "javascript", `lesson 42 (T) has no starter in "javascript" (it has: go, python)`},
		"no starter":       {fstest.MapFS{"lesson.txt": manifest}, "go", "lesson 42 (T) has no starter in any language"},
		"a link": {fstest.MapFS{"lesson.txt": manifest, "starter/go/main.go": {Data: []byte("/etc/passwd"), Mode: fs.ModeSymlink}}, "go",
			"lesson 42's starters: starter/go/main.go is not a plain file (a link or a device): a lesson's folder holds files only"},
		"a big file": {fstest.MapFS{"lesson.txt": manifest, "starter/go/main.go": {Data: make([]byte, folderFile+1)}}, "go",
			"lesson 42's starters: starter/go/main.go is over 1048576 bytes: a lesson's file is a small text"},
		"too many files": {manyFiles(manifest, folderFiles+1), "go",
			"lesson 42's starters: starter holds more than 200 files: a lesson is a few small files"},
	} {
		m, err := Find(42, c.dir)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := m.Starter(c.lang); err == nil || err.Error() != c.want {
			t.Errorf("%s: error %v, want %q", name, err, c.want)
		}
	}
}

// manyFiles is a lesson folder whose Go starter has n files.
func manyFiles(manifest *fstest.MapFile, n int) fstest.MapFS {
	dir := fstest.MapFS{"lesson.txt": manifest}
	for i := range n {
		dir[fmt.Sprintf("starter/go/f%03d.go", i)] = &fstest.MapFile{Data: []byte("package main\n")}
	}
	return dir
}

// TestGradingFiles lists what a student repository's CI grades a folder
// lesson with: every file of the folder but its starters and hidden ones,
// by their paths inside the folder; a built-in lesson has none.
func TestGradingFiles(t *testing.T) {
	dir := fstest.MapFS{
		"lesson.txt":               {Data: []byte("number: 42\ntitle: T\nsubject: server\nserver: reader\n")},
		"grading/a.txtar":          {Data: []byte("a\n")},
		"data/tickets.json":        {Data: []byte("[]\n")},
		"starter/python/server.py": {Data: []byte("print('hi')\n")},
		".git/config":              {Data: []byte("[core]\n")},
		".notes.txt":               {Data: []byte("mine\n")},
	}
	m, err := Find(42, dir)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := listFiles(m.GradingFiles()), "data/tickets.json=[]\n grading/a.txtar=a\n lesson.txt=number: 42\ntitle: T\nsubject: server\nserver: reader\n"; got != want {
		t.Errorf("grading files %q, want %q", got, want)
	}
	if m.BuiltIn() {
		t.Error("a folder on disk is taken for a built-in lesson")
	}
	one, err := Get(1)
	if err != nil {
		t.Fatal(err)
	}
	if files, err := one.GradingFiles(); err != nil || files != nil || !one.BuiltIn() {
		t.Errorf("lesson 1's grading files: %v, %v; want none: the lab holds them", files, err)
	}
}

// listFiles is files as "NAME=DATA NAME=DATA", in their order, or the
// error that came instead.
func listFiles(files []StarterFile, err error) string {
	if err != nil {
		return "error: " + err.Error()
	}
	var out []string
	for _, f := range files {
		out = append(out, f.Name+"="+string(f.Data))
	}
	return strings.Join(out, " ")
}
