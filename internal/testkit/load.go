package testkit

import (
	"os/exec"
	"testing"
)

// BusyCore keeps one core busy (a shell spinning in a loop) until t ends,
// so that what the test does runs under load.
func BusyCore(t testing.TB) {
	t.Helper()
	cmd := exec.Command("sh", "-c", "while :; do :; done")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
}
