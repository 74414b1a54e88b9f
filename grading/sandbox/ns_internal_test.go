//go:build linux

package sandbox

import (
	"slices"
	"testing"
)

// The private /tmp binds back exactly the kept paths under /tmp: never /tmp
// itself (however it is written), never a path outside it, nothing relative,
// and a path inside another kept one only through that one.
func TestKeptUnderTmp(t *testing.T) {
	keep := []string{"/tmp", "/tmp/", "/tmp/.", "/tmp/..", "/", "/usr/local/go", "tmp/rel",
		"/tmp/class/subs/a", "/tmp/class/subs/a/work", "/tmp/lab-rig-1", "/tmp/class/servers", "/tmp/x/../y"}
	got := keptUnderTmp(keep)
	want := []string{"class/servers", "class/subs/a", "lab-rig-1", "y"}
	if !slices.Equal(got, want) {
		t.Errorf("keptUnderTmp(%q) = %q, want %q", keep, got, want)
	}
}
