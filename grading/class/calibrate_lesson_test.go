package class

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mcplab/mcplab/internal/kinds"
)

// TestReferenceGetsACopyOfTheLessonFolder: calibration runs the reference
// of a lesson read from a folder with a copy of the folder's grading files
// inside its own folder, which every sandbox shows it (the teacher's folder
// may be out of a container's sight, or unreadable to the sandbox's user);
// a built-in lesson's reference runs as the class was told.
func TestReferenceGetsACopyOfTheLessonFolder(t *testing.T) {
	src := filepath.Join("..", "..", "cmd", "lab", "testdata", "lessons", "97-helpdesk-by-data")
	folder, err := kinds.LoadLesson(97, os.DirFS(src))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	given := Options{Reference: []string{"/teacher/lab", "serve", "--lesson-dir", "/teacher/desk", "helpdesk"}}
	args, err := referenceArgs(folder, given, dir, filepath.Join(dir, "lab"))
	if err != nil {
		t.Fatal(err)
	}
	copyDir := filepath.Join(dir, "lesson")
	if want := []string{"serve", "--lesson-dir", copyDir, "helpdesk"}; !slices.Equal(args, want) {
		t.Errorf("args %q, want %q", args, want)
	}
	for _, name := range []string{"lesson.txt", "data/tickets.json", "grading/checks.txtar"} {
		want, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join(copyDir, name))
		if err != nil || string(got) != string(want) {
			t.Errorf("%s in the copy: %v, %d bytes, want the folder's %d", name, err, len(got), len(want))
		}
	}

	builtIn, err := kinds.LoadLesson(2, nil)
	if err != nil {
		t.Fatal(err)
	}
	given = Options{Reference: []string{"/teacher/lab", "serve", "helpdesk"}}
	if args, err := referenceArgs(builtIn, given, t.TempDir(), "lab"); err != nil || !slices.Equal(args, given.Reference[1:]) {
		t.Errorf("a built-in lesson: args %q (%v), want %q", args, err, given.Reference[1:])
	}
}
