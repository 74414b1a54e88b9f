package rig

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"syscall"

	"github.com/mcplab/mcplab/lab/safefile"
)

// relayMark is a mark in the lab's data: its last byte is '0' in the lab
// as built, and '1' in a copy made by CopyRelayOnly. The bytes are spelt
// out so that they live in the binary's data once, and nowhere else.
var relayMark = [...]byte{
	'm', 'c', 'p', 'l', 'a', 'b', ' ', 'r', 'e', 'l', 'a', 'y', '-', 'o', 'n', 'l', 'y',
	' ', 'm', 'a', 'r', 'k', ' ', 'v', '1', ':', '0',
}

// RelayOnly reports whether this program is a copy made by CopyRelayOnly:
// such a copy must run `relay` and nothing else.
func RelayOnly() bool { return readMark() == '1' }

//go:noinline
func readMark() byte { return relayMark[len(relayMark)-1] }

// RelayOnlyRefusal is what a relay-only copy says to any command but
// relay.
const RelayOnlyRefusal = "this copy of the lab is the relay that joins a client under test to the servers the grader plays for it; it runs only \"relay\" (the grader starts it). A client has to be your own program: start it from your run script, not through this copy"

// maxProgram bounds the size of a program CopyRelayOnly copies.
const maxProgram = 512 << 20

// CopyRelayOnly copies the lab binary from to a new file to (which must
// not exist) with mode perm, marked so that the copy runs only `relay`
// (see RelayOnly). Give it perm 0o111, owned by root, and a sandboxed
// client can run the copy but neither read nor change it.
func CopyRelayOnly(from, to string, perm os.FileMode) error {
	src, err := os.Open(from)
	if err != nil {
		return fmt.Errorf("reading the lab binary: %w", err)
	}
	defer src.Close()
	data, over, err := safefile.ReadAtMost(src, maxProgram)
	if err != nil {
		return fmt.Errorf("reading the lab binary %s: %w", from, err)
	}
	if over {
		return fmt.Errorf("the lab binary %s is larger than %d MiB", from, maxProgram>>20)
	}
	mark := append([]byte(nil), relayMark[:]...)
	if mark[len(mark)-1] != '0' {
		return errors.New("this lab is itself a relay-only copy: it cannot make another")
	}
	n := bytes.Count(data, mark)
	if n != 1 {
		return fmt.Errorf("the lab binary %s holds its relay-only mark %d times, want once: is it a lab binary?", from, n)
	}
	data[bytes.Index(data, mark)+len(mark)-1] = '1'
	return writeProgram(to, data, perm)
}

// writeProgram writes data to a new file to and gives it perm, holding
// syscall.ForkLock for reading all the while the file is open for
// writing. A program cannot be run while any process holds it open for
// writing (ETXTBSY, "text file busy"), and a process this one forks keeps
// a copy of every descriptor open at the fork until it runs its own
// program (golang/go#22315): a sandbox launched for another job at that
// moment would keep the copy busy. Every fork of os/exec holds ForkLock
// for writing, so none happens while the file is open, and once it is
// closed no process holds it.
func writeProgram(to string, data []byte, perm os.FileMode) error {
	syscall.ForkLock.RLock()
	defer syscall.ForkLock.RUnlock()
	if err := safefile.CreateNew(to, "the relay copy", data, 0o700, nil); err != nil {
		return err
	}
	if err := os.Chmod(to, perm); err != nil {
		return fmt.Errorf("writing the relay copy %s: %w", to, err)
	}
	return nil
}
