//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"unsafe"
)

// nsFlags are the namespaces the process sandbox gives each launcher when
// the grader is root: its own process ids (the program sees only its own
// processes, never the grader's command line or environment), its own
// mounts (a private /proc, /tmp, /var/tmp, /dev/shm and /run/lock), its own
// network (loopback only) and its own System V IPC (shared memory segments,
// message queues and semaphores no other job sees, gone with the namespace).
const nsFlags = syscall.CLONE_NEWPID | syscall.CLONE_NEWNS | syscall.CLONE_NEWNET | syscall.CLONE_NEWIPC

// runLockSize caps the private /run/lock a program gets in the process
// sandbox's namespaces when its workspace is not a file system of its own:
// lock files are small.
const runLockSize = 1 << 20

// DefaultScratchSize caps each of the private /tmp, /var/tmp and /dev/shm a
// program gets in the process sandbox's namespaces when its workspace is
// not a file system of its own (a Work folder the sandbox did not make):
// each is then a tmpfs of its own of this size, as Docker caps a
// container's /dev/shm. In a workspace the sandbox made, they are folders
// of the workspace, under its cap (see DefaultWorkspaceSize).
const DefaultScratchSize = 64 << 20

// enterNamespaces makes the launcher's fresh namespaces (it is their first
// process) into the program's world:
//
//   - mounts stop propagating to the host;
//   - /proc shows the namespace's processes only;
//   - /dev/shm, /var/tmp, /tmp and /run/lock are empty folders of the
//     run's own, gone after it: with scratchDir (a run scratch folder in
//     the job's workspace, see newRunScratch), its folders, bound in their
//     place, so what the program writes there counts against the
//     workspace's cap; without, tmpfs of size bytes each (/run/lock one of
//     runLockSize), which vanish with the namespace. Each path of keep
//     under /tmp (the submission, the workspace, a rig folder) is bound
//     back from the host's, and nothing else of the host's /tmp;
//   - each kept path below a folder user uid may not enter (root's 0700
//     home) is reached through a tmpfs in that folder's place that holds
//     only the way to it (see openWay);
//   - the launcher's own program (the lab binary, the reference server)
//     reads as empty and cannot be run;
//   - the loopback interface is up, and it is the only one.
func enterNamespaces(keep []string, scratchDir string, size int64, uid, gid int) error {
	// The run's folders are opened before anything is mounted: the
	// workspace may lie under /tmp, which is about to be replaced.
	var scratch map[string]int
	if scratchDir != "" {
		var err error
		if scratch, err = openScratch(scratchDir, processScratch()); err != nil {
			return err
		}
		defer func() {
			for _, fd := range scratch {
				syscall.Close(fd)
			}
		}()
	}
	if err := syscall.Mount("", "/", "", syscall.MS_REC|syscall.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("making the mounts private: %w", err)
	}
	if err := syscall.Mount("proc", "/proc", "proc", syscall.MS_NOSUID|syscall.MS_NODEV|syscall.MS_NOEXEC, ""); err != nil {
		return fmt.Errorf("mounting a private /proc: %w", err)
	}
	fresh := func(dir string) error {
		flags := uintptr(syscall.MS_NOSUID | syscall.MS_NODEV)
		if dir == "/run/lock" {
			flags |= syscall.MS_NOEXEC
		}
		if fd, ok := scratch[dir]; ok {
			return bindScratch(fd, dir, flags)
		}
		limit := size
		if dir == "/run/lock" {
			limit = runLockSize
		}
		opts := fmt.Sprintf("size=%d,mode=1777", limit)
		if err := syscall.Mount("tmpfs", dir, "tmpfs", flags, opts); err != nil {
			return fmt.Errorf("mounting a private %s: %w", dir, err)
		}
		return nil
	}
	for _, d := range []string{"/dev/shm", "/var/tmp"} {
		if info, err := os.Stat(d); err == nil && info.IsDir() {
			// A class under /var/tmp grades as one under /tmp: its kept
			// paths are bound back into the fresh folder.
			if err := privateScratch(d, keep, fresh); err != nil {
				return err
			}
		}
	}
	if info, err := os.Stat("/run/lock"); err == nil && info.IsDir() {
		if err := fresh("/run/lock"); err != nil {
			return err
		}
	}
	if err := privateTmp(keep, fresh); err != nil {
		return err
	}
	if err := openWay(keep, uid, gid); err != nil {
		return err
	}
	if exe, err := os.Executable(); err == nil {
		// Under a /tmp folder that was not kept, it is out of sight already.
		err := syscall.Mount("/dev/null", exe, "", syscall.MS_BIND, "")
		if err != nil && !errors.Is(err, syscall.ENOENT) {
			return fmt.Errorf("hiding the lab binary %s: %w", exe, err)
		}
	}
	return loopbackUp()
}

// bindScratch binds the folder open as fd (a folder of the run's scratch
// folder) onto dir, with the mount flags flags.
func bindScratch(fd int, dir string, flags uintptr) error {
	src := "/proc/self/fd/" + strconv.Itoa(fd)
	if err := syscall.Mount(src, dir, "", syscall.MS_BIND, ""); err != nil {
		return fmt.Errorf("putting the run's own folder in the place of %s: %w", dir, err)
	}
	if err := syscall.Mount("", dir, "", syscall.MS_REMOUNT|syscall.MS_BIND|flags, ""); err != nil {
		return fmt.Errorf("putting the run's own folder in the place of %s: %w", dir, err)
	}
	return nil
}

// privateTmp puts an empty /tmp of the run's own in place (fresh mounts
// it) and binds back, from the host's /tmp, exactly each path of keep that
// lies under it (not its top folder, and never /tmp itself: a keep equal
// to /tmp keeps nothing), creating the folders above each one inside the
// fresh /tmp with the host's owner and mode. A path inside another kept
// one comes with it.
func privateTmp(keep []string, fresh func(string) error) error {
	return privateScratch("/tmp", keep, fresh)
}

// privateScratch is privateTmp for the scratch folder top (/tmp, /var/tmp,
// /dev/shm).
func privateScratch(top string, keep []string, fresh func(string) error) error {
	rels := keptUnder(top, keep)
	old, err := os.Open(top)
	if err != nil {
		return fmt.Errorf("opening %s: %w", top, err)
	}
	defer old.Close()
	if err := fresh(top); err != nil {
		return err
	}
	return bindBack(top, "/proc/self/fd/"+strconv.Itoa(int(old.Fd())), rels, 0)
}

// bindBack binds each of rels (relative to top, a fresh folder: a tmpfs,
// or a folder of the run's own) back from host, the folder top held
// before (an open descriptor's /proc path), creating the folders on the
// way with mkParents (their host modes plus extra). A path gone from host
// is skipped: nothing to keep.
func bindBack(top, host string, rels []string, extra os.FileMode) error {
	for _, rel := range rels {
		src := host + "/" + rel
		info, err := os.Stat(src)
		if err != nil {
			continue
		}
		if err := mkParents(top, host, rel, extra); err != nil {
			return err
		}
		dst := filepath.Join(top, rel)
		if info.IsDir() {
			err = os.Mkdir(dst, 0o755)
		} else {
			err = os.WriteFile(dst, nil, 0o644)
		}
		if err != nil {
			return fmt.Errorf("keeping %s: %w", dst, err)
		}
		if err := syscall.Mount(src, dst, "", syscall.MS_BIND|syscall.MS_REC, ""); err != nil {
			return fmt.Errorf("keeping %s: %w", dst, err)
		}
	}
	return nil
}

// keptUnderTmp returns the paths of keep (as given and with links
// resolved) that lie strictly under /tmp, relative to it, without those
// that lie inside another one, sorted.
func keptUnderTmp(keep []string) []string { return keptUnder("/tmp", keep) }

// keptUnder is keptUnderTmp for the folder top.
func keptUnder(top string, keep []string) []string {
	var rels []string
	for _, k := range keep {
		if !filepath.IsAbs(k) {
			continue
		}
		for _, p := range []string{k, realPath(k)} {
			rel, err := filepath.Rel(top, filepath.Clean(p))
			if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, "../") {
				continue
			}
			rels = append(rels, rel)
		}
	}
	return outermost(rels)
}

// mkParents creates, in the fresh top, the folders above rel that are not
// there yet, each with the owner and permissions of the host's folder at
// the same place (read through host, top's folder before) plus extra: with
// no extra a folder only its user may enter stays so (a private /tmp);
// openWay adds the search bits, a way through and no more.
func mkParents(top, host, rel string, extra os.FileMode) error {
	parts := strings.Split(filepath.Dir(rel), "/")
	cur := ""
	for _, part := range parts {
		if part == "." {
			break
		}
		cur = filepath.Join(cur, part)
		dst := filepath.Join(top, cur)
		if _, err := os.Lstat(dst); err == nil {
			continue
		}
		mode, uid, gid := os.FileMode(0o755), 0, 0
		if info, err := os.Stat(host + "/" + cur); err == nil {
			mode = info.Mode().Perm() | info.Mode()&os.ModeSticky | extra
			if st, ok := info.Sys().(*syscall.Stat_t); ok {
				uid, gid = int(st.Uid), int(st.Gid)
			}
		}
		if err := os.Mkdir(dst, 0o700); err != nil {
			return fmt.Errorf("keeping the folder %s: %w", dst, err)
		}
		if err := os.Lchown(dst, uid, gid); err != nil {
			return fmt.Errorf("keeping the folder %s: %w", dst, err)
		}
		if err := os.Chmod(dst, mode); err != nil {
			return fmt.Errorf("keeping the folder %s: %w", dst, err)
		}
	}
	return nil
}

func realPath(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}

// loopbackUp brings the loopback interface of the launcher's network
// namespace up, as "ip link set lo up" does.
func loopbackUp() error {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_DGRAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("bringing loopback up: %w", err)
	}
	defer syscall.Close(fd)
	var ifr struct {
		name  [syscall.IFNAMSIZ]byte
		flags uint16
		_     [22]byte
	}
	copy(ifr.name[:], "lo")
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), syscall.SIOCGIFFLAGS, uintptr(unsafe.Pointer(&ifr))); e != 0 {
		return fmt.Errorf("bringing loopback up: %w", e)
	}
	ifr.flags |= syscall.IFF_UP | syscall.IFF_RUNNING
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), syscall.SIOCSIFFLAGS, uintptr(unsafe.Pointer(&ifr))); e != 0 {
		return fmt.Errorf("bringing loopback up: %w", e)
	}
	return nil
}

// scratchDirs are the folders every user may write to, where a program
// outside the namespaces could leave files behind.
var scratchDirs = []string{"/tmp", "/var/tmp", "/dev/shm", "/run/lock"}

// removeOwned removes what uid left in the scratch folders: every entry
// owned by uid at their top, and one level down in the folders everyone may
// write to (such as /tmp/.X11-unix), and every System V IPC object it owns
// or created. Links are removed, never followed.
func removeOwned(uid int) {
	removeSysvOf(uid)
	var sweep func(dir string, depth int)
	sweep = func(dir string, depth int) {
		entries, err := os.ReadDir(dir)
		if err != nil {
			return
		}
		for _, e := range entries {
			p := filepath.Join(dir, e.Name())
			info, err := os.Lstat(p)
			if err != nil {
				continue
			}
			st, ok := info.Sys().(*syscall.Stat_t)
			if !ok {
				continue
			}
			switch {
			case int(st.Uid) == uid:
				_ = os.RemoveAll(p)
			case depth == 0 && info.IsDir() && info.Mode().Perm()&0o002 != 0:
				sweep(p, depth+1)
			}
		}
	}
	for _, d := range scratchDirs {
		sweep(d, 0)
	}
}

// isPermission reports whether starting with namespaces failed because
// the kernel or the container the grader runs in does not allow them.
func isPermission(err error) bool {
	return errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.EINVAL) ||
		errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EUSERS) || errors.Is(err, fs.ErrPermission)
}

// setNamespaces asks for the launcher to start in new namespaces.
func setNamespaces(attr *syscall.SysProcAttr) { attr.Cloneflags = nsFlags }

// mountWorkspace makes dir a tmpfs of size bytes owned by uid:gid (mode
// 0700), or does nothing when the grader is not root.
func mountWorkspace(dir string, size int64, uid, gid int) error {
	if os.Geteuid() != 0 {
		return nil
	}
	if uid < 0 {
		uid, gid = 0, 0
	}
	opts := fmt.Sprintf("size=%d,mode=0700,uid=%d,gid=%d", size, uid, gid)
	if err := syscall.Mount("tmpfs", dir, "tmpfs", syscall.MS_NOSUID|syscall.MS_NODEV, opts); err != nil {
		return fmt.Errorf("capping the workspace at %d MiB (a tmpfs on %s): %w", size>>20, dir, err)
	}
	return nil
}

// unmount detaches the file system mounted on dir, if any, even while it
// is in use.
func unmount(dir string) error {
	if os.Geteuid() != 0 {
		return nil
	}
	err := syscall.Unmount(dir, syscall.MNT_DETACH)
	if errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.ENOENT) {
		return nil // not a mount point
	}
	return err
}
