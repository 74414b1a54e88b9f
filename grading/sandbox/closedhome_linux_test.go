//go:build linux

package sandbox_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// A class in a folder the sandbox's users may not enter (root's 0700 home)
// grades as anywhere else: the program reaches its submission, and nothing
// else of the closed folder, which it still may not list.
func TestProcessReachesASubmissionInAClosedHome(t *testing.T) {
	needRoot(t)
	t.Parallel()
	sb := processSandbox(t)
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	// Not under /tmp or /var/tmp, which the namespaces replace: beside the
	// test, where a teacher's checkout would sit.
	home, err := os.MkdirTemp(wd, "closed-home-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(home) })
	if err := os.Chmod(home, 0o700); err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(home, "secret")
	if err := os.WriteFile(secret, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(home, "class", "alice")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(home, "class"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sub, "mine"), []byte("alice's file\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	spec := shSpec(t, sb, 36, fmt.Sprintf(`
cat ./mine
test -e %q && echo "secret seen" || echo "no secret"
ls -A %q >/dev/null 2>&1 && echo "home listed" || echo "home not listed"`, secret, home))
	spec.Dir = sub
	r := run(t, sb.Starter(spec), "")
	if !sb.Namespaces() {
		t.Skipf("no namespaces here, so no way into a closed folder: stdout %q, stderr %q", r.stdout, r.stderr)
	}
	want := "alice's file\nno secret\nhome not listed\n"
	if r.stdout != want {
		t.Errorf("stdout = %q, want %q (stderr %q)", r.stdout, want, r.stderr)
	}
}

// A submission under /var/tmp is bound back into the job's private
// /var/tmp, as one under /tmp is into its /tmp.
func TestProcessKeepsASubmissionUnderVarTmp(t *testing.T) {
	needRoot(t)
	t.Parallel()
	sb := processSandbox(t)
	base, err := os.MkdirTemp("/var/tmp", "mcplab-class-")
	if err != nil {
		t.Skipf("no /var/tmp to make a class in: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(base, "alice")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sub, "mine"), []byte("alice's file\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	spec := shSpec(t, sb, 37, "cat ./mine")
	spec.Dir = sub
	r := run(t, sb.Starter(spec), "")
	if !sb.Namespaces() {
		t.Skipf("no namespaces here: stdout %q, stderr %q", r.stdout, r.stderr)
	}
	if r.stdout != "alice's file\n" {
		t.Errorf("stdout = %q, want alice's file (stderr %q)", r.stdout, r.stderr)
	}
}
