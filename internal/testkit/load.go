package testkit

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// BusyCore makes sure what the test does runs under load: unless the
// machine is busy already (its cores were nearly all in use over a quarter
// of a second, as under a CI run's go test -p 4), it keeps one core busy
// with a shell spinning in a loop until t ends. The test expects the same
// verdicts either way; the loop only adds the load a machine that is
// otherwise idle lacks, and never takes the CPU of a machine that has
// none to spare from the tests beside it. It logs which it did.
func BusyCore(t testing.TB) {
	t.Helper()
	if busy, err := busyCores(250 * time.Millisecond); err == nil && busy >= float64(runtime.NumCPU())-0.5 {
		t.Logf("the machine is loaded already (%.1f of %d cores busy): no busy loop added", busy, runtime.NumCPU())
		return
	}
	SpinCore(t)
}

// SpinCore keeps one core busy (a shell spinning in a loop) until t ends,
// whatever else the machine is doing: for a load trial that sets its own
// load.
func SpinCore(t testing.TB) {
	t.Helper()
	cmd := exec.Command("sh", "-c", "while :; do :; done")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
}

// busyCores measures how many of the machine's cores were busy, on
// average, over d, from the first line of /proc/stat (Linux only).
func busyCores(d time.Duration) (float64, error) {
	busy0, total0, err := cpuTimes()
	if err != nil {
		return 0, err
	}
	time.Sleep(d) // the measurement's window, not a synchronisation
	busy1, total1, err := cpuTimes()
	if err != nil {
		return 0, err
	}
	if total1 <= total0 {
		return 0, fmt.Errorf("/proc/stat did not move in %v", d)
	}
	return float64(busy1-busy0) / float64(total1-total0) * float64(runtime.NumCPU()), nil
}

// cpuTimes reads the machine's busy and total CPU time, in ticks, from
// /proc/stat's "cpu" line (idle and iowait count as not busy).
func cpuTimes() (busy, total uint64, err error) {
	f, err := os.Open("/proc/stat")
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	line, err := bufio.NewReader(f).ReadString('\n')
	if err != nil {
		return 0, 0, fmt.Errorf("reading /proc/stat: %w", err)
	}
	fields := strings.Fields(line)
	if len(fields) < 5 || fields[0] != "cpu" {
		return 0, 0, fmt.Errorf("/proc/stat starts %q, not a cpu line", line)
	}
	end := min(len(fields), 9) // user to steal; guest time is in user already
	for i, f := range fields[1:end] {
		n, err := strconv.ParseUint(f, 10, 64)
		if err != nil {
			return 0, 0, fmt.Errorf("/proc/stat's cpu line: %w", err)
		}
		total += n
		if i != 3 && i != 4 { // idle, iowait
			busy += n
		}
	}
	return busy, total, nil
}
