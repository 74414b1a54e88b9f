package class

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/mcplab/mcplab/grading"
	"github.com/mcplab/mcplab/lab/event"
	"github.com/mcplab/mcplab/lab/safefile"
)

// Bounds on reading a submission's files on the host, before any sandbox:
// the grader runs as root on folders nobody checked, so every read is of a
// regular file inside the submission, opened without following a link and
// without waiting (a FIFO or a device is never opened), with a size cap,
// and the whole step has a deadline.
const (
	// identifyWithin bounds identifying one submission at time scale 1
	// (the class's scale multiplies it, as it does every deadline).
	identifyWithin = 20 * time.Second
	// gitFileCap bounds a file of the .git folder the grader reads (HEAD, a
	// ref, commondir); packedRefsCap bounds packed-refs.
	gitFileCap    = 4 << 10
	packedRefsCap = 1 << 20
	// hashCap bounds the bytes of a submission's files that are hashed, and
	// hashFilesCap how many files; past either the identity is incomplete.
	hashCap      = 512 << 20
	hashFilesCap = 100_000
)

// Identify says what a submission folder holds, so a result can be tied to
// it: its name, the git commit checked out in it when the folder is the top
// of a git checkout, and always a hash of its files (which also covers
// changes not yet committed).
//
// The commit is read from the .git folder's files, without running git:
// git would obey the checkout's own configuration, which the student
// wrote. Only regular files inside the submission are read: a worktree or
// submodule whose git folder lies elsewhere has no commit here.
func Identify(dir string) *grading.Submission {
	return inspect(context.Background(), dir, nil, identifyWithin).sub
}

// inspection is what reading a submission's files found.
type inspection struct {
	sub *grading.Submission
	// labCopies lists the files (slash-separated, relative) that are the
	// lab binary.
	labCopies []string
	// problem says why the submission could not be identified, or "".
	problem string
}

// inspect identifies the submission at dir and looks for copies of the lab
// binary in it, within ctx and the deadline within, the class's scale of
// identifyWithin. A reading the deadline cut short is a verdict of the
// machine's as much as of the submission's (a loaded machine reads and
// hashes slowly), so it is tried once more with ConfirmScale times as long
// before the submission is left unidentified: it then gets a problem that
// says so, and no hash.
func inspect(ctx context.Context, dir string, lab *labPrint, within time.Duration) inspection {
	in, timedOut := inspectWithin(ctx, dir, lab, within)
	if !timedOut || ctx.Err() != nil {
		return in
	}
	again := within * grading.ConfirmScale
	if in, timedOut = inspectWithin(ctx, dir, lab, again); timedOut {
		in.problem = fmt.Sprintf("reading its files took more than %v, and more than %v when tried again", within, again)
	}
	return in
}

// inspectWithin is one try of inspect, which it reports timed out when
// within ran out first.
func inspectWithin(ctx context.Context, dir string, lab *labPrint, within time.Duration) (inspection, bool) {
	ctx, cancel := context.WithTimeout(ctx, within)
	defer cancel()
	name := filepath.Base(dir)
	done := make(chan inspection, 1)
	go func() { done <- inspectNow(ctx, dir, lab) }()
	select {
	case in := <-done:
		in.sub.Name = name
		return in, false
	case <-ctx.Done():
		// The reader stops at its next file or block; it owns nothing the
		// grader needs.
		return inspection{sub: &grading.Submission{Name: name},
			problem: fmt.Sprintf("reading its files took more than %v", within)}, true
	}
}

func inspectNow(ctx context.Context, dir string, lab *labPrint) inspection {
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real // a submission linked into the class folder
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return inspection{sub: &grading.Submission{}, problem: err.Error()}
	}
	defer root.Close()
	in := inspection{sub: &grading.Submission{Commit: gitHead(root)}}
	h, copies, err := hashTree(ctx, root, lab)
	in.labCopies = copies
	if err != nil {
		in.problem = err.Error()
		return in
	}
	in.sub.Hash = h
	return in
}

// readSmall reads the regular file rel of root, of at most limit bytes.
// It never follows a link (not even one inside the submission), never
// opens anything but a regular file, and never waits on one.
func readSmall(root *os.Root, rel string, limit int64) ([]byte, error) {
	info, err := root.Lstat(rel)
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", rel)
	}
	if info.Size() > limit {
		return nil, fmt.Errorf("%s is larger than %d bytes", rel, limit)
	}
	f, err := openRegular(root, rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, over, err := safefile.ReadAtMost(f, limit)
	if err == nil && over {
		err = fmt.Errorf("%s is larger than %d bytes", rel, limit)
	}
	return data, err
}

// openRegular opens rel for reading without following a link and without
// blocking, and checks that what it opened is a regular file.
func openRegular(root *os.Root, rel string) (*os.File, error) {
	f, err := root.OpenFile(rel, os.O_RDONLY|oReadSafe, 0)
	if err != nil {
		return nil, err
	}
	info, err := f.Stat()
	if err != nil || !info.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s is not a regular file", rel)
	}
	return f, nil
}

// inside turns a path a git file names (relative to base, a slash-separated
// path inside the submission, or absolute) into one inside the submission,
// or "" when it leads out. Absolute paths are taken against the
// submission's real path.
func inside(rootDir, base, p string) string {
	if filepath.IsAbs(p) {
		rel, err := filepath.Rel(rootDir, p)
		if err != nil {
			return ""
		}
		p = filepath.ToSlash(rel)
	} else {
		p = path.Join(base, filepath.ToSlash(p))
	}
	p = path.Clean(p)
	if p == ".." || strings.HasPrefix(p, "../") || path.IsAbs(p) {
		return ""
	}
	return p
}

// gitHead returns the commit checked out at root, or "".
func gitHead(root *os.Root) string {
	gitDir := ".git"
	info, err := root.Lstat(gitDir)
	if err != nil {
		return ""
	}
	if !info.IsDir() {
		// A worktree or submodule: ".git" is a file "gitdir: PATH".
		data, err := readSmall(root, gitDir, gitFileCap)
		if err != nil {
			return ""
		}
		p, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir: ")
		if !ok {
			return ""
		}
		if gitDir = inside(root.Name(), ".", p); gitDir == "" {
			return ""
		}
	}
	head, err := readSmall(root, gitDir+"/HEAD", gitFileCap)
	if err != nil {
		return ""
	}
	ref, isRef := strings.CutPrefix(strings.TrimSpace(string(head)), "ref: ")
	if !isRef {
		return validCommit(ref)
	}
	if !strings.HasPrefix(ref, "refs/") || inside(root.Name(), gitDir, ref) == "" {
		return ""
	}
	// Loose refs may live in the worktree's git dir or in the common one.
	dirs := []string{gitDir}
	if common, err := readSmall(root, gitDir+"/commondir", gitFileCap); err == nil {
		if c := inside(root.Name(), gitDir, strings.TrimSpace(string(common))); c != "" {
			dirs = append(dirs, c)
		}
	}
	for _, d := range dirs {
		if data, err := readSmall(root, path.Join(d, ref), gitFileCap); err == nil {
			return validCommit(strings.TrimSpace(string(data)))
		}
	}
	for _, d := range dirs {
		if c := packedRef(root, path.Join(d, "packed-refs"), ref); c != "" {
			return c
		}
	}
	return ""
}

func packedRef(root *os.Root, rel, ref string) string {
	data, err := readSmall(root, rel, packedRefsCap)
	if err != nil {
		return ""
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		hash, name, ok := strings.Cut(sc.Text(), " ")
		if ok && name == ref {
			return validCommit(hash)
		}
	}
	return ""
}

// validCommit returns s when it is a SHA-1 or SHA-256 object name.
func validCommit(s string) string {
	if len(s) != 40 && len(s) != 64 {
		return ""
	}
	if _, err := hex.DecodeString(s); err != nil {
		return ""
	}
	return strings.ToLower(s)
}

// labPrint is how the lab binary is recognised: its size and SHA-256.
type labPrint struct {
	size int64
	sum  [sha256.Size]byte
}

// fingerprint hashes the reference program (the lab binary, whose own
// reference server a student could ship), or returns nil when there is
// none.
func fingerprint(reference []string) (*labPrint, error) {
	if len(reference) == 0 {
		return nil, nil
	}
	f, err := os.Open(reference[0])
	if err != nil {
		return nil, fmt.Errorf("hashing the reference program: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return nil, fmt.Errorf("hashing the reference program: %w", err)
	}
	p := &labPrint{size: n}
	h.Sum(p.sum[:0])
	return p, nil
}

// hashTree is "sha256:" and the hex digest of the folder's files, sorted by
// path: for each, its kind, its slash-separated path and its contents (a
// symbolic link's target, unfollowed). The .git folder and the files'
// modes and times are left out, so a fresh checkout of the same commit
// hashes the same. A file that cannot be read counts by its name only.
// It also returns the files that are the lab binary (by size, then hash).
// Past hashCap bytes or hashFilesCap files, or once ctx ends, it gives up
// with an error.
func hashTree(ctx context.Context, root *os.Root, lab *labPrint) (string, []string, error) {
	var files []string
	err := fs.WalkDir(root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if d.IsDir() {
			if d.Name() == ".git" && p != "." {
				return fs.SkipDir
			}
			return nil
		}
		if len(files) >= hashFilesCap {
			return fmt.Errorf("it holds more than %d files", hashFilesCap)
		}
		files = append(files, p)
		return nil
	})
	if err != nil {
		return "", nil, err
	}
	sort.Strings(files)
	h := sha256.New()
	var total int64
	var copies []string
	for _, rel := range files {
		info, err := root.Lstat(rel)
		switch {
		case err != nil:
			fmt.Fprintf(h, "unreadable %q\n", rel)
		case info.Mode()&fs.ModeSymlink != 0:
			target, _ := root.Readlink(rel)
			fmt.Fprintf(h, "link %q %q\n", rel, target)
		case info.Mode().IsRegular():
			fmt.Fprintf(h, "file %q %d\n", rel, info.Size())
			if total += info.Size(); total > hashCap {
				return "", copies, fmt.Errorf("its files hold more than %d MiB", hashCap>>20)
			}
			var whole hash.Hash
			w := io.Writer(h)
			if lab != nil && info.Size() == lab.size {
				whole = sha256.New()
				w = io.MultiWriter(h, whole)
			}
			if err := copyFile(ctx, w, root, rel); err != nil {
				if ctx.Err() != nil {
					return "", copies, ctx.Err()
				}
				fmt.Fprintf(h, "unreadable %q\n", rel)
				continue
			}
			if whole != nil && bytes.Equal(whole.Sum(nil), lab.sum[:]) {
				copies = append(copies, rel)
			}
		default:
			fmt.Fprintf(h, "other %q\n", rel)
		}
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), copies, nil
}

// copyFile copies the regular file rel of root to w, a block at a time,
// stopping when ctx ends.
func copyFile(ctx context.Context, w io.Writer, root *os.Root, rel string) error {
	f, err := openRegular(root, rel)
	if err != nil {
		return err
	}
	defer f.Close()
	buf := make([]byte, 256<<10)
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		n, err := f.Read(buf)
		if n > 0 {
			_, _ = w.Write(buf[:n])
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// A client lesson's run is compared with the reference client's after
// what differs from run to run is normalised: socket and other paths,
// loopback addresses and ports, long hexadecimal or base64 tokens, and
// every number (ids, connection numbers, times).
var (
	runPath  = regexp.MustCompile(`(?:/[A-Za-z0-9._+-]+){2,}`)
	runAddr  = regexp.MustCompile(`(?:127\.0\.0\.1|localhost|\[::1\]):[0-9]+`)
	runToken = regexp.MustCompile(`[0-9A-Fa-f]{8,}|[A-Za-z0-9+/_-]{24,}={0,2}`)
	runDigit = regexp.MustCompile(`[0-9]+`)
)

// sameClientRun reports whether a client lesson's run shows the reference
// client at work: every message it sent the servers the lab played, and
// every answer it gave, scenario by scenario, are the reference client's
// once normalised (see normalRun), whatever their order in time. Its
// stderr and exits are left out: a copy of the lab's client may be started
// another way and log otherwise. A run with no message to a server (a
// server lesson's, or a client that never reached one) is never the same.
func sameClientRun(student, reference []grading.Event) bool {
	a, b := clientSide(student), clientSide(reference)
	return len(a) > 0 && slices.Equal(a, b)
}

func clientSide(events []grading.Event) []string {
	var out []string
	traffic := false
	for _, e := range events {
		// Each is compared as its transcript shows it (see
		// event.Event.TranscriptKind): what the client sent a server,
		// with the server's alias and connection, and its answers.
		kind := e.TranscriptKind()
		switch kind {
		case event.ToServer:
			traffic = true
		case event.Answer:
		default:
			continue
		}
		out = append(out, e.Scenario+"\x00"+string(kind)+"\x00"+normalRun(e.TranscriptText()))
	}
	if !traffic {
		return nil
	}
	slices.Sort(out)
	return out
}

// normalRun replaces in s what differs from run to run of the same client.
func normalRun(s string) string {
	s = runAddr.ReplaceAllString(s, "ADDR")
	s = runPath.ReplaceAllString(s, "PATH")
	s = runToken.ReplaceAllString(s, "TOKEN")
	return runDigit.ReplaceAllString(s, "N")
}

// sameAsReference reports whether a run is the reference's: a server's
// (see sameTranscript) or a client's (see sameClientRun).
func sameAsReference(student, reference []grading.Event) bool {
	return sameTranscript(student, reference) || sameClientRun(student, reference)
}

// sameAsReferenceNote tells the teacher what sameAsReference found.
func sameAsReferenceNote(run []grading.Event) string {
	if clientSide(run) != nil {
		return "Every message this client sent its servers and every answer it gave are what the reference client's run gave " +
			"(ports, socket paths, ids and times aside): check that the student wrote the client that was graded."
	}
	return "Every answer and exit of this run, and every log line of each scenario the server ended by itself, " +
		"is what the reference server gave (ids, times and the order of concurrent lines aside): " +
		"check that the student wrote the server that was graded."
}
