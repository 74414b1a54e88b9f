package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
)

// checkout is the build information of a lab built with go build in a
// checkout at commit rev, committed at when.
func checkout(mainVersion, rev, when, modified string) *debug.BuildInfo {
	return &debug.BuildInfo{
		Main: debug.Module{Path: modulePath, Version: mainVersion},
		Settings: []debug.BuildSetting{
			{Key: "-buildmode", Value: "exe"},
			{Key: "vcs", Value: "git"},
			{Key: "vcs.revision", Value: rev},
			{Key: "vcs.time", Value: when},
			{Key: "vcs.modified", Value: modified},
		},
	}
}

const testRev = "9e51dd326eb386a46d19bbd23b20b57761e851c4"

// TestVersionPseudo checks which version each kind of build pins and what
// lab version prints for it.
func TestVersionPseudo(t *testing.T) {
	for _, c := range []struct {
		name      string
		stamp     string
		bi        *debug.BuildInfo
		pin, show string
		why       []string // what the refusal must say, when pin is ""
	}{
		{name: "clean checkout", stamp: "dev",
			bi:  checkout("v0.0.0-20261201110831-9e51dd326eb3", testRev, "2026-12-01T11:08:31Z", "false"),
			pin: "v0.0.0-20261201110831-9e51dd326eb3", show: "v0.0.0-20261201110831-9e51dd326eb3"},
		{name: "the toolchain's pseudo-version has a tag base: the commit is still named from v0.0.0",
			stamp: "dev", bi: checkout("v0.3.1-0.20261201110831-9e51dd326eb3", testRev, "2026-12-01T11:08:31Z", "false"),
			pin: "v0.0.0-20261201110831-9e51dd326eb3", show: "v0.0.0-20261201110831-9e51dd326eb3"},
		{name: "commit time in another zone is written in UTC", stamp: "dev",
			bi:  checkout("(devel)", testRev, "2026-12-01T23:30:05-05:00", "false"),
			pin: "v0.0.0-20261202043005-9e51dd326eb3", show: "v0.0.0-20261202043005-9e51dd326eb3"},
		{name: "SHA-256 commit", stamp: "dev",
			bi:  checkout("(devel)", strings.Repeat("ab", 32), "2027-01-02T03:04:05Z", "false"),
			pin: "v0.0.0-20270102030405-abababababab", show: "v0.0.0-20270102030405-abababababab"},
		{name: "release tag on the commit", stamp: "dev",
			bi:  checkout("v0.3.0", testRev, "2026-12-01T11:08:31Z", "false"),
			pin: "v0.3.0", show: "v0.3.0"},
		{name: "local changes", stamp: "dev",
			bi:   checkout("v0.0.0-20261201110831-9e51dd326eb3+dirty", testRev, "2026-12-01T11:08:31Z", "true"),
			show: "dev (commit 9e51dd326eb3 of 2026-12-01 11:08:31 UTC, with local changes)",
			why:  []string{"built from commit 9e51dd326eb3 (2026-12-01 11:08:31 UTC) with local changes", "Commit and push", "pass --lab-version v0.0.0-20261201110831-9e51dd326eb3"}},
		{name: "go install of a release", stamp: "dev",
			bi:  &debug.BuildInfo{Main: debug.Module{Path: modulePath, Version: "v1.2.3"}},
			pin: "v1.2.3", show: "v1.2.3"},
		{name: "go install of a commit", stamp: "dev",
			bi:  &debug.BuildInfo{Main: debug.Module{Path: modulePath, Version: "v0.0.0-20261201110831-9e51dd326eb3"}},
			pin: "v0.0.0-20261201110831-9e51dd326eb3", show: "v0.0.0-20261201110831-9e51dd326eb3"},
		{name: "go run or go test", stamp: "dev",
			bi:   &debug.BuildInfo{Main: debug.Module{Path: modulePath, Version: "(devel)"}},
			show: "dev", why: []string{"neither a version nor the commit", "go build -o dist/lab ./cmd/lab", "pass --lab-version"}},
		{name: "no build information", stamp: "dev", show: "dev",
			why: []string{"neither a version nor the commit", "pass --lab-version"}},
		{name: "unreadable commit", stamp: "dev",
			bi:   checkout("(devel)", "not-a-hash", "yesterday", "false"),
			show: "dev", why: []string{`commit "not-a-hash" of time "yesterday"`, "pass --lab-version"}},
		{name: "release stamped with -ldflags wins", stamp: "v0.4.0",
			bi:  checkout("(devel)", testRev, "2026-12-01T11:08:31Z", "true"),
			pin: "v0.4.0", show: "v0.4.0"},
		{name: "a stamp that is no version is shown, the commit pinned", stamp: "9e51dd3",
			bi:  checkout("(devel)", testRev, "2026-12-01T11:08:31Z", "false"),
			pin: "v0.0.0-20261201110831-9e51dd326eb3", show: "9e51dd3"},
		{name: "a stamp that is no version, unstamped build", stamp: "container-test",
			show: "container-test", why: []string{"pass --lab-version"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := describeBuild(c.stamp, c.bi)
			if b.Pin != c.pin || b.Shown != c.show {
				t.Errorf("pins %q and shows %q, want %q and %q", b.Pin, b.Shown, c.pin, c.show)
			}
			if b.Pin != "" && !moduleVersion.MatchString(b.Pin) {
				t.Errorf("pins %q, which is no version go install accepts", b.Pin)
			}
			if (b.Pin == "") != (b.Why != "") {
				t.Errorf("pin %q with reason %q: exactly one of them must be set", b.Pin, b.Why)
			}
			for _, w := range c.why {
				if !strings.Contains(b.Why, w) {
					t.Errorf("the reason does not say %q:\n%s", w, b.Why)
				}
			}
		})
	}
}

// TestVersionModuleVersion checks which --lab-version values are taken.
func TestVersionModuleVersion(t *testing.T) {
	for v, want := range map[string]bool{
		"v1.2.3": true, "v0.1.0-rc.1": true, "v0.0.0-20261201110831-9e51dd326eb3": true,
		"v0.3.1-0.20261201110831-9e51dd326eb3": true, "v2.0.0+incompatible": true,
		"v0.0.0-20261201110831-9e51dd326eb3+dirty": false, "1.2.3": false, "v1.2": false,
		"v01.2.3": false, "dev": false, "v1; rm -rf /": false, "v1.2.3 ": false, "": false,
	} {
		if got := moduleVersion.MatchString(v); got != want {
			t.Errorf("moduleVersion(%q) = %v, want %v", v, got, want)
		}
	}
}

// TestVersionUnstamped runs lab assignment and lab version in-process, as
// go test builds them: without a version or a commit. The assignment is
// refused with the reason, and nothing is written.
func TestVersionUnstamped(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "repo")
	code, out, errOut := lab(t, "assignment", "--lesson", "1", "--lang", "python", dir)
	if b := thisBuild(); b.Pin != "" {
		t.Skipf("this test binary names a lab (%s): the unstamped case cannot be seen", b.Pin)
	}
	want := "lab assignment: " + thisBuild().Why + "\nRun \"lab help assignment\" for usage.\n"
	if code != exitCannot || out != "" || errOut != want {
		t.Errorf("lab assignment: exit %d, stdout %q, stderr %q; want exit 2 and stderr %q", code, out, errOut, want)
	}
	if !strings.Contains(errOut, "pass --lab-version") {
		t.Errorf("the refusal does not say how to go on: %q", errOut)
	}
	if _, err := os.Lstat(dir); err == nil {
		t.Errorf("a refused assignment left %s behind", dir)
	}
	code, out, errOut = lab(t, "version")
	if code != 0 || out != "lab dev\n" || errOut != "" {
		t.Errorf("lab version: exit %d, stdout %q, stderr %q; want exit 0 and %q", code, out, errOut, "lab dev\n")
	}
}

// TestVersionFromClone is what a teacher meets: it makes a clone of this
// repository's files as they are now (committed at a known time, so the
// test sees the code under test, not the last commit), builds the lab there
// with go build (VCS stamp on), and runs lab assignment and lab version
// with it. Both name the commit as its Go pseudo-version, which the CI
// files pin; after a local change the lab refuses, naming that same
// pseudo-version.
func TestVersionFromClone(t *testing.T) {
	t.Parallel() // its own clone and builds: work for a core while other tests wait on deadlines
	if testing.Short() {
		t.Skip("-short: copies the repository and builds the lab twice")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	top, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Skipf("not in a git checkout: %v", err)
	}
	tmp := t.TempDir()
	clone := filepath.Join(tmp, "mcplab")
	copyWorkingTree(t, strings.TrimSpace(string(top)), clone)
	cloneGit(t, clone, "init", "--quiet")
	cloneGit(t, clone, "add", "--all")
	cloneGit(t, clone, "commit", "--quiet", "--no-verify", "-m", "the tree under test")
	rev := cloneGit(t, clone, "rev-parse", "HEAD")
	want := "v0.0.0-20261201110831-" + rev[:12]
	bin := filepath.Join(tmp, "lab")
	buildInClone(t, clone, bin)
	checkCleanCloneLab(t, bin, filepath.Join(tmp, "lesson1"), want, rev)

	// A local change: the lab cannot name itself any more.
	if err := os.WriteFile(filepath.Join(clone, "notes.txt"), []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	buildInClone(t, clone, bin)
	checkModifiedCloneLab(t, bin, filepath.Join(tmp, "lesson1-again"), want, rev)
}

// cloneGit runs git in dir, with no configuration of the machine's and the
// author, committer and date fixed, and returns its output trimmed.
func cloneGit(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=lab", "GIT_AUTHOR_EMAIL=lab@example.invalid", "GIT_COMMITTER_NAME=lab",
		"GIT_COMMITTER_EMAIL=lab@example.invalid",
		"GIT_AUTHOR_DATE=2026-12-01T11:08:31Z", "GIT_COMMITTER_DATE=2026-12-01T11:08:31Z")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// copyWorkingTree copies the plain files of the checkout src that git
// tracks or would track (as they are in the working tree, deleted ones
// left out) to clone.
func copyWorkingTree(t *testing.T, src, clone string) {
	t.Helper()
	for _, f := range strings.Split(cloneGit(t, src, "ls-files", "-z", "--cached", "--others", "--exclude-standard"), "\x00") {
		info, err := os.Lstat(filepath.Join(src, f))
		if f == "" || errors.Is(err, os.ErrNotExist) || (err == nil && !info.Mode().IsRegular()) {
			continue // deleted in the working tree, or not a plain file
		}
		data, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(clone, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(clone, f), data, info.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}
}

// buildInClone builds the lab of clone into bin with go build, which
// stamps it with the clone's commit. It builds as a release does, static
// and with -trimpath: then no compiled package depends on the folder the
// clone sits in, and the build cache's packages (.ci/run builds the same
// way first) are the clone's, so the test links the lab instead of
// compiling its 44 packages again (minutes on a loaded machine).
func buildInClone(t *testing.T, clone, bin string) {
	t.Helper()
	cmd := exec.Command("go", "build", "-trimpath", "-buildvcs=true", "-o", bin, "./cmd/lab")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	cmd.Dir = clone
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build in the clone: %v\n%s", err, out)
	}
}

// checkCleanCloneLab checks the lab bin built in a clean clone at commit
// rev: lab version prints the pseudo-version want, and lab assignment
// writes into dir CI files and a README that pin it.
func checkCleanCloneLab(t *testing.T, bin, dir, want, rev string) {
	t.Helper()
	if _, out, _ := runLab(t, bin, "version"); out != "lab "+want+"\n" {
		t.Errorf("lab version printed %q, want %q", out, "lab "+want+"\n")
	}
	code, _, errOut := runLab(t, bin, "assignment", "--lesson", "1", "--lang", "python", dir)
	if code != 0 {
		t.Fatalf("lab assignment from a clean clone: exit %d: %s", code, errOut)
	}
	if !strings.Contains(errOut, "grading with lab "+want+" (commit "+rev[:12]) {
		t.Errorf("lab assignment did not say it pins %s: %q", want, errOut)
	}
	for _, f := range []string{".github/workflows/grade.yml", ".gitlab-ci.yml"} {
		data, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), "LAB_VERSION: "+want+"\n") {
			t.Errorf("%s does not pin LAB_VERSION: %s:\n%s", f, want, data)
		}
	}
	readme, _ := os.ReadFile(filepath.Join(dir, "README.md"))
	if !strings.Contains(string(readme), "go install github.com/mcplab/mcplab/cmd/lab@"+want+"\n") {
		t.Errorf("README.md does not install %s:\n%s", want, readme)
	}
}

// checkModifiedCloneLab checks the lab bin built in the clone at commit rev
// after a local change: lab version says dev, with local changes, and lab
// assignment refuses to write dir, naming --lab-version want, then writes
// it when given that flag.
func checkModifiedCloneLab(t *testing.T, bin, dir, want, rev string) {
	t.Helper()
	if _, out, _ := runLab(t, bin, "version"); !strings.HasPrefix(out, "lab dev (commit "+rev[:12]+" of 2026-12-01 11:08:31 UTC") || !strings.HasSuffix(out, ", with local changes)\n") {
		t.Errorf("lab version of a modified build printed %q", out)
	}
	code, _, errOut := runLab(t, bin, "assignment", "--lesson", "1", "--lang", "python", dir)
	if code != exitCannot || !strings.Contains(errOut, "with local changes") || !strings.Contains(errOut, "pass --lab-version "+want) {
		t.Errorf("lab assignment from a modified clone: exit %d, %q; want exit 2 naming --lab-version %s", code, errOut, want)
	}
	if _, err := os.Lstat(dir); err == nil {
		t.Errorf("a refused assignment left %s behind", dir)
	}
	if code, _, errOut := runLab(t, bin, "assignment", "--lesson", "1", "--lang", "python", "--lab-version", want, dir); code != 0 {
		t.Errorf("lab assignment --lab-version %s: exit %d: %s", want, code, errOut)
	}
}
