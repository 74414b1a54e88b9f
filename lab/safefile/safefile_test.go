package safefile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckFoldersWalksUpFromTheRealFolder(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "a", "b")
	if err := os.MkdirAll(real, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	var seen []string
	if err := CheckFolders(link, func(p string, info fs.FileInfo) error {
		if !info.IsDir() {
			t.Errorf("%s is given as %v, want a folder", p, info.Mode())
		}
		seen = append(seen, p)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	realDir, _ := filepath.EvalSymlinks(real)
	if len(seen) < 3 || seen[0] != realDir || seen[1] != filepath.Dir(realDir) || seen[len(seen)-1] != filepath.Dir(seen[len(seen)-1]) {
		t.Errorf("walked %v, want %s, its parents, up to the root", seen, realDir)
	}

	stop := errors.New("not this one")
	n := 0
	err := CheckFolders(real, func(p string, _ fs.FileInfo) error {
		n++
		if n == 2 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || n != 2 {
		t.Errorf("CheckFolders = %v after %d folders, want the check's error after 2", err, n)
	}
}

func TestWriteRenamed(t *testing.T) {
	dir := t.TempDir()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	if err := os.WriteFile(filepath.Join(dir, "out"), []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}

	refused := errors.New("refused")
	if err := WriteRenamed(root, ".tmp-1", "out", []byte("new"), func() error { return refused }); !errors.Is(err, refused) {
		t.Fatalf("WriteRenamed with a refusing check = %v, want its error", err)
	}
	assertFiles(t, dir, map[string]string{"out": "old"})

	if err := WriteRenamed(root, ".tmp-2", "out", []byte("new"), nil); err != nil {
		t.Fatal(err)
	}
	assertFiles(t, dir, map[string]string{"out": "new"})

	// A link planted at the temporary name is not written through.
	target := filepath.Join(t.TempDir(), "target")
	if err := os.Symlink(target, filepath.Join(dir, ".tmp-3")); err != nil {
		t.Fatal(err)
	}
	if err := WriteRenamed(root, ".tmp-3", "out", []byte("evil"), nil); err == nil {
		t.Fatal("WriteRenamed wrote through a link planted at its temporary name")
	}
	if _, err := os.Lstat(target); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the link's target exists: %v", err)
	}
}

func TestCreateNew(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "config.json")
	prepared := false
	if err := CreateNew(path, "the configuration", []byte("{}"), 0o600, func(f *os.File) error {
		prepared = true
		return nil
	}); err != nil || !prepared {
		t.Fatalf("CreateNew = %v (prepared %v)", err, prepared)
	}
	if info, err := os.Stat(path); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("the new file: %v, %v; want mode 0600", info, err)
	}
	assertFiles(t, dir, map[string]string{"config.json": "{}"})

	err := CreateNew(path, "the configuration", []byte("again"), 0o600, nil)
	if err == nil || !strings.HasPrefix(err.Error(), "writing the configuration: ") || !errors.Is(err, fs.ErrExist) {
		t.Errorf("CreateNew over a file = %v, want \"writing the configuration: ...\" and fs.ErrExist", err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(filepath.Join(dir, "elsewhere"), link); err != nil {
		t.Fatal(err)
	}
	if err := CreateNew(link, "the relay copy", nil, 0o700, nil); err == nil {
		t.Error("CreateNew wrote through a link")
	}
	boom := errors.New("giving it away failed")
	if err := CreateNew(filepath.Join(dir, "other"), "x", nil, 0o600, func(*os.File) error { return boom }); err != boom {
		t.Errorf("CreateNew with a failing prepare = %v, want its error as it is", err)
	}
}

// assertFiles holds dir to exactly the regular files of want, by content.
func assertFiles(t *testing.T, dir string, want map[string]string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, e := range entries {
		if e.Type().IsRegular() {
			b, _ := os.ReadFile(filepath.Join(dir, e.Name()))
			got[e.Name()] = string(b)
		}
	}
	if len(got) != len(want) {
		t.Errorf("files %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s holds %q, want %q (files %v)", k, got[k], v, got)
		}
	}
}
