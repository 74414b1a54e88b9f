package play

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// TestSourceScenario: a file named wins over the lesson's scenario, each
// is named by its file without .txtar, and a lesson with neither is a
// usage error that names the flag to use.
func TestSourceScenario(t *testing.T) {
	read := func(name string) ([]byte, error) {
		if name == "demo/scenario.txtar" {
			return []byte("lesson's"), nil
		}
		return nil, fs.ErrNotExist
	}
	file := filepath.Join(t.TempDir(), "mine.txtar")
	if err := os.WriteFile(file, []byte("mine"), 0o600); err != nil {
		t.Fatal(err)
	}
	src := Source{Lesson: 7, Run: "demo/scenario.txtar", Read: read}
	for _, c := range []struct {
		src        Source
		file       string
		name, data string
	}{
		{src, "", "scenario", "lesson's"},
		{src, file, "mine", "mine"},
		{Source{Lesson: 7, Read: read}, file, "mine", "mine"},
	} {
		name, data, err := c.src.Scenario(c.file)
		if err != nil || name != c.name || string(data) != c.data {
			t.Errorf("Scenario(%q) = %q, %q, %v; want %q, %q", c.file, name, data, err, c.name, c.data)
		}
	}
	_, _, err := Source{Lesson: 7, Read: read}.Scenario("")
	var ue UsageError
	if !errors.As(err, &ue) || ue.Msg != "lesson 7 has no scenario for lab run; name one with -scenario" {
		t.Errorf("no scenario at all gives %v, want the usage error", err)
	}
	if _, _, err := src.Scenario(filepath.Join(t.TempDir(), "none.txtar")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing file gives %v, want fs.ErrNotExist", err)
	}
}

// TestInternal: Internal marks an error through any wrapping, keeps its
// text, and marks no nil error.
func TestInternal(t *testing.T) {
	base := errors.New("finding the lab binary: gone")
	err := fmt.Errorf("lab run: %w", Internal(base))
	if !IsInternal(err) || !errors.Is(err, base) || err.Error() != "lab run: finding the lab binary: gone" {
		t.Errorf("Internal(%v) wrapped = %v (internal %v)", base, err, IsInternal(err))
	}
	if IsInternal(base) || Internal(nil) != nil {
		t.Error("an unmarked error is internal, or Internal(nil) is not nil")
	}
}
