package doctest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcplab/mcplab/internal/testkit"
)

// moduleRoot is the repository's top folder: this package is internal/doctest.
func moduleRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("no go.mod at the repository's top folder %s: %v", root, err)
	}
	return root
}

// docFiles lists the documents whose commands are run: the top README, each
// lesson's README and every README under a lesson's starter folder.
func docFiles(t *testing.T, root string) []string {
	t.Helper()
	files := []string{"README.md"}
	lessonDocs, err := filepath.Glob(filepath.Join(root, "lessons", "*", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range lessonDocs {
		rel, _ := filepath.Rel(root, f)
		files = append(files, rel)
		starter := filepath.Join(filepath.Dir(f), "starter")
		filepath.WalkDir(starter, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && d.Name() == "README.md" {
				rel, _ := filepath.Rel(root, p)
				files = append(files, rel)
			}
			return nil
		})
	}
	return files
}

// slowEnv, set to 1, makes TestDocs run the commands marked slow too.
const slowEnv = "MCPLAB_DOCTEST_SLOW"

// TestDocs runs every command that README.md, the lessons' READMEs and the
// starters' READMEs show, in a copy of the repository, with `lab` built
// once and first on PATH (commands marked slow only with
// MCPLAB_DOCTEST_SLOW=1). A document whose command fails, or whose output
// block differs from what its command prints, fails the test at its line.
func TestDocs(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every command the READMEs show (minutes); skipped with -short")
	}
	root := moduleRoot(t)
	work := t.TempDir()
	repo := filepath.Join(work, "repo")
	if err := copyTree(root, repo); err != nil {
		t.Fatalf("copying the repository: %v", err)
	}
	bin, gobin := filepath.Join(work, "bin"), filepath.Join(work, "gobin")
	build := exec.Command(goTool(), "build", "-o", filepath.Join(bin, "lab"), "./cmd/lab")
	build.Dir = repo
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building lab: %v\n%s", err, out)
	}
	env := commandEnv(t, work, bin, gobin)

	for _, name := range docFiles(t, repo) {
		t.Run(strings.ReplaceAll(name, "/", "_"), func(t *testing.T) {
			// The documents at the same time, each one's commands in
			// order: their commands mostly wait (a grade waits for its
			// deadlines), and no document uses what another one makes.
			t.Parallel()
			data, err := os.ReadFile(filepath.Join(repo, name))
			if err != nil {
				t.Fatal(err)
			}
			doc, err := Parse(name, data)
			if err != nil {
				t.Fatal(err)
			}
			for _, b := range doc.Blocks {
				runBlock(t, repo, doc.Path, b, env)
			}
		})
	}
}

// commandEnv is the environment of every command: the test's, with the
// fresh lab and GOBIN first on PATH, and the model step pointed at a closed
// loopback port so it falls back at once, never reaching for the network.
func commandEnv(t *testing.T, work, bin, gobin string) []string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String()
	l.Close()
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "PATH", "GOBIN", "AI_URL", "AI_MODEL", "AI_KEY", "AI_TIMEOUT", "GITHUB_STEP_SUMMARY", "GOFLAGS":
			continue
		}
		env = append(env, kv)
	}
	goDir := filepath.Dir(goTool())
	return append(env,
		"PATH="+gobin+string(os.PathListSeparator)+bin+string(os.PathListSeparator)+goDir+string(os.PathListSeparator)+os.Getenv("PATH"),
		"GOBIN="+gobin,
		"AI_URL="+closed,
		"AI_TIMEOUT=10s",
		"GITHUB_STEP_SUMMARY="+filepath.Join(work, "step-summary.md"),
	)
}

func runBlock(t *testing.T, repo, docPath string, b Block, env []string) {
	t.Helper()
	dir := filepath.Join(repo, filepath.Dir(docPath), b.Dir)
	if rel, err := filepath.Rel(repo, dir); err != nil || strings.HasPrefix(rel, "..") {
		t.Errorf("%s:%d: cd %s leaves the repository", docPath, b.Line, b.Dir)
		return
	}
	if b.Skip != "" {
		t.Logf("%s:%d: block not run: %s", docPath, b.Line, b.Skip)
		return
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Errorf("%s:%d: cd %s: %v", docPath, b.Line, b.Dir, err)
		return
	}
	for _, c := range b.Setup {
		if !runOne(t, dir, docPath, c, env, nil) {
			return
		}
	}
	for _, c := range b.Commands {
		if c.Skip != "" {
			t.Logf("%s:%d: not run: %s (%s)", docPath, c.Line, c.Text, c.Skip)
			continue
		}
		if c.Slow != "" && os.Getenv(slowEnv) != "1" {
			t.Logf("%s:%d: not run without %s=1: %s (%s)", docPath, c.Line, slowEnv, c.Text, c.Slow)
			continue
		}
		runOne(t, dir, docPath, c, env, nil)
	}
	if b.Output != nil {
		var stdout bytes.Buffer
		if runOne(t, dir, docPath, *b.Output, env, &stdout) {
			if err := CompareOutput(b.Text, stdout.String(), b.Interleaved); err != nil {
				t.Errorf("%s:%d: the block is not what `%s` prints:\n%v--- it printed:\n%s", docPath, b.Line, b.Output.Text, err, stdout.String())
			}
		}
	}
}

// runOne runs one command and reports whether it ended as expected. With
// stdout set, the command's stdout goes there and its stderr is shown only
// on failure.
func runOne(t *testing.T, dir, docPath string, c Command, env []string, stdout io.Writer) bool {
	t.Helper()
	limit := 10 * time.Minute
	if d, ok := t.Deadline(); ok {
		limit = min(limit, time.Until(d)-30*time.Second)
	}
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", c.Text)
	cmd.Dir, cmd.Env = dir, env
	// out gathers both streams for the failure message; with stdout set the
	// two streams are written by two goroutines, so out takes a lock.
	out := &testkit.Buffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if stdout != nil {
		cmd.Stdout = io.MultiWriter(stdout, out)
	}
	start := time.Now()
	err := cmd.Run()
	code := 0
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		t.Errorf("%s:%d: %s: %v", docPath, c.Line, c.Text, err)
		return false
	}
	if ctx.Err() != nil {
		t.Errorf("%s:%d: %s: still running after %v; stopped\n%s", docPath, c.Line, c.Text, limit.Round(time.Second), tail(out.String(), 30))
		return false
	}
	if code != c.Exit {
		t.Errorf("%s:%d: %s\nexited with status %d, want %d; its output:\n%s", docPath, c.Line, c.Text, code, c.Exit, tail(out.String(), 60))
		return false
	}
	t.Logf("%s:%d: %s (status %d, %v)", docPath, c.Line, c.Text, code, time.Since(start).Round(time.Millisecond))
	return true
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = append([]string{fmt.Sprintf("... (%d lines before)", len(lines)-n)}, lines[len(lines)-n:]...)
	}
	return strings.Join(lines, "\n")
}

// goTool is the go command running the tests.
func goTool() string { return filepath.Join(runtime.GOROOT(), "bin", "go") }

// copyTree copies the working tree at src to dst, without .git, installed
// node packages or build output; links are copied as links.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			switch d.Name() {
			case ".git", "node_modules", "dist", ".dev":
				if rel != "." {
					return filepath.SkipDir
				}
			}
			return os.MkdirAll(target, 0o755)
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			link, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(link, target)
		case info.Mode().IsRegular():
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			return os.WriteFile(target, data, info.Mode().Perm())
		}
		return nil // sockets, pipes: not part of a working tree
	})
}

// citation is a check rule's reference to a lesson section:
// (lesson 1, "A common mistake") or Lesson 1, "A common mistake".
var citation = regexp.MustCompile(`[Ll]esson (\d+), "([^"]+)"`)

// TestCitedSections checks that every lesson section a check's rule cites
// by name is a heading of that lesson's README, so a student who follows
// the reference finds it.
func TestCitedSections(t *testing.T) {
	root := moduleRoot(t)
	checkFiles, err := filepath.Glob(filepath.Join(root, "lessons", "*", "grading", "checks.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	if len(checkFiles) == 0 {
		t.Fatal("no lessons/*/grading/checks.txtar found")
	}
	headings := map[string]map[string]bool{} // lesson number -> heading set
	lessonDir := func(num string) (string, error) {
		n, _ := strconv.Atoi(num)
		dirs, err := filepath.Glob(filepath.Join(root, "lessons", fmt.Sprintf("%02d-*", n)))
		if err != nil || len(dirs) != 1 {
			return "", fmt.Errorf("no single folder for lesson %s (found %v)", num, dirs)
		}
		return dirs[0], nil
	}
	cited := 0
	for _, f := range checkFiles {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, f)
		for i, line := range strings.Split(string(data), "\n") {
			for _, m := range citation.FindAllStringSubmatch(line, -1) {
				cited++
				num, section := m[1], m[2]
				if headings[num] == nil {
					dir, err := lessonDir(num)
					if err != nil {
						t.Errorf("%s:%d: cites lesson %s: %v", rel, i+1, num, err)
						continue
					}
					headings[num] = readHeadings(t, filepath.Join(dir, "README.md"))
				}
				if !headings[num][section] {
					t.Errorf("%s:%d: cites lesson %s, %q, but that lesson's README has no such heading (it has: %s)",
						rel, i+1, num, section, strings.Join(sortedKeys(headings[num]), "; "))
				}
			}
		}
	}
	if cited == 0 {
		t.Error("no check rule cites a lesson section; the pattern may be stale")
	}
}

// plainHeading is a heading as a citation names it in plain text: without
// its #s and without the backticks of code spans ("Tom's `ready`" is cited
// as "Tom's ready").
func plainHeading(line string) string {
	return strings.ReplaceAll(strings.TrimSpace(strings.TrimLeft(line, "#")), "`", "")
}

// readHeadings returns the Markdown headings of a file in plain text,
// leaving out lines inside fenced code blocks.
func readHeadings(t *testing.T, path string) map[string]bool {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	set := map[string]bool{}
	inFence := ""
	for _, line := range strings.Split(string(data), "\n") {
		if fence, _, ok := openingFence(line); ok && inFence == "" {
			inFence = fence
			continue
		}
		if inFence != "" {
			if isClosingFence(line, inFence) {
				inFence = ""
			}
			continue
		}
		if strings.HasPrefix(line, "#") {
			set[plainHeading(line)] = true
		}
	}
	return set
}

func sortedKeys(m map[string]bool) []string { return slices.Sorted(maps.Keys(m)) }
