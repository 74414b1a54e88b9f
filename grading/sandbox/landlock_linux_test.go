//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// landlockProbe is the environment variable that makes the test binary,
// run again by TestFileRules, apply the rules it names and try each reach.
const landlockProbe = "MCPLAB_LANDLOCK_PROBE"

// TestFileRules holds a process to a private folder, inside a folder it may
// write, and a writable workspace: it reads and runs what is elsewhere,
// writes its workspace, /dev/null and /dev/shm, lists the folders on the
// way to the private one, and can neither read, change nor add to the
// private folder, nor write the rest of the machine, a link included.
func TestFileRules(t *testing.T) {
	if landlockABI() <= 0 {
		t.Skip(errNoLandlock)
	}
	base := t.TempDir()
	private := filepath.Join(base, "results")
	work := filepath.Join(base, "work")
	other := filepath.Join(base, "other")
	for _, d := range []string{private, work, other} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(private, "record.json"), []byte("kept"), 0o644))
	must(os.WriteFile(filepath.Join(other, "notes.txt"), []byte("readable"), 0o644))
	must(os.Symlink(private, filepath.Join(other, "way-in")))
	cmd := exec.Command(os.Args[0], "-test.run=^TestFileRulesProbe$")
	cmd.Env = append(os.Environ(), landlockProbe+"="+strings.Join([]string{private, work, other, base}, "\n"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the probe failed: %v\n%s", err, out)
	}
	want := strings.Join([]string{
		"read other/notes.txt: ok",
		"read results/record.json: denied",
		"read other/way-in/record.json: denied",
		"write results/record.json: denied",
		"create results/forged.json: denied",
		"remove results/record.json: denied",
		"create work/server: ok",
		"create other/x: denied",
		"create base/x: denied",
		"write /dev/null: ok",
		"list base: ok",
		"run /bin/true: ok",
	}, "\n") + "\n"
	if got := probeLines(string(out)); got != want {
		t.Errorf("the probe reached:\n%s\nwant:\n%s", got, want)
	}
	if data, err := os.ReadFile(filepath.Join(private, "record.json")); err != nil || string(data) != "kept" {
		t.Errorf("the private record is %q (%v) after the probe", data, err)
	}
}

// probeLines keeps the probe's own lines of out.
func probeLines(out string) string {
	var b strings.Builder
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, ": ok") || strings.Contains(l, ": denied") || strings.Contains(l, ": error") {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

// TestFileRulesProbe is TestFileRules' process under the rules; it does
// nothing unless run by it.
func TestFileRulesProbe(t *testing.T) {
	spec := os.Getenv(landlockProbe)
	if spec == "" {
		t.Skip("run by TestFileRules")
	}
	parts := strings.Split(spec, "\n")
	private, work, other, base := parts[0], parts[1], parts[2], parts[3]
	if err := (fileRules{Writable: []string{work, "/dev/shm"}, Private: []string{private}}).apply(); err != nil {
		t.Fatal(err)
	}
	say := func(what string, err error) {
		switch {
		case err == nil:
			fmt.Printf("%s: ok\n", what)
		case errors.Is(err, os.ErrPermission):
			fmt.Printf("%s: denied\n", what)
		default:
			fmt.Printf("%s: error %v\n", what, err)
		}
	}
	read := func(p string) error { _, err := os.ReadFile(p); return err }
	create := func(p string) error { return os.WriteFile(p, []byte("x"), 0o644) }
	say("read other/notes.txt", read(filepath.Join(other, "notes.txt")))
	say("read results/record.json", read(filepath.Join(private, "record.json")))
	say("read other/way-in/record.json", read(filepath.Join(other, "way-in", "record.json")))
	say("write results/record.json", os.WriteFile(filepath.Join(private, "record.json"), []byte("999"), 0o644))
	say("create results/forged.json", create(filepath.Join(private, "forged.json")))
	say("remove results/record.json", os.Remove(filepath.Join(private, "record.json")))
	say("create work/server", create(filepath.Join(work, "server")))
	say("create other/x", create(filepath.Join(other, "x")))
	say("create base/x", create(filepath.Join(base, "x")))
	say("write /dev/null", os.WriteFile("/dev/null", []byte("x"), 0o644))
	_, err := os.ReadDir(base)
	say("list base", err)
	say("run /bin/true", exec.Command("/bin/true").Run())
}
