//go:build linux

package sandbox

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// A container is an orphan only when the grader its label names ran on
// this machine and runs no more: a live grader's (this one's, its
// parent's), another machine's and an unlabelled one are kept; a grader
// that has exited, a pid now held by a process started at another time,
// and a grader of an earlier boot are gone.
func TestOrphaned(t *testing.T) {
	mine := graderID()
	if mine == "" {
		t.Fatal("graderID is empty on Linux")
	}
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(mine, "/")
	withPart := func(i int, v string) string {
		p := append([]string(nil), parts...)
		p[i] = v
		return strings.Join(p, "/")
	}
	for id, want := range map[string]bool{
		mine:                        false,
		processID(os.Getppid()):     false,
		"":                          false,
		"not a grader label":        false,
		withPart(0, "another-host"): false,
		withPart(1, "another-boot"): true,
		withPart(2, strconv.Itoa(cmd.Process.Pid)): true,
		withPart(3, "1"): true,
	} {
		if got := orphaned(id, mine); got != want {
			t.Errorf("orphaned(%q) = %v, want %v", id, got, want)
		}
	}
}
