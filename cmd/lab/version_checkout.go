package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"
)

// gitDeadline bounds each git command the lab asks about its own checkout.
const gitDeadline = 5 * time.Second

// goRunBinary reports whether exe is a binary `go run` built: the toolchain
// links it as $TMPDIR/go-buildNNN/b001/exe/NAME and records no commit in it,
// whatever -buildvcs says. `go test` binaries end in ".test" and are not.
func goRunBinary(exe string) bool {
	dir := filepath.Dir(exe)
	if filepath.Base(dir) != "exe" {
		return false
	}
	name := strings.TrimSuffix(filepath.Base(exe), ".exe")
	if strings.HasSuffix(name, ".test") {
		return false
	}
	return strings.HasPrefix(filepath.Base(filepath.Dir(filepath.Dir(dir))), "go-build")
}

// runGit runs git in dir and returns its standard output, bounded in time
// and size; a failure carries git's standard error.
type runGit func(ctx context.Context, dir string, args ...string) (string, error)

// execGit is runGit with the git on PATH.
func execGit(ctx context.Context, dir string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, gitDeadline)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
	var out, errOut strings.Builder
	cmd.Stdout = &limitedBuilder{b: &out, left: 1 << 20}
	cmd.Stderr = &limitedBuilder{b: &errOut, left: 4 << 10}
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(errOut.String()))
	}
	return out.String(), nil
}

// limitedBuilder keeps at most left bytes and drops the rest.
type limitedBuilder struct {
	b    *strings.Builder
	left int
}

func (l *limitedBuilder) Write(p []byte) (int, error) {
	n := len(p)
	if len(p) > l.left {
		p = p[:l.left]
	}
	l.b.Write(p)
	l.left -= len(p)
	return n, nil
}

// moduleRoot walks up from dir to the folder whose go.mod declares module
// path, and returns "" when there is none.
func moduleRoot(dir, path string) string {
	for d := dir; ; d = filepath.Dir(d) {
		if modulePathOf(filepath.Join(d, "go.mod")) == path {
			return d
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}

// modulePathOf returns the module path a go.mod declares, reading at most
// its first 64 KiB; "" when the file is missing or declares none.
func modulePathOf(goMod string) string {
	f, err := os.Open(goMod)
	if err != nil {
		return ""
	}
	defer f.Close()
	s := bufio.NewScanner(io.LimitReader(f, 64<<10))
	for s.Scan() {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(s.Text()), "module "); ok {
			return strings.Trim(strings.TrimSpace(rest), `"`)
		}
	}
	return ""
}

// checkoutBuildInfo makes, for a lab `go run` built in a clone of the lab's
// module, the build information the toolchain would have stamped into a
// `go build` there: the checkout's HEAD commit, its commit time, whether
// the tree has changes (untracked files count), and a release tag that
// names HEAD itself. go run builds from the module of its working folder,
// so that checkout is the source of the running lab.
func checkoutBuildInfo(ctx context.Context, git runGit, cwd string) (*debug.BuildInfo, error) {
	root := moduleRoot(cwd, modulePath)
	if root == "" {
		return nil, fmt.Errorf("no folder from %s up holds the go.mod of %s", cwd, modulePath)
	}
	head, err := git(ctx, root, "log", "-1", "--format=%H %cI")
	if err != nil {
		return nil, err
	}
	rev, when, ok := strings.Cut(strings.TrimSpace(head), " ")
	if !ok {
		return nil, fmt.Errorf("git log printed %q, not a commit and its time", head)
	}
	t, err := time.Parse(time.RFC3339, when)
	if err != nil {
		return nil, fmt.Errorf("git log's commit time: %w", err)
	}
	status, err := git(ctx, root, "status", "--porcelain", "--untracked-files=normal")
	if err != nil {
		return nil, err
	}
	version := "(devel)"
	if tags, err := git(ctx, root, "tag", "--points-at", "HEAD", "--list", "v*"); err == nil {
		for _, tag := range strings.Fields(tags) {
			if moduleVersion.MatchString(tag) && !pseudoVersion.MatchString(tag) {
				version = tag
				break
			}
		}
	}
	return &debug.BuildInfo{
		Main: debug.Module{Path: modulePath, Version: version},
		Settings: []debug.BuildSetting{
			{Key: "vcs", Value: "git"},
			{Key: "vcs.revision", Value: rev},
			{Key: "vcs.time", Value: t.UTC().Format(time.RFC3339)},
			{Key: "vcs.modified", Value: fmt.Sprint(strings.TrimSpace(status) != "")},
		},
	}, nil
}

// goRunBuild describes a lab `go run` built, from the checkout it was built
// in. It keeps b when the checkout cannot be read, and says why.
func goRunBuild(ctx context.Context, git runGit, cwd string, b labBuild) labBuild {
	bi, err := checkoutBuildInfo(ctx, git, cwd)
	if err != nil {
		b.Why = fmt.Sprintf("this lab was built by go run, which records no commit, and the clone it ran in could not be read (%v), "+
			"so the CI files could not name the lab to install. Build the lab in your clone of %s with "+
			"`go build -o dist/lab ./cmd/lab` and run dist/lab, or pass --lab-version with a release such as v1.2.3", err, modulePath)
		return b
	}
	return describeBuildInfo(bi)
}
