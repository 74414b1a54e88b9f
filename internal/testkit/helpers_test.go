package testkit

import (
	"net"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

func TestOpenDirIsOpenToAll(t *testing.T) {
	dir := OpenDir(t)
	for _, d := range []string{dir, filepath.Dir(dir)} {
		fi, err := os.Stat(d)
		if err != nil || fi.Mode().Perm() != 0o755 {
			t.Errorf("%s: %v, %v; want mode 0755", d, fi.Mode(), err)
		}
	}
}

func TestDeadAddrHasNoListener(t *testing.T) {
	addr := DeadAddr(t, "127.0.0.1")
	if c, err := net.DialTimeout("tcp", addr, 10*time.Second); err == nil {
		c.Close()
		t.Errorf("%s took a connection; want nothing listening there", addr)
	}
}

func TestCountConnectionsCounts(t *testing.T) {
	port, conns := CountConnections(t)
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	for range 3 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		// The listener closes what it accepts: the read ends once it has.
		c.Read(make([]byte, 1))
		c.Close()
	}
	if n := conns.Load(); n != 3 {
		t.Errorf("%d connections counted, want 3", n)
	}
}
