//go:build linux

package sandbox

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// cgroupHost is where the process sandbox makes the memory cgroup of each
// job: a folder of the grader's own cgroup, in the cgroup v2 hierarchy
// when it offers the memory controller, else in cgroup v1's memory
// hierarchy.
type cgroupHost struct {
	dir string // the grader's own cgroup folder
	v2  bool
}

// maxProcFile bounds what is read of a file of /proc or of a cgroup.
const maxProcFile = 1 << 20

// readSmall reads at most maxProcFile bytes of a kernel file.
func readSmall(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxProcFile))
	return string(b), err
}

// findCgroupHost finds where job cgroups can be made, or says why none
// can: the grader is not root, the kernel has no memory controller, or the
// grader's cgroup cannot hand it on.
func findCgroupHost() (cgroupHost, error) {
	if os.Geteuid() != 0 {
		return cgroupHost{}, errors.New("the grader does not run as root")
	}
	own, err := readSmall("/proc/self/cgroup")
	if err != nil {
		return cgroupHost{}, fmt.Errorf("reading the grader's cgroup: %w", err)
	}
	mounts, err := readSmall("/proc/self/mountinfo")
	if err != nil {
		return cgroupHost{}, fmt.Errorf("reading the mounts: %w", err)
	}
	var v1Path, v2Path string
	haveV1, haveV2 := false, false
	for _, line := range strings.Split(own, "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		if parts[0] == "0" && parts[1] == "" {
			v2Path, haveV2 = parts[2], true
		}
		for _, c := range strings.Split(parts[1], ",") {
			if c == "memory" {
				v1Path, haveV1 = parts[2], true
			}
		}
	}
	var why []string
	if haveV2 {
		if dir, ok := cgroupMount(mounts, "cgroup2", "", v2Path); ok {
			h := cgroupHost{dir: dir, v2: true}
			if err := h.enableV2(); err == nil {
				return h, nil
			} else {
				why = append(why, err.Error())
			}
		}
	}
	if haveV1 {
		if dir, ok := cgroupMount(mounts, "cgroup", "memory", v1Path); ok {
			if _, err := os.Stat(filepath.Join(dir, "memory.limit_in_bytes")); err == nil {
				return cgroupHost{dir: dir}, nil
			}
		}
		why = append(why, "the cgroup v1 memory hierarchy is not mounted where the grader's cgroup is")
	}
	if len(why) == 0 {
		why = append(why, "the kernel offers no memory cgroup")
	}
	return cgroupHost{}, errors.New(strings.Join(why, "; "))
}

// cgroupMount finds, in mountinfo, the folder where the cgroup path of the
// grader is mounted: a file system of type fstype whose options hold
// option (when not empty).
func cgroupMount(mountinfo, fstype, option, path string) (string, bool) {
	for _, line := range strings.Split(mountinfo, "\n") {
		pre, post, ok := strings.Cut(line, " - ")
		if !ok {
			continue
		}
		f, g := strings.Fields(pre), strings.Fields(post)
		if len(f) < 5 || len(g) < 3 || g[0] != fstype {
			continue
		}
		if option != "" && !hasOption(g[2], option) {
			continue
		}
		root, point := f[3], f[4]
		rel, err := filepath.Rel(root, path)
		if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
			continue
		}
		return filepath.Join(point, rel), true
	}
	return "", false
}

func hasOption(opts, want string) bool {
	for _, o := range strings.Split(opts, ",") {
		if o == want {
			return true
		}
	}
	return false
}

// enableV2 makes sure the grader's v2 cgroup hands the memory controller
// to the cgroups it holds.
func (h cgroupHost) enableV2() error {
	ctl, err := readSmall(filepath.Join(h.dir, "cgroup.controllers"))
	if err != nil || !hasWord(ctl, "memory") {
		return errors.New("cgroup v2 does not offer the memory controller to the grader's cgroup")
	}
	sub, err := readSmall(filepath.Join(h.dir, "cgroup.subtree_control"))
	if err == nil && hasWord(sub, "memory") {
		return nil
	}
	if err := os.WriteFile(filepath.Join(h.dir, "cgroup.subtree_control"), []byte("+memory"), 0); err != nil {
		return fmt.Errorf("cgroup v2: handing the memory controller on from %s: %w", h.dir, err)
	}
	return nil
}

func hasWord(s, w string) bool {
	for _, f := range strings.Fields(s) {
		if f == w {
			return true
		}
	}
	return false
}

// jobCgroup is the memory cgroup of one job: every process of the job
// runs in it, so the limit holds for them together.
type jobCgroup struct {
	dir string
	v2  bool
}

// newJob makes the cgroup name under the grader's, with limit bytes of
// memory and no swap.
func (h cgroupHost) newJob(name string, limit int64) (*jobCgroup, error) {
	dir := filepath.Join(h.dir, name)
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, fmt.Errorf("making the job's memory cgroup: %w", err)
	}
	cg := &jobCgroup{dir: dir, v2: h.v2}
	set := func(file, value string, optional bool) error {
		err := os.WriteFile(filepath.Join(dir, file), []byte(value), 0)
		if err != nil && !(optional && errors.Is(err, os.ErrNotExist)) {
			return fmt.Errorf("setting %s of the job's memory cgroup to %s: %w", file, value, err)
		}
		return nil
	}
	v := strconv.FormatInt(limit, 10)
	var err error
	if h.v2 {
		err = errors.Join(set("memory.max", v, false), set("memory.swap.max", "0", true))
	} else {
		// memsw (memory and swap together) must not be below the memory
		// limit, so the memory limit comes first.
		err = errors.Join(set("memory.limit_in_bytes", v, false), set("memory.memsw.limit_in_bytes", v, true))
	}
	if err != nil {
		_ = syscall.Rmdir(dir)
		return nil, err
	}
	return cg, nil
}

// removeWithin bounds the wait for the kernel to let a job's cgroup go once
// every process in it was killed.
const removeWithin = 5 * time.Second

// remove kills whatever still runs in the cgroup and removes it. The
// kernel refuses to remove a cgroup until its last process has died, so it
// tries again until removeWithin has passed.
func (cg *jobCgroup) remove() error {
	deadline := time.Now().Add(removeWithin)
	for {
		cg.kill()
		err := syscall.Rmdir(cg.dir)
		if err == nil || errors.Is(err, syscall.ENOENT) {
			return nil
		}
		if !errors.Is(err, syscall.EBUSY) || time.Now().After(deadline) {
			return fmt.Errorf("removing the job's memory cgroup %s: %w", cg.dir, err)
		}
		time.Sleep(10 * time.Millisecond) // the processes are dying: poll their end
	}
}

// kill sends SIGKILL to every process in the cgroup.
func (cg *jobCgroup) kill() {
	if cg.v2 {
		if os.WriteFile(filepath.Join(cg.dir, "cgroup.kill"), []byte("1"), 0) == nil {
			return
		}
	}
	procs, err := readSmall(filepath.Join(cg.dir, "cgroup.procs"))
	if err != nil {
		return
	}
	for _, f := range strings.Fields(procs) {
		if pid, err := strconv.Atoi(f); err == nil && pid > 0 {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// joinCgroup moves the calling process (all its threads) into the cgroup
// folder dir.
func joinCgroup(dir string) error {
	if err := os.WriteFile(filepath.Join(dir, "cgroup.procs"), []byte("0"), 0); err != nil {
		return fmt.Errorf("joining the job's memory cgroup %s: %w", dir, err)
	}
	return nil
}

// leaveCgroup moves the calling process from the job's cgroup folder dir
// back to the one that holds it, the grader's.
func leaveCgroup(dir string) error {
	if err := os.WriteFile(filepath.Join(filepath.Dir(dir), "cgroup.procs"), []byte("0"), 0); err != nil {
		return fmt.Errorf("leaving the job's memory cgroup %s: %w", dir, err)
	}
	return nil
}

// oomKills reads how many processes the kernel killed in the cgroup folder
// dir for want of memory, from memory.events (v2) or memory.oom_control
// (v1); 0 when it cannot tell.
func oomKills(dir string) int {
	for _, file := range []string{"memory.events", "memory.oom_control"} {
		f, err := os.Open(filepath.Join(dir, file))
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(io.LimitReader(f, maxProcFile))
		n := 0
		for sc.Scan() {
			if v, ok := strings.CutPrefix(sc.Text(), "oom_kill "); ok {
				n, _ = strconv.Atoi(strings.TrimSpace(v))
			}
		}
		f.Close()
		return n
	}
	return 0
}
