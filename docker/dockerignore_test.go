package docker_test

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/moby/patternmatcher"
	"github.com/moby/patternmatcher/ignorefile"
)

// TestDockerignore checks, without an engine, that .dockerignore sends what
// the Dockerfile's stages read (dist/lab, the docker/ files the Dockerfile
// copies, go.mod, go.sum and every file of every Go package, such as the
// lesson data the binary embeds) and leaves out the rest.
func TestDockerignore(t *testing.T) {
	root := repoRoot(t)
	f, err := os.Open(filepath.Join(root, ".dockerignore"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	patterns, err := ignorefile.ReadAll(f)
	if err != nil {
		t.Fatalf("read .dockerignore: %v", err)
	}
	pm, err := patternmatcher.New(patterns)
	if err != nil {
		t.Fatalf(".dockerignore: %v", err)
	}
	excluded := func(name string) bool {
		t.Helper()
		ex, err := pm.MatchesOrParentMatches(name)
		if err != nil {
			t.Fatalf(".dockerignore on %s: %v", name, err)
		}
		return ex
	}

	// (docker/Dockerfile itself needs no exception: the client always sends
	// the Dockerfile, whatever .dockerignore says.)
	for _, name := range []string{"dist/lab", "go.mod", "go.sum", "docker/passwd", "docker/group", "docker/workbench-entry.sh", "docker/empty"} {
		if excluded(name) {
			t.Errorf(".dockerignore leaves out %s, which the image build copies", name)
		}
	}
	for _, name := range []string{".git/HEAD", ".dev/HELPERS.md", "README.md", "dist/lab.tar", "docker/empty/README",
		"docker/engine.sh", "docker/main_test.go", "lab/wire/framer_test.go", "lab/wire/testdata/x"} {
		if !excluded(name) {
			t.Errorf(".dockerignore sends %s, which no Dockerfile stage needs", name)
		}
	}

	// Every file of a Go package (its sources and what they may embed) must
	// reach the runtime-from-source stage.
	pkgDirs := map[string]bool{}
	var files []string
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		top, _, _ := strings.Cut(rel, "/")
		if d.IsDir() {
			if top == ".git" || top == "dist" || top == "docker" || d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		if strings.HasSuffix(rel, ".go") {
			pkgDirs[path.Dir(rel)] = true
		}
		files = append(files, rel)
		return nil
	})
	if err != nil {
		t.Fatalf("walk %s: %v", root, err)
	}
	var sent int
	for _, name := range files {
		if !inPackage(name, pkgDirs) {
			continue
		}
		sent++
		if excluded(name) {
			t.Errorf(".dockerignore leaves out %s, part of a Go package the from-source build compiles", name)
		}
	}
	if sent == 0 {
		t.Errorf("found no Go package files under %s", root)
	}
}

// inPackage reports whether name lies in, or below, a directory holding Go
// sources (other than the module root).
func inPackage(name string, pkgDirs map[string]bool) bool {
	for dir := path.Dir(name); dir != "."; dir = path.Dir(dir) {
		if pkgDirs[dir] {
			return true
		}
	}
	return false
}
