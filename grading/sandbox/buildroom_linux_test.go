//go:build linux

package sandbox_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcplab/mcplab/grading"
	"github.com/mcplab/mcplab/grading/sandbox"
	"github.com/mcplab/mcplab/internal/testkit"
)

// buildStarter builds the Go starter of lesson (its folder under
// lessons/) with the build script lab assignment writes, in a fresh
// workspace of sb capped at size bytes and seeded from seed, as class
// grading builds a submission. It returns how the build went and the bytes
// the workspace's file system holds once it is done.
func buildStarter(t *testing.T, sb *sandbox.Process, slot int, lesson, seed string, size int64) (sandbox.RunResult, int64) {
	program := "server"
	if strings.HasPrefix(lesson, "03-") {
		program = "client" // lesson 3's program is a client
	}
	t.Helper()
	sb.WorkspaceSize = size
	dir := testkit.OpenDir(t)
	sub := filepath.Join(dir, "sub")
	testkit.CopyTree(t, filepath.Join("..", "..", "lessons", lesson, "starter", "go"), sub)
	if err := os.WriteFile(filepath.Join(sub, "build"), []byte("#!/bin/sh\n"+grading.GoBuild(program)), 0o755); err != nil {
		t.Fatal(err)
	}
	work := filepath.Join(dir, "work")
	defer sandbox.RemoveWorkspace(work)
	if err := sb.Workspace(work, slot, seed); err != nil {
		// Too small even for the seed's copy.
		return sandbox.RunResult{StartErr: err}, 0
	}
	spec := sandbox.Spec{Dir: sub, Path: filepath.Join(sub, "build"), Work: work, Slot: slot, Limits: sandbox.DefaultBuildLimits()}
	r := sandbox.RunToEnd(context.Background(), sb.Starter(spec), 10*time.Minute, 1<<16)
	var fs syscall.Statfs_t
	if err := syscall.Statfs(work, &fs); err != nil {
		t.Fatal(err)
	}
	return r, int64(fs.Blocks-fs.Bfree) * fs.Bsize
}

// TestMeasureGoStarterBuild measures, with MCPLAB_MEASURE_BUILD=1 (as
// root, with a go command), what the Go starter's build needs of its
// workspace: the bytes the workspace holds after it (the seed's copy, the
// build cache, the server), and the smallest cap, to the MiB, under which
// it still succeeds (its peak, temporary files included). It is how the
// default scratch cap was chosen; it decides nothing in an ordinary run.
func TestMeasureGoStarterBuild(t *testing.T) {
	if os.Getenv("MCPLAB_MEASURE_BUILD") != "1" {
		t.Skip("set MCPLAB_MEASURE_BUILD=1 to measure what the Go starter's build holds in LAB_WORK")
	}
	needRoot(t)
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	seed, err := sandbox.GoSeedDir()
	if err != nil {
		t.Fatal(err)
	}
	if err := sandbox.WarmGoCache(context.Background(), seed); err != nil {
		t.Fatal(err)
	}
	sb := processSandbox(t)
	for _, c := range []struct{ lesson, seed string }{
		{"01-reading-messages", seed}, {"02-json-rpc-on-the-wire", seed}, {"03-wiring-up-mcp", seed},
		{"02-json-rpc-on-the-wire", ""}, {"03-wiring-up-mcp", ""},
	} {
		lesson, seed := c.lesson, c.seed
		if seed == "" {
			lesson += " (no seed)"
		}
		r, used := buildStarter(t, sb, 40, c.lesson, seed, sandbox.DefaultWorkspaceSize)
		if r.StartErr != nil || !r.Exit.OK() {
			t.Fatalf("%s: the build in %d MiB failed: %+v\n%s", lesson, sandbox.DefaultWorkspaceSize>>20, r.Exit, r.Output)
		}
		t.Logf("%s: after the build LAB_WORK holds %.1f MiB", lesson, float64(used)/(1<<20))
		lo, hi := int64(1), int64(sandbox.DefaultWorkspaceSize>>20) // fails at lo? succeeds at hi
		for hi-lo > 1 {
			mid := (lo + hi) / 2
			r, used := buildStarter(t, sb, 40, c.lesson, seed, mid<<20)
			t.Logf("%s: in %d MiB: %v %v, %.1f MiB held", lesson, mid, r.Exit, r.StartErr, float64(used)/(1<<20))
			if r.StartErr == nil && r.Exit.OK() {
				hi = mid
			} else {
				lo = mid
				if r.StartErr == nil && !strings.Contains(r.Output, "no space left on device") {
					t.Logf("%s: in %d MiB the build failed without ENOSPC: %+v\n%s", lesson, mid, r.Exit, r.Output)
				}
			}
		}
		t.Logf("%s: the smallest cap the build succeeds under is %d MiB", lesson, hi)
	}
}
