//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
)

// fileRules are what a program is held to on the machine's files when it
// runs as the grader's own user (the grader is not root, so no uid and no
// mount namespace of its own keeps it out of the grader's files): it may
// read and run every file but those under Private, and write only under
// Writable (and to the devices of /dev). Landlock (Linux 5.13 and later)
// enforces them; the launcher applies them to itself just before it
// starts the program, which inherits them and cannot lift them.
//
// The machine's /tmp and /var/tmp are not among the writable folders:
// the other jobs' workspaces are there, and they belong to the same user.
// A program's TMPDIR (and HOME) is in its own workspace.
type fileRules struct {
	// Writable are the folders the program may change: its workspace,
	// /dev/shm. One that is inside a private folder, or holds one, is
	// left out.
	Writable []string
	// Private are the folders it may neither read nor write: the results
	// folder and the folder of the key that signs its records.
	Private []string
}

// The Landlock rights, by the ABI version that brought them.
const (
	llReadFile  = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_READ_FILE
	llReadDir   = unix.LANDLOCK_ACCESS_FS_READ_DIR
	llWriteFile = unix.LANDLOCK_ACCESS_FS_WRITE_FILE
	llMake      = unix.LANDLOCK_ACCESS_FS_REMOVE_DIR | unix.LANDLOCK_ACCESS_FS_REMOVE_FILE |
		unix.LANDLOCK_ACCESS_FS_MAKE_CHAR | unix.LANDLOCK_ACCESS_FS_MAKE_DIR | unix.LANDLOCK_ACCESS_FS_MAKE_REG |
		unix.LANDLOCK_ACCESS_FS_MAKE_SOCK | unix.LANDLOCK_ACCESS_FS_MAKE_FIFO | unix.LANDLOCK_ACCESS_FS_MAKE_BLOCK |
		unix.LANDLOCK_ACCESS_FS_MAKE_SYM
	llABI1     = llReadFile | llReadDir | llWriteFile | llMake
	llRefer    = unix.LANDLOCK_ACCESS_FS_REFER     // ABI 2
	llTruncate = unix.LANDLOCK_ACCESS_FS_TRUNCATE  // ABI 3
	llIoctlDev = unix.LANDLOCK_ACCESS_FS_IOCTL_DEV // ABI 5
)

// landlockABI is the Landlock version the kernel offers, 0 when it has
// none (too old, or Landlock is not enabled).
func landlockABI() int {
	v, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if errno != 0 {
		return 0
	}
	return int(v)
}

// hasFileRules reports whether the kernel can hold a program to file rules.
func hasFileRules() bool { return landlockABI() > 0 }

// handledRights are the rights the kernel of ABI version abi can restrict.
func handledRights(abi int) uint64 {
	h := uint64(llABI1)
	if abi >= 2 {
		h |= llRefer
	}
	if abi >= 3 {
		h |= llTruncate
	}
	if abi >= 5 {
		h |= llIoctlDev
	}
	return h
}

// rulesetAttr is struct landlock_ruleset_attr up to its scoped member
// (ABI 6); an older kernel takes the members it knows, the rest being 0.
type rulesetAttr struct {
	handledFS, handledNet, scoped uint64
}

// errNoLandlock is apply's error on a kernel without Landlock.
var errNoLandlock = errors.New("the kernel offers no Landlock (Linux 5.13 or later, with Landlock enabled), so a program run as the grader's own user can read and write whatever that user can")

// apply holds the calling thread, and every process it starts from now
// on, to the rules. The thread is locked to its goroutine for good: a
// process started from that goroutine forks from it, so it inherits the
// rules, and no other goroutine ever runs on it. It sets no_new_privs
// (as Landlock needs), which a set-uid program then cannot lift either.
func (r fileRules) apply() error {
	abi := landlockABI()
	if abi <= 0 {
		return errNoLandlock
	}
	handled := handledRights(abi)
	private, err := resolved(r.Private)
	if err != nil {
		return fmt.Errorf("finding the private folders: %w", err)
	}
	read, err := readableBut(private)
	if err != nil {
		return fmt.Errorf("finding what a program may read: %w", err)
	}
	runtime.LockOSThread() // never unlocked: the thread carries the rules
	attr := rulesetAttr{handledFS: handled}
	fd, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr), 0)
	if errno != 0 {
		return fmt.Errorf("making a Landlock ruleset: %w", errno)
	}
	ruleset := int(fd)
	defer unix.Close(ruleset)
	for _, p := range read {
		rights := uint64(llReadFile | llReadDir)
		if strings.HasSuffix(p, "/") && p != "/" || p == "/" && len(private) > 0 {
			rights = llReadDir // a folder on the way to a private one
		}
		if err := addRule(ruleset, p, rights&handled); err != nil {
			return err
		}
	}
	writable, err := resolved(r.Writable)
	if err != nil {
		return fmt.Errorf("finding the writable folders: %w", err)
	}
	for _, p := range writable {
		if under(p, private) || above(p, private) {
			continue
		}
		if err := addRule(ruleset, p, handled); err != nil {
			return err
		}
	}
	// /dev/null, /dev/tty and their kind: written, truncated (a shell's
	// "> /dev/null" opens with O_TRUNC) and asked the terminal questions
	// programs ask.
	if err := addRule(ruleset, "/dev", (llReadFile|llReadDir|llWriteFile|llTruncate|llIoctlDev)&handled); err != nil {
		return err
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("setting no_new_privs: %w", err)
	}
	if _, _, errno := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, uintptr(ruleset), 0, 0); errno != 0 {
		return fmt.Errorf("applying the Landlock ruleset: %w", errno)
	}
	return nil
}

// addRule lets the program have rights beneath path (a folder) or on it
// (a file, which takes only the rights a file can have). A path that is
// gone is left out: there is nothing to reach there.
func addRule(ruleset int, path string, rights uint64) error {
	fd, err := unix.Open(path, unix.O_PATH|unix.O_CLOEXEC, 0)
	if errors.Is(err, unix.ENOENT) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("opening %s for a Landlock rule: %w", path, err)
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fmt.Errorf("reading %s for a Landlock rule: %w", path, err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		rights &= llReadFile | llWriteFile | llTruncate | llIoctlDev
	}
	if rights == 0 {
		return nil
	}
	attr := unix.LandlockPathBeneathAttr{Allowed_access: rights, Parent_fd: int32(fd)}
	if _, _, errno := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(ruleset), unix.LANDLOCK_RULE_PATH_BENEATH, uintptr(unsafe.Pointer(&attr)), 0, 0, 0); errno != 0 {
		return fmt.Errorf("adding the Landlock rule for %s: %w", path, errno)
	}
	return nil
}

// resolved gives paths absolute, with their links resolved where they
// exist; "" is left out, and / refused.
func resolved(paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		if p == "" {
			continue
		}
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, err
		}
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			abs = real
		}
		if abs == "/" {
			return nil, errors.New("/ cannot be a private or a writable folder")
		}
		out = append(out, abs)
	}
	return out, nil
}

// readableBut lists the paths whose trees together hold every file of the
// machine but those under priv (absolute, resolved): the other entries of
// each folder on the way from / to a private path, and everything else
// whole; the folders on the way are listed too, with a "/" at the end
// (the root as "/"), to be given the right to be listed alone. A link is left out when it leads into, or above, a private path
// (the walk reaches what it may lead to by its own path), so no link opens
// a private folder.
func readableBut(priv []string) ([]string, error) {
	if len(priv) == 0 {
		return []string{"/"}, nil
	}
	var out []string
	var walk func(dir string) error
	walk = func(dir string) error {
		// The folder itself may be listed (READ_DIR on it reaches the
		// folders below it too, so a private folder's names can be
		// listed, never its files read or changed).
		out = append(out, strings.TrimSuffix(dir, "/")+"/")
		entries, err := os.ReadDir(dir)
		if err != nil {
			return fmt.Errorf("listing %s: %w", dir, err)
		}
		for _, e := range entries {
			p := filepath.Join(dir, e.Name())
			switch {
			case under(p, priv):
			case above(p, priv):
				if e.Type()&os.ModeSymlink == 0 && e.IsDir() {
					if err := walk(p); err != nil {
						return err
					}
				}
			case e.Type()&os.ModeSymlink != 0:
				target, err := filepath.EvalSymlinks(p)
				if err != nil || under(target, priv) || above(target, priv) {
					continue
				}
				out = append(out, p)
			default:
				out = append(out, p)
			}
		}
		return nil
	}
	if err := walk("/"); err != nil {
		return nil, err
	}
	return out, nil
}

// under reports whether p is one of roots or inside one.
func under(p string, roots []string) bool {
	for _, r := range roots {
		if p == r || strings.HasPrefix(p, r+"/") {
			return true
		}
	}
	return false
}

// above reports whether p is a folder on the way to one of roots.
func above(p string, roots []string) bool {
	for _, r := range roots {
		if p == "/" || strings.HasPrefix(r, p+"/") {
			return true
		}
	}
	return false
}
