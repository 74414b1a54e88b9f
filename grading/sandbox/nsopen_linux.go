//go:build linux

package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
)

// closedFolderSize caps the tmpfs that stands in for a folder the
// program's user may not enter: it holds only the folders that lead to the
// kept paths inside it.
const closedFolderSize = 1 << 20

// openWay makes each kept path reachable by user uid (group gid) in the
// launcher's mount namespace, wherever it sits. A path below a folder
// that user may not enter (a teacher's class in root's 0700 home, a
// checkout in /root) is otherwise out of its reach, and the program could
// not even start. For each such topmost folder it mounts a small tmpfs in
// its place, holding only the folders that lead to the kept paths (each
// with its host owner and mode, plus the search bits, so the user may pass
// through but list nothing the host's folder did not let it list), and
// binds each kept path back from the host. Nothing else of the closed
// folder is in sight, so the program sees less than before, never more. A
// kept path that is itself such a closed folder stays closed. It runs
// after privateTmp, on the namespace's own view of the folders.
func openWay(keep []string, uid, gid int) error {
	if uid < 0 {
		return nil
	}
	if gid < 0 {
		gid = uid
	}
	// A closed folder may sit inside a kept path that an earlier round
	// bound back whole (a 0700 folder of the checkout, in a clone made by
	// mktemp -d): each round opens the topmost ones left, and every
	// folder it opens is searchable from then on, so the rounds end.
	for range maxOpenRounds {
		opened, err := openRound(keep, uid, gid)
		if err != nil || opened == 0 {
			return err
		}
	}
	return nil
}

// maxOpenRounds bounds openWay's rounds: a path with more closed folders
// nested in kept ones than that stays out of reach.
const maxOpenRounds = 16

// openRound opens the topmost closed folder above each kept path, and
// returns how many it opened.
func openRound(keep []string, uid, gid int) (int, error) {
	byClosed := map[string][]string{}
	for _, k := range keep {
		if !filepath.IsAbs(k) {
			continue
		}
		// Under /tmp this sees the private /tmp privateTmp made: the
		// folders it made on the way keep the host's modes, so a checkout
		// in a 0700 folder of mktemp -d is opened here alike.
		p := realPath(filepath.Clean(k))
		closed := closedAbove(p, uid, gid)
		if closed == "" || closed == p {
			continue
		}
		rel, err := filepath.Rel(closed, p)
		if err != nil {
			continue
		}
		byClosed[closed] = append(byClosed[closed], rel)
	}
	var tops []string
	for c := range byClosed {
		tops = append(tops, c)
	}
	slices.Sort(tops)
	done := map[string]bool{}
	for _, c := range tops {
		if insideAny(c, done) {
			continue // a closed folder inside one opened already: its paths came with it
		}
		if err := openClosed(c, outermost(byClosed[c]), uid, gid); err != nil {
			return len(done), err
		}
		done[c] = true
	}
	return len(done), nil
}

// closedAbove returns the topmost folder strictly above p, or p itself,
// that user uid of group gid may not search, or "" when every one may be.
func closedAbove(p string, uid, gid int) string {
	cur := "/"
	for _, part := range strings.Split(strings.TrimPrefix(p, "/"), "/") {
		if part == "" {
			continue
		}
		cur = filepath.Join(cur, part)
		info, err := os.Stat(cur)
		if err != nil {
			return ""
		}
		if !info.IsDir() {
			return ""
		}
		if !searchable(info, uid, gid) {
			return cur
		}
	}
	return ""
}

// searchable says whether user uid of group gid (and no other group) may
// pass through the folder info describes.
func searchable(info os.FileInfo, uid, gid int) bool {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return true
	}
	mode := info.Mode().Perm()
	switch {
	case int(st.Uid) == uid:
		return mode&0o100 != 0
	case int(st.Gid) == gid:
		return mode&0o010 != 0
	}
	return mode&0o001 != 0
}

// insideAny says whether p lies inside one of the folders of set.
func insideAny(p string, set map[string]bool) bool {
	for d := filepath.Dir(p); d != "/" && d != "."; d = filepath.Dir(d) {
		if set[d] {
			return true
		}
	}
	return false
}

// outermost returns rels without those inside another one, sorted.
func outermost(rels []string) []string {
	set := map[string]bool{}
	for _, r := range rels {
		set[r] = true
	}
	var out []string
	for r := range set {
		inside := false
		for d := filepath.Dir(r); d != "."; d = filepath.Dir(d) {
			if set[d] {
				inside = true
				break
			}
		}
		if !inside {
			out = append(out, r)
		}
	}
	slices.Sort(out)
	return out
}

// openClosed puts a tmpfs in the place of the closed folder dir and binds
// each of rels (relative to dir) back from the host's folder.
func openClosed(dir string, rels []string, uid, gid int) error {
	old, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("opening %s: %w", dir, err)
	}
	defer old.Close()
	info, err := old.Stat()
	if err != nil {
		return fmt.Errorf("opening %s: %w", dir, err)
	}
	owner, group := 0, 0
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		owner, group = int(st.Uid), int(st.Gid)
	}
	mode := info.Mode().Perm() | 0o111
	opts := fmt.Sprintf("size=%d,nr_inodes=1024,mode=%o,uid=%d,gid=%d", closedFolderSize, mode, owner, group)
	if err := syscall.Mount("tmpfs", dir, "tmpfs", syscall.MS_NOSUID|syscall.MS_NODEV, opts); err != nil {
		return fmt.Errorf("opening a way through %s (a folder uid %d may not enter): %w", dir, uid, err)
	}
	return bindBack(dir, "/proc/self/fd/"+strconv.Itoa(int(old.Fd())), rels, 0o111)
}
