package sandbox

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// warmProgram imports the standard packages a lesson's server is likely to
// use, so that building it fills a Go build cache with them.
const warmProgram = `package main

import (
	_ "bufio"
	_ "bytes"
	_ "context"
	_ "encoding/json"
	_ "errors"
	_ "flag"
	_ "fmt"
	_ "io"
	_ "log"
	_ "log/slog"
	_ "maps"
	_ "math"
	_ "os"
	_ "os/signal"
	_ "regexp"
	_ "slices"
	_ "sort"
	_ "strconv"
	_ "strings"
	_ "sync"
	_ "sync/atomic"
	_ "syscall"
	_ "time"
	_ "unicode"
	_ "unicode/utf8"
)

func main() {}
`

// warmMarker is the file that says a seed cache is complete.
const warmMarker = "mcplab-seed-complete"

// GoSeedDir is where WarmGoCache keeps the seed cache of this machine's Go
// toolchain: a folder of the user's cache directory named after the Go
// version, so a new toolchain gets a new seed.
func GoSeedDir() (string, error) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("no go command on PATH: %w", err)
	}
	out, err := exec.Command(gobin, "env", "GOVERSION", "GOROOT", "GOARCH").Output()
	if err != nil {
		return "", fmt.Errorf("go env: %w", err)
	}
	f := strings.Fields(string(out))
	if len(f) != 3 {
		return "", fmt.Errorf("go env printed %q", out)
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no cache directory for the warm Go build cache: %w", err)
	}
	name := f[0] + "-" + f[2] + "-" + strings.NewReplacer("/", "_", "\\", "_").Replace(f[1])
	return filepath.Join(base, "mcplab", "go-seed", name), nil
}

// WarmGoCache makes dir a Go build cache holding the standard packages a
// lesson's server uses, compiled the way a sandboxed build compiles them
// (CGO_ENABLED=0, the same GOROOT). It does nothing when dir is already
// complete. Workspaces start from a read-only copy of it, so a Go
// submission's build compiles only the student's own code: seconds instead
// of most of a minute on a small machine. The seed is built by the grader
// from the lab's own program, never from a submission, so no student can
// plant anything in another's build.
func WarmGoCache(ctx context.Context, dir string) error {
	if _, err := os.Stat(filepath.Join(dir, warmMarker)); err == nil {
		return nil
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		return fmt.Errorf("warming the Go build cache: no go command on PATH: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return fmt.Errorf("warming the Go build cache: %w", err)
	}
	tmp := dir + ".tmp-" + randomSuffix()
	defer os.RemoveAll(tmp)
	src := filepath.Join(tmp, "src")
	cache := filepath.Join(tmp, "cache")
	if err := os.MkdirAll(src, 0o755); err != nil {
		return fmt.Errorf("warming the Go build cache: %w", err)
	}
	if err := os.WriteFile(filepath.Join(src, "main.go"), []byte(warmProgram), 0o644); err != nil {
		return fmt.Errorf("warming the Go build cache: %w", err)
	}
	cmd := exec.CommandContext(ctx, gobin, "build", "-o", os.DevNull, "main.go")
	cmd.Dir = src
	cmd.Env = append(os.Environ(),
		"GOCACHE="+cache, "CGO_ENABLED=0", "GOTOOLCHAIN=local", "GOPROXY=off",
		"GOFLAGS=-buildvcs=false", "GO111MODULE=on", "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("warming the Go build cache: go build: %w\n%s", err, out)
	}
	// Read-only for everyone: workspaces link these files, and no job may
	// change them.
	err = filepath.WalkDir(cache, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return os.Chmod(p, 0o755)
		}
		return os.Chmod(p, 0o444)
	})
	if err != nil {
		return fmt.Errorf("warming the Go build cache: %w", err)
	}
	if err := os.WriteFile(filepath.Join(cache, warmMarker), nil, 0o444); err != nil {
		return fmt.Errorf("warming the Go build cache: %w", err)
	}
	if err := os.Rename(cache, dir); err != nil {
		// Another grader finished first; its seed is as good as ours.
		if _, statErr := os.Stat(filepath.Join(dir, warmMarker)); statErr == nil {
			return nil
		}
		return fmt.Errorf("warming the Go build cache: %w", err)
	}
	return nil
}

func randomSuffix() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// linkTree fills dst with the entries of a Go build cache at src: every
// file of its two-hex-digit folders, hard-linked when the file system
// allows it and copied when not. The cache's own bookkeeping files at the
// top are left out; Go writes them afresh.
func linkTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if filepath.Dir(rel) == "." || !d.Type().IsRegular() {
			return nil
		}
		if err := os.Link(p, target); err == nil || errors.Is(err, fs.ErrExist) {
			return nil
		}
		return CopyFile(p, target, 0o444)
	})
}

// CopyFile copies src to a new file dst with the given mode; dst must not
// exist yet.
func CopyFile(src, dst string, mode os.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
