package class

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/mcplab/mcplab/grading/report"
	"github.com/mcplab/mcplab/grading/sandbox"
	"github.com/mcplab/mcplab/lab/safefile"
)

// OutMarker is the file that says a results folder was made by the grader:
// a later run may replace such a folder, never any other.
const OutMarker = ".mcplab-results"

// StudentsDir is the folder of a results folder that holds one folder per
// student, so that no student's name (grades.csv, summary.md) can meet the
// gradebook's.
const StudentsDir = "students"

// Out is a results folder the grader created itself, and writes only
// through: every file is created new (O_EXCL), no link is followed (every
// path is resolved inside the folder, see os.Root), and a file appears
// under its name only once it is complete (written under a temporary name,
// then renamed). While the grader writes, only its own user may enter the
// folder; Close opens it for reading.
type Out struct {
	// Path is the folder, as given.
	Path string
	root *os.Root
	mu   sync.Mutex
}

// CreateOut creates the results folder at path. It refuses:
//   - a path whose parent folder, or any folder above it, users other than
//     its owner may write to (a sticky folder such as /tmp is fine), or
//     that belongs to a user the sandboxes run students as;
//   - a path that exists, unless it is a folder an earlier run of the grader
//     made (it holds OutMarker, belongs to the grader's user, and no one else
//     may write to it), which is then replaced whole.
func CreateOut(path string) (*Out, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("the results folder: %w", err)
	}
	if err := safeAncestors(filepath.Dir(abs)); err != nil {
		return nil, fmt.Errorf("the results folder %s: %w", path, err)
	}
	if info, err := os.Lstat(abs); err == nil {
		if why := notOurs(abs, info); why != "" {
			return nil, fmt.Errorf("the results folder %s already exists and %s; the grader writes only into a folder it creates "+
				"itself: name a new one, or remove it first", path, why)
		}
		if err := os.RemoveAll(abs); err != nil { // unlinks links, never follows them
			return nil, fmt.Errorf("replacing the results of an earlier run in %s: %w", path, err)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("the results folder: %w", err)
	}
	if err := os.Mkdir(abs, 0o700); err != nil {
		return nil, fmt.Errorf("making the results folder: %w", err)
	}
	root, err := os.OpenRoot(abs)
	if err != nil {
		return nil, fmt.Errorf("opening the results folder: %w", err)
	}
	// The folder opened must be the one made: a mode of 0700 and our own user.
	info, err := root.Stat(".")
	if err != nil || info.Mode().Perm() != 0o700 || safefile.Owner(info) != os.Geteuid() {
		root.Close()
		return nil, fmt.Errorf("the results folder %s changed while the grader made it", path)
	}
	o := &Out{Path: path, root: root}
	f, err := root.OpenFile(OutMarker, os.O_WRONLY|os.O_CREATE|os.O_EXCL|safefile.NoFollow, 0o644)
	if err == nil {
		_, err = f.WriteString("Made by lab grade-class. A later run given this folder as --out replaces it whole.\n")
		err = errors.Join(err, f.Close())
	}
	if err == nil {
		err = root.Mkdir(StudentsDir, 0o755)
	}
	if err != nil {
		root.Close()
		return nil, fmt.Errorf("preparing the results folder: %w", err)
	}
	return o, nil
}

// notOurs says why an existing entry is not a results folder of the
// grader's, or "" when it is one.
func notOurs(path string, info fs.FileInfo) string {
	switch {
	case info.Mode()&fs.ModeSymlink != 0:
		return "is a symbolic link"
	case !info.IsDir():
		return "is not a folder"
	case safefile.Owner(info) != os.Geteuid():
		return fmt.Sprintf("belongs to uid %d, not to the grader's user", safefile.Owner(info))
	case info.Mode().Perm()&0o022 != 0:
		return "other users may write to it"
	}
	m, err := os.Lstat(filepath.Join(path, OutMarker))
	if err != nil || !m.Mode().IsRegular() || safefile.Owner(m) != os.Geteuid() {
		return "was not made by lab grade-class (it has no " + OutMarker + ")"
	}
	return ""
}

// safeAncestors checks dir and every folder above it: no user but its
// owner may write to it (unless it is sticky, as /tmp is: there no one may
// rename or delete what another user made), and none belongs to a user the
// sandboxes run students as.
func safeAncestors(dir string) error {
	return safefile.CheckFolders(dir, func(p string, info fs.FileInfo) error {
		if o := safefile.Owner(info); sandboxUser(o) {
			return fmt.Errorf("%s belongs to uid %d, a user students run as, who could swap the results for a link", p, o)
		}
		if info.Mode().Perm()&0o022 != 0 && info.Mode()&fs.ModeSticky == 0 {
			return fmt.Errorf("other users may write to %s, and could swap the results for a link", p)
		}
		return nil
	})
}

// sandboxUser reports whether uid is one the sandboxes run students as.
func sandboxUser(uid int) bool {
	return uid >= sandbox.DefaultUIDBase && uid < sandbox.DefaultUIDBase+sandbox.DefaultUIDCount ||
		uid == sandbox.DefaultContainerUser
}

// WriteFile writes data to the file rel (a slash-separated path inside the
// folder), replacing a file of the grader's there: the data goes to a new
// file of a temporary name, which is then renamed into place.
func (o *Out) WriteFile(rel string, data []byte) error {
	tmp := filepath.Join(filepath.Dir(rel), ".tmp-"+safefile.TempSuffix())
	if err := safefile.WriteRenamed(o.root, tmp, rel, data, nil); err != nil {
		return fmt.Errorf("writing %s: %w", rel, err)
	}
	return nil
}

// StudentDir is where a student's reports go inside the results folder:
// students/NAME.
func StudentDir(name string) string { return StudentsDir + "/" + name }

// WriteStudent writes the student's result in every format asked for, as
// students/NAME/FILE, FILE the format's (see report.Format).
func (o *Out) WriteStudent(s *Student, formats []string) error {
	if s.Name == "" || s.Name == "." || s.Name == ".." || strings.ContainsAny(s.Name, "/\x00") {
		return fmt.Errorf("writing the reports: %q cannot be a folder's name", s.Name)
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	dir := StudentDir(s.Name)
	if err := o.root.Mkdir(dir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("writing %s's reports: %w", s.Name, err)
	}
	for _, name := range formats {
		f, err := report.Lookup(name)
		if err != nil {
			return fmt.Errorf("writing %s's reports: %w", s.Name, err)
		}
		var out, side bytes.Buffer
		opt := report.Options{}
		if f.Side != "" {
			opt.Summary = &side
		}
		if err := report.Write(&out, f.Name, s.Result, opt); err != nil {
			return fmt.Errorf("writing %s's %s report: %w", s.Name, f.Name, err)
		}
		if err := o.WriteFile(dir+"/"+f.File, out.Bytes()); err != nil {
			return fmt.Errorf("writing %s's %s report: %w", s.Name, f.Name, err)
		}
		if f.Side != "" {
			if err := o.WriteFile(dir+"/"+f.Side, side.Bytes()); err != nil {
				return fmt.Errorf("writing %s's %s report: %w", s.Name, f.Name, err)
			}
		}
	}
	return nil
}

// Close opens the folder for others to read (mode 0755) and lets it go.
func (o *Out) Close() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	err := o.root.Chmod(".", 0o755)
	return errors.Join(err, o.root.Close())
}
