package wine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcplab/mcplab/internal/testkit"
)

// TestForwarderDLL checks the layout ForwarderDLL writes: the PE headers,
// and an export table whose one function is a forwarder string inside it.
func TestForwarderDLL(t *testing.T) {
	dll, err := ForwarderDLL("bcryptprimitives.dll", []Forward{{Name: "ProcessPrng", To: "advapi32.SystemFunction036"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(dll) != 2*fileAlign || string(dll[:2]) != "MZ" || string(dll[peOffset:peOffset+4]) != "PE\x00\x00" {
		t.Fatalf("not a two-block PE file: %d bytes, starting %q", len(dll), dll[:4])
	}
	section := dll[fileAlign:]
	for _, want := range []string{"bcryptprimitives.dll\x00", "ProcessPrng\x00", "advapi32.SystemFunction036\x00"} {
		if !bytes.Contains(section, []byte(want)) {
			t.Errorf("the export table lacks %q", want)
		}
	}
	if _, err := ForwarderDLL("x.dll", nil); err == nil {
		t.Error("a forwarder DLL without exports was made")
	}
	if _, err := ForwarderDLL("x.dll", []Forward{{Name: "F", To: strings.Repeat("a", 5000)}}); err == nil {
		t.Error("exports larger than the layout were accepted")
	}
}

// TestWindowsBuildUnderWine runs the lab's Windows build under Wine: lab
// run and lab grade against the reference server, grade-class's refusal,
// and a test of lab/proc's job objects built for Windows.
func TestWindowsBuildUnderWine(t *testing.T) {
	if testing.Short() {
		t.Skip("the Windows smoke test takes about a minute under Wine; it does not run with -short")
	}
	loader, err := Find()
	if err != nil {
		t.Skip(err.Error())
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH to build the Windows programs with")
	}
	ctx, cancel := testkit.TestContext(t)
	defer cancel()
	dir := t.TempDir()
	buildWindows(ctx, t, goTool, "build", "-o", filepath.Join(dir, "lab.exe"), "github.com/mcplab/mcplab/cmd/lab")
	buildWindows(ctx, t, goTool, "test", "-c", "-o", filepath.Join(dir, "proc.test.exe"), "github.com/mcplab/mcplab/lab/proc")

	w, err := NewPrefix(ctx, loader, filepath.Join(dir, "prefix"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		sctx, scancel := context.WithTimeout(context.Background(), time.Minute)
		defer scancel()
		if err := w.Shutdown(sctx); err != nil {
			t.Log(err)
		}
	})
	run := func(t *testing.T, program string, args ...string) (int, string, string) {
		t.Helper()
		return runUnderWine(ctx, t, w, dir, program, args...)
	}
	t.Run("run", func(t *testing.T) { checkRunUnderWine(t, run) })
	t.Run("grade", func(t *testing.T) { checkGradeUnderWine(t, run) })
	t.Run("grade-class refuses", func(t *testing.T) {
		code, out, errOut := run(t, "lab.exe", "grade-class", "--out", "results", "class")
		if code != 2 || !strings.Contains(errOut, "grade-class runs on Linux only") {
			t.Errorf("lab.exe grade-class exited %d, want 2 with \"grade-class runs on Linux only\"\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
		}
		if _, err := os.Lstat(filepath.Join(dir, "results")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("lab.exe grade-class left %s behind (%v)", filepath.Join(dir, "results"), err)
		}
	})
	t.Run("job object", func(t *testing.T) {
		code, out, errOut := run(t, "proc.test.exe", "-test.run", "^TestKillEndsTheJob$", "-test.v")
		if code != 0 || !strings.Contains(out, "--- PASS: TestKillEndsTheJob") {
			t.Errorf("lab/proc's TestKillEndsTheJob under Wine exited %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
		}
	})
}

// wineRun runs a Windows program of the test's folder under Wine and
// returns its exit status, stdout and stderr.
type wineRun func(t *testing.T, program string, args ...string) (int, string, string)

// buildWindows runs goTool with args for windows/amd64, without cgo.
func buildWindows(ctx context.Context, t *testing.T, goTool string, args ...string) {
	t.Helper()
	cmd := exec.CommandContext(ctx, goTool, args...)
	cmd.Env = append(os.Environ(), "GOOS=windows", "GOARCH=amd64", "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// runUnderWine starts a Windows program of dir under Wine, with no input
// and no model to reach (lab run asks one only at a loopback port nothing
// listens on), and returns its exit status and output.
func runUnderWine(ctx context.Context, t *testing.T, w *Wine, dir, program string, args ...string) (int, string, string) {
	t.Helper()
	cmd := w.Command(ctx, "./"+program, args...)
	cmd.Dir = dir
	cmd.Env = append(cmd.Env, "AI_URL=http://127.0.0.1:9", "NO_COLOR=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return exit.ExitCode(), stdout.String(), stderr.String()
	case err != nil:
		t.Fatalf("running %s under Wine: %v\nstderr:\n%s", program, err, stderr.String())
	}
	return 0, stdout.String(), stderr.String()
}

// checkRunUnderWine checks lab.exe run plays lesson 1's demo and shows its
// transcript.
func checkRunUnderWine(t *testing.T, run wineRun) {
	code, out, errOut := run(t, "lab.exe", "run")
	if code != 0 {
		t.Fatalf("lab.exe run exited %d, want 0\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	for _, want := range []string{
		`-> {"jsonrpc":"2.0","id":1,"method":"wait","params":{"ms":80}}`,
		`<- {"jsonrpc":"2.0","id":2,"result":{"waited":10}}`,
		`<- {"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: the line is not valid JSON"}}`,
		`-- server exited with status 0`,
	} {
		if !strings.Contains(out, want+"\n") {
			t.Errorf("lab.exe run's transcript lacks the line %s\nstdout:\n%s", want, out)
		}
	}
}

// checkGradeUnderWine checks lab.exe grade gives the reference server every
// point of lesson 1.
func checkGradeUnderWine(t *testing.T, run wineRun) {
	code, out, errOut := run(t, "lab.exe", "grade", "--lesson", "1", "--format", "json", "--", "./lab.exe", "serve", "reader")
	if code != 0 {
		t.Fatalf("lab.exe grade of the reference server exited %d, want 0\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	var rep struct {
		Gradable bool `json:"gradable"`
		Score    int  `json:"score"`
		Max      int  `json:"max_score"`
		Outcome  struct {
			Kind string `json:"kind"`
		} `json:"outcome"`
		Checks []struct {
			ID     string `json:"id"`
			Status string `json:"status"`
		} `json:"checks"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("lab.exe grade --format json wrote no JSON report: %v\n%s", err, out)
	}
	var notPassed []string
	for _, c := range rep.Checks {
		if c.Status != "pass" {
			notPassed = append(notPassed, c.ID+" "+c.Status)
		}
	}
	if !rep.Gradable || rep.Score != 21 || rep.Max != 21 || rep.Outcome.Kind != "passed" || len(notPassed) > 0 || len(rep.Checks) == 0 {
		t.Errorf("the reference server under Wine: gradable %v, %d/%d, outcome %q, checks not passed %v; want gradable, 21/21, passed, none",
			rep.Gradable, rep.Score, rep.Max, rep.Outcome.Kind, notPassed)
	}
}
