package proc

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// shebangMax bounds what is read of a program's first line.
const shebangMax = 512

// Interpreter returns the interpreter a script's first line names ("#!"
// then a path, as the kernel reads it), or "" when the file does not start
// with "#!" or cannot be read; crlf reports that the line ends in a
// carriage return, which the kernel takes as part of the interpreter's
// name. It reads at most a few hundred bytes, opens without blocking (a
// FIFO named like a program gives "" at once) and never follows a
// symbolic link.
func Interpreter(path string) (interp string, crlf bool) {
	f, err := openScript(path)
	if err != nil {
		return "", false
	}
	defer f.Close()
	if info, err := f.Stat(); err != nil || !info.Mode().IsRegular() {
		return "", false
	}
	buf := make([]byte, shebangMax)
	n, err := io.ReadFull(f, buf)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return "", false
	}
	line, _, _ := bytes.Cut(buf[:n], []byte("\n"))
	rest, ok := bytes.CutPrefix(line, []byte("#!"))
	if !ok {
		return "", false
	}
	crlf = bytes.HasSuffix(rest, []byte("\r"))
	fields := strings.Fields(string(rest))
	if len(fields) == 0 {
		return "", crlf
	}
	return fields[0], crlf
}

// ExplainExec says in a sentence why a program could not be executed,
// for the errors whose plain text misleads: "no such file or directory"
// for a script that exists but whose interpreter does not (or whose first
// line ends in a Windows line ending), "exec format error" for a script
// without a "#!" line. It returns "" when it has nothing to add to err.
// It looks at path (bounded, see Interpreter) only for those errors.
func ExplainExec(path string, err error) string {
	name := filepath.Base(path)
	switch {
	case errors.Is(err, syscall.ENOENT):
		info, serr := os.Lstat(path)
		if serr != nil || !info.Mode().IsRegular() {
			return ""
		}
		interp, crlf := Interpreter(path)
		switch {
		case crlf:
			return fmt.Sprintf("%s exists, but its first line (#!%s) ends in a Windows carriage return, which the system takes "+
				"as part of the interpreter's name, so it finds no such interpreter: save %s with Unix line endings (LF)", name, interp, name)
		case interp != "":
			return fmt.Sprintf("%s exists, but its first line asks for the interpreter %s, and there is no such program: "+
				"name an interpreter this machine has, such as #!/bin/sh or #!/usr/bin/env python3", name, interp)
		}
		return fmt.Sprintf("%s exists, but the system cannot load it: a compiled program whose loader (dynamic linker) "+
			"is missing here; build a static binary, or start a script with a line such as #!/bin/sh", name)
	case errors.Is(err, syscall.ENOEXEC):
		return fmt.Sprintf("%s is neither a program this machine can run nor a script that starts with #! and an interpreter's path: "+
			"start it with a line such as #!/bin/sh", name)
	}
	return ""
}

// ExecError is err, an exec's failure to start path, said as ExplainExec
// says it when it has something to add (errors.Is still sees err), else
// err itself.
func ExecError(path string, err error) error {
	if why := ExplainExec(path, err); why != "" {
		return &explained{why: why, err: err}
	}
	return err
}

type explained struct {
	why string
	err error
}

func (e *explained) Error() string { return e.why }
func (e *explained) Unwrap() error { return e.err }
