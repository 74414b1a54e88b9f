package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// writeClass writes the submissions folder subs: a folder for each student
// of runs, holding its executable run script (none when the script is "")
// and the files of also, the same in every folder. It returns subs.
func writeClass(t *testing.T, subs string, runs map[string]string, also map[string][]byte) string {
	t.Helper()
	for name, run := range runs {
		if err := os.MkdirAll(filepath.Join(subs, name), 0o755); err != nil {
			t.Fatal(err)
		}
		if run != "" {
			if err := os.WriteFile(filepath.Join(subs, name, "run"), []byte(run), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		for f, data := range also {
			if err := os.WriteFile(filepath.Join(subs, name, f), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	return subs
}

// classProc is a lab grade-class process whose stderr the test reads line
// by line, keeping every line read in log.
type classProc struct {
	cmd *exec.Cmd
	sc  *bufio.Scanner
	log strings.Builder
}

// startClassProc starts the lab bin with args, its stderr to be read.
func startClassProc(t *testing.T, bin string, args ...string) *classProc {
	t.Helper()
	p := &classProc{cmd: exec.Command(bin, args...)}
	stderr, err := p.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p.sc = bufio.NewScanner(stderr)
	return p
}

// readUntil reads lines of stderr until one for which stop reports true
// (that line read too). It reports whether it found one before stderr
// ended.
func (p *classProc) readUntil(stop func(line string) bool) bool {
	for p.sc.Scan() {
		p.log.WriteString(p.sc.Text() + "\n")
		if stop(p.sc.Text()) {
			return true
		}
	}
	return false
}

// endWith sends the process sig and returns how it ended (cmd.Wait's
// error), having read the rest of its stderr. A process still running
// within is killed and fails the test, with its stderr.
func (p *classProc) endWith(t *testing.T, sig syscall.Signal, within time.Duration) error {
	t.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	rest := make(chan struct{})
	go func() {
		defer close(rest)
		for p.sc.Scan() {
			p.log.WriteString(p.sc.Text() + "\n")
		}
	}()
	ended := make(chan error, 1)
	go func() { ended <- p.cmd.Wait() }()
	timer := time.NewTimer(within)
	defer timer.Stop()
	select {
	case err := <-ended:
		<-rest
		return err
	case <-timer.C:
		_ = p.cmd.Process.Kill()
		<-ended
		<-rest
		t.Fatalf("grade-class still ran %.0f s after the signal (%v); stderr:\n%s", within.Seconds(), sig, p.log.String())
		return nil
	}
}
