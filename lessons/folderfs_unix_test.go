//go:build unix

package lessons_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/mcplab/mcplab/lessons"
)

// A lesson folder's links out of it, FIFOs and devices are refused by
// name, at once: none is read, none is waited on.
func TestFolderRefusesWhatIsNotItsOwnPlainFile(t *testing.T) {
	dir := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(dir, "checks.txt"), []byte("fine\n"), 0o644))
	must(os.Symlink("/dev/zero", filepath.Join(dir, "lesson.txt")))
	must(os.Symlink("/etc/passwd", filepath.Join(dir, "scenario")))
	must(os.Symlink("checks.txt", filepath.Join(dir, "inside")))
	must(syscall.Mkfifo(filepath.Join(dir, "run"), 0o644))
	must(os.WriteFile(filepath.Join(dir, "big"), make([]byte, lessons.MaxFolderFile+1), 0o644))
	fsys, err := lessons.Folder(dir)
	if err != nil {
		t.Fatal(err)
	}
	if data, err := fs.ReadFile(fsys, "inside"); err != nil || string(data) != "fine\n" {
		t.Errorf("a link within the folder: %q, %v", data, err)
	}
	for name, want := range map[string]string{
		"lesson.txt": "leads out of the lesson folder " + dir + " (to /dev/zero)",
		"scenario":   "(to /etc/passwd)",
		"run":        "named pipe (FIFO), not a plain file",
		"big":        "over 8 MiB",
	} {
		data, err := fs.ReadFile(fsys, name)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: read %d bytes, error %v; want an error saying %q", name, len(data), err, want)
		}
	}
	if _, err := lessons.ReadManifest(fsys, "."); err == nil || !strings.Contains(err.Error(), "open lesson.txt: it is a link that leads out") {
		t.Errorf("ReadManifest through a link to /dev/zero: %v, want a refusal naming lesson.txt", err)
	}
}
