//go:build unix

package testkit

import (
	"os"
	"path/filepath"
	"testing"
)

func TestMkfifoMakesANamedPipe(t *testing.T) {
	p := filepath.Join(t.TempDir(), "p")
	Mkfifo(t, p, 0o600)
	fi, err := os.Lstat(p)
	if err != nil || fi.Mode()&os.ModeNamedPipe == 0 || fi.Mode().Perm() != 0o600 {
		t.Errorf("%s: %v, %v; want a named pipe of mode 0600", p, fi.Mode(), err)
	}
}
