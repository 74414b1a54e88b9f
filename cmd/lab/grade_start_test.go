package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A program that never starts a server is could-not-grade: exit 2, and the
// report says why in the program's own words or names what is missing.
func TestGradeUngradableStartExit2(t *testing.T) {
	dir := t.TempDir()
	shebang := filepath.Join(dir, "run")
	if err := os.WriteFile(shebang, []byte("#!/nonexistent/python9\nprint('hi')\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		command []string
		want    []string
	}{
		"typo":        {[]string{"python3", filepath.Join(dir, "typo.py")}, []string{"not graded. Outcome: could-not-start", "before it showed it was ready", "can't open file"}},
		"exit 127":    {[]string{"sh", "-c", "echo 'cannot find my interpreter' >&2; exit 127"}, []string{"exited with status 127", "cannot find my interpreter"}},
		"bad shebang": {[]string{shebang}, []string{"its first line asks for the interpreter /nonexistent/python9, and there is no such program"}},
	} {
		code, out, stderr := lab(t, append([]string{"grade", "--"}, tc.command...)...)
		if code != 2 {
			t.Errorf("%s: exit %d, want 2 (%s)", name, code, stderr)
		}
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: the report does not say %q:\n%s", name, w, out)
			}
		}
		if strings.Contains(out, "PASS ") || strings.Contains(out, "FAIL ") {
			t.Errorf("%s: a check passed or failed:\n%s", name, out)
		}
	}
}
