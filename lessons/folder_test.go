package lessons

import (
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"
)

// TestFindFolder reads a lesson folder that is not built in, as lab run and
// lab grade-class --lesson-dir do: its own manifest, its files through Read
// and Folder, and a clear error when --lesson names another number.
func TestFindFolder(t *testing.T) {
	dir := fstest.MapFS{
		"lesson.txt":      {Data: []byte("number: 42\ntitle: T\nsubject: server\nserver: reader\nrun: play.txtar\n")},
		"play.txtar":      {Data: []byte("the scenario\n")},
		"grading/a.txtar": {Data: []byte("a\n")},
	}
	m, err := Find(42, dir)
	if err != nil {
		t.Fatal(err)
	}
	if b, err := m.Read(m.Run); err != nil || string(b) != "the scenario\n" {
		t.Errorf("Read(%q) = %q, %v; want the folder's file", m.Run, b, err)
	}
	folder, err := m.Folder()
	if err != nil {
		t.Fatal(err)
	}
	if b, err := fs.ReadFile(folder, "grading/a.txtar"); err != nil || string(b) != "a\n" {
		t.Errorf("Folder: grading/a.txtar = %q, %v", b, err)
	}
	if _, err := Find(7, dir); err == nil || !strings.Contains(err.Error(), "is lesson 42, not lesson 7") || !strings.Contains(err.Error(), "--lesson 42") {
		t.Errorf("Find(7) of lesson 42's folder: %v, want an error naming both numbers", err)
	}
	// A folder without a manifest holds scenarios for a built-in lesson.
	if m, err := Find(1, fstest.MapFS{"grading/a.txtar": {}}); err != nil || m.Dir != "01-reading-messages" {
		t.Errorf("Find(1) of a folder without a manifest: %+v, %v; want lesson 1's built-in manifest", m, err)
	}
	one, err := Find(1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := one.Read(one.Run); err != nil {
		t.Errorf("a built-in lesson's Read: %v", err)
	}
}
