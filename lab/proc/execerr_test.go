//go:build unix

package proc

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/mcplab/mcplab/internal/testkit"
)

// TestInterpreter reads the "#!" line, bounded, and gives nothing for a
// FIFO (at once, without blocking), a link, or a file without "#!".
func TestInterpreter(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	fifo := filepath.Join(dir, "fifo")
	testkit.Mkfifo(t, fifo, 0o755)
	link := filepath.Join(dir, "link")
	if err := os.Symlink(write("target", "#!/bin/sh\n"), link); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path, interp string
		crlf         bool
	}{
		{write("sh", "#!/bin/sh -e\necho\n"), "/bin/sh", false},
		{write("env", "#! /usr/bin/env python3\n"), "/usr/bin/env", false},
		{write("crlf", "#!/bin/sh\r\n"), "/bin/sh", true},
		{write("none", "echo hi\n"), "", false},
		{write("long", "#!/"+strings.Repeat("x", 4096)+"\n"), "/" + strings.Repeat("x", shebangMax-3), false},
		{fifo, "", false},
		{link, "", false},
		{filepath.Join(dir, "missing"), "", false},
	} {
		interp, crlf := Interpreter(tc.path)
		if interp != tc.interp || crlf != tc.crlf {
			t.Errorf("%s: Interpreter = %q, %v; want %q, %v", filepath.Base(tc.path), interp, crlf, tc.interp, tc.crlf)
		}
	}
}

// TestExplainExec explains only the errors whose text misleads.
func TestExplainExec(t *testing.T) {
	dir := t.TempDir()
	run := filepath.Join(dir, "run")
	if err := os.WriteFile(run, []byte("#!/nonexistent/python9\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got := ExplainExec(run, syscall.ENOENT); !strings.Contains(got, "its first line asks for the interpreter /nonexistent/python9") {
		t.Errorf("bad interpreter: %q", got)
	}
	if got := ExplainExec(filepath.Join(dir, "missing"), syscall.ENOENT); got != "" {
		t.Errorf("a missing file: %q, want nothing added", got)
	}
	if got := ExplainExec(run, syscall.EACCES); got != "" {
		t.Errorf("EACCES: %q, want nothing added", got)
	}
	err := ExecError(run, &os.PathError{Op: "fork/exec", Path: run, Err: syscall.ENOENT})
	if !strings.HasPrefix(err.Error(), "run exists") || strings.Contains(err.Error(), "no such file") || !os.IsNotExist(unwrapAll(err)) {
		t.Errorf("ExecError = %v", err)
	}
}

func unwrapAll(err error) error {
	for {
		u, ok := err.(interface{ Unwrap() error })
		if !ok {
			return err
		}
		err = u.Unwrap()
	}
}
