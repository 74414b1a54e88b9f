package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcplab/mcplab/grading"
	"github.com/mcplab/mcplab/internal/testkit"
)

// TestMain lets the test binary stand in for the lab binary: with
// LAB_TEST_MAIN=1 it runs the lab's own main, so tests can start
// `lab serve reader` as a real process without building anything.
func TestMain(m *testing.M) {
	if os.Getenv("LAB_TEST_MAIN") == "1" {
		os.Args = append([]string{"lab"}, os.Args[1:]...)
		main()
		return
	}
	// This binary, run again as the lab (selfLab and the commands that
	// start it), would sleep a second at every exit under the race
	// detector (GORACE's atexit_sleep_ms): not for these runs.
	if !strings.Contains(os.Getenv("GORACE"), "atexit_sleep_ms") {
		os.Setenv("GORACE", strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
	}
	// Most of this package's time is tests that build a lab and grade
	// classes with it (assignments, shards, resumed runs): each waits on
	// the programs it grades and on their deadlines, using a fraction of
	// a core. Held to -parallel's default (GOMAXPROCS, two on a two-core
	// machine) they took turns for minutes; four at once overlap their
	// waits. An explicit -parallel still wins.
	if err := testkit.DefaultParallel(4); err != nil {
		fmt.Fprintf(os.Stderr, "lab tests: %v\n", err)
		os.Exit(2)
	}
	os.Exit(m.Run())
}

// selfLab returns a command line that runs this test binary as the lab.
func selfLab(args ...string) []string {
	exe, _ := os.Executable()
	return append([]string{"env", "LAB_TEST_MAIN=1", exe}, args...)
}

// lab runs a lab command in-process and returns its exit status and output.
func lab(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, getenv: func(k string) string {
		if k == "AI_URL" {
			return "http://127.0.0.1:1" // refused at once: the recorded sample
		}
		return ""
	}}
	code := dispatch(context.Background(), e, args)
	return code, out.String(), errb.String()
}

func TestUsageErrorsExit2(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"bogus"},
		{"grade"},
		{"grade", "--format", "pdf", "--", "x"},
		{"grade", "--time-scale", "0", "--", "x"},
		{"serve"},
		{"serve", "nope"},
		{"run", "--lesson", "9"},
		{"version", "extra"},
	} {
		code, stdout, stderr := lab(t, args...)
		if code != 2 {
			t.Errorf("lab %v: exit %d, want 2", args, code)
		}
		if stdout != "" {
			t.Errorf("lab %v wrote to stdout: %q", args, stdout)
		}
		if stderr == "" {
			t.Errorf("lab %v said nothing on stderr", args)
		}
	}
}

func TestVersion(t *testing.T) {
	code, out, _ := lab(t, "version")
	if code != 0 || out != "lab dev\n" {
		t.Errorf("exit %d, %q", code, out)
	}
}

// TestRunTranscript plays the lesson against the real reference server
// process and checks the transcript's shape and its model step.
func TestRunTranscript(t *testing.T) {
	code, out, stderr := lab(t, append([]string{"run", "--"}, selfLab("serve", "reader")...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	var sends, answers int
	for _, l := range lines {
		switch {
		case strings.HasPrefix(l, "-> "):
			sends++
		case strings.HasPrefix(l, "<- "):
			answers++
		}
	}
	if sends != 4 || answers != 5 {
		t.Errorf("%d chunks and %d answers, want 4 and 5:\n%s", sends, answers, out)
	}
	want := `-> 2.0","id":3,"method":"ping"} | not json at all | {"jsonrpc":"2.0","id":5,"method":5} | {"jsonrpc":"2.0","method":"notifications/x"}`
	if !strings.Contains(out, want+"\n") {
		t.Errorf("transcript lacks the fourth chunk shown on one line:\n%s", out)
	}
	n := len(lines)
	if !strings.HasPrefix(lines[n-2], "Recorded sample: no model answered (connection refused by http://127.0.0.1:1") ||
		!strings.HasPrefix(lines[n-1], "model: ") {
		t.Errorf("model step:\n%s\n%s", lines[n-2], lines[n-1])
	}
}

// TestServeStdoutOnlyMessages runs `lab serve reader` as a process: stdout
// carries only messages, logs go to stderr.
func TestServeStdoutOnlyMessages(t *testing.T) {
	argv := selfLab("serve", "reader")
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin = strings.NewReader("not json\n" + `{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v: %s", err, errb.String())
	}
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(l), &m) != nil || m["jsonrpc"] != "2.0" {
			t.Errorf("stdout line %q is not a message", l)
		}
	}
	if !strings.HasPrefix(errb.String(), "log: ready\n") {
		t.Errorf("stderr %q does not start with the ready line", errb.String())
	}
}

// TestGradeJSONAndExitCodes checks `lab grade --format json`: its shape,
// and the exit statuses 0, 1 and 2.
func TestGradeJSONAndExitCodes(t *testing.T) {
	code, out, stderr := lab(t, append([]string{"grade", "--format", "json", "--"}, selfLab("serve", "reader")...)...)
	if code != 0 {
		t.Fatalf("grading the reference: exit %d: %s", code, stderr)
	}
	var res struct {
		Lesson   int  `json:"lesson"`
		Gradable bool `json:"gradable"`
		Score    int  `json:"score"`
		MaxScore int  `json:"max_score"`
		Checks   []struct {
			ID        string `json:"id"`
			Status    string `json:"status"`
			Points    int    `json:"points"`
			MaxPoints int    `json:"max_points"`
			Message   string `json:"message"`
		} `json:"checks"`
		Transcript []grading.Event `json:"transcript"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if res.Lesson != 1 || !res.Gradable || res.Score != res.MaxScore || len(res.Checks) != 15 || len(res.Transcript) == 0 {
		t.Errorf("lesson %d gradable %v score %d/%d, %d checks, %d events", res.Lesson, res.Gradable, res.Score, res.MaxScore, len(res.Checks), len(res.Transcript))
	}
	// A server with one mistake: exit 1.
	code, _, stderr = lab(t, "grade", "--", "bash", filepath.Join("..", "..", "grading", "testdata", "servers", "student_sh", "server.sh"), "--mistake", "banner")
	if code != 1 {
		t.Errorf("grading a server with one mistake: exit %d, want 1 (%s)", code, stderr)
	}
	// A program that exits at once, before it is ready, never started: exit 2.
	code, _, _ = lab(t, append([]string{"grade", "--"}, selfLab("serve", "nope")...)...)
	if code != 2 {
		t.Errorf("grading a server that exits at once: exit %d, want 2", code)
	}
	// A command that cannot start: exit 2.
	code, _, stderr = lab(t, "grade", "--", "/no/such/server")
	if code != 2 {
		t.Errorf("grading a missing command: exit %d, want 2 (%s)", code, stderr)
	}
}

// BenchmarkLongLineMemory sends `lab serve reader` 1 GiB with no newline,
// then a newline and a ping, and reports the server's peak resident memory
// (VmHWM), which must stay under 64 MiB: the framer drops the line without
// keeping it. Run it with:
//
//	go test ./cmd/lab -run '^$' -bench LongLineMemory -benchtime 1x
func BenchmarkLongLineMemory(b *testing.B) {
	for i := 0; i < b.N; i++ {
		argv := selfLab("serve", "reader")
		cmd := exec.Command(argv[0], argv[1:]...)
		stdin, _ := cmd.StdinPipe()
		stdout, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		chunk := bytes.Repeat([]byte("x"), 1<<20)
		go func() {
			for n := 0; n < 1024; n++ {
				if _, err := stdin.Write(chunk); err != nil {
					return
				}
			}
			io.WriteString(stdin, "\n"+`{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n")
		}()
		r := bufio.NewReader(stdout)
		first, _ := r.ReadString('\n')
		second, _ := r.ReadString('\n')
		elapsed := time.Since(start)
		hwm := peakRSS(b, cmd.Process.Pid)
		stdin.Close()
		cmd.Wait()
		if !strings.Contains(first, `"code":-32700`) || second != `{"jsonrpc":"2.0","id":1,"result":{}}`+"\n" {
			b.Fatalf("answers %q %q", first, second)
		}
		b.ReportMetric(float64(hwm)/(1<<20), "peak-RSS-MiB")
		b.ReportMetric(1024/elapsed.Seconds(), "MiB/s")
		if hwm > 64<<20 {
			b.Errorf("peak memory %d MiB, want under 64 MiB", hwm>>20)
		}
	}
}

func peakRSS(b *testing.B, pid int) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Skipf("no /proc here: %v", err)
	}
	for _, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(l, "VmHWM:") {
			var kb int64
			fmt.Sscanf(strings.TrimSpace(strings.TrimPrefix(l, "VmHWM:")), "%d", &kb)
			return kb << 10
		}
	}
	b.Fatal("no VmHWM in /proc status")
	return 0
}
