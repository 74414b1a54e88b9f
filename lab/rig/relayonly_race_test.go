package rig

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
)

// A program written by writeProgram can be run at once, however many
// other goroutines start programs while it is written: a fork in the
// middle of the write would hand the child the open file, and running
// the program would then fail with "text file busy" (golang/go#22315;
// TestClientClassProcessSandbox saw it once on the relay copy). Each
// copy is /bin/true padded to 8 MiB, so that writing it takes long
// enough for forks to land in the middle.
func TestWriteProgramNeverTextFileBusy(t *testing.T) {
	prog, err := os.ReadFile("/bin/true")
	if err != nil {
		t.Skip("no /bin/true to copy:", err)
	}
	data := append(prog, make([]byte, 8<<20)...)
	dir := t.TempDir()
	const copies, forkers = 24, 4
	stop := make(chan struct{})
	var forks sync.WaitGroup
	for range forkers {
		forks.Add(1)
		go func() {
			defer forks.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				exec.Command("/bin/true").Run()
			}
		}()
	}
	errs := make(chan error, copies)
	var runs sync.WaitGroup
	for i := range copies {
		runs.Add(1)
		go func() {
			defer runs.Done()
			path := filepath.Join(dir, fmt.Sprintf("true-%d", i))
			if err := writeProgram(path, data, 0o755); err != nil {
				errs <- err
				return
			}
			if err := exec.Command(path).Run(); err != nil {
				errs <- fmt.Errorf("running %s just written: %w (text file busy: %v)", path, err, errors.Is(err, syscall.ETXTBSY))
			}
		}()
	}
	runs.Wait()
	close(stop)
	forks.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
