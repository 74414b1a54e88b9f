package class

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcplab/mcplab/lab/safefile"
)

// RecordKeyEnv is the environment variable that, when set, names the file
// of the record key in place of the default one (see RecordKeyFile).
const RecordKeyEnv = "LAB_RECORD_KEY_FILE"

// maxRecordKeyBytes bounds the record key's file when it is read: it holds
// 64 hex digits and a newline.
const maxRecordKeyBytes = 4096

// recordKeyBytes is the length of a record key the grader makes.
const recordKeyBytes = 32

// RecordKey is the secret a grader signs its students' records with
// (HMAC-SHA-256), so that a later run reuses only a record that a grader
// holding the same key wrote, unchanged. It lives outside every results
// folder, in a file only its user may read.
type RecordKey struct {
	// File is the file the key was read from.
	File   string
	secret []byte
	id     string
}

// RecordKeyFile is the path of the record key's file: the one
// $LAB_RECORD_KEY_FILE names (as getenv reads it), else record-key in the
// mcplab folder of os.UserConfigDir() (~/.config/mcplab/record-key).
func RecordKeyFile(getenv func(string) string) (string, error) {
	if p := getenv(RecordKeyEnv); p != "" {
		abs, err := filepath.Abs(p)
		if err != nil {
			return "", fmt.Errorf("the record key file %s ($%s): %w", p, RecordKeyEnv, err)
		}
		return abs, nil
	}
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("finding the folder of the record key: %w (set $%s to the file to keep it in)", err, RecordKeyEnv)
	}
	return filepath.Join(dir, "mcplab", "record-key"), nil
}

// ReadRecordKey reads the record key in the file path. It refuses a file
// that is a link, is not a regular file, belongs to another user, or may
// be read or written by other users, and a folder holding it that other
// users may write to; it reads at most a few kilobytes. A missing file is
// an error that wraps fs.ErrNotExist.
func ReadRecordKey(path string) (*RecordKey, error) {
	if err := checkKeyFolder(filepath.Dir(path)); err != nil {
		return nil, err
	}
	info, err := os.Lstat(path)
	if err != nil {
		return nil, fmt.Errorf("the record key file %s: %w", path, err)
	}
	if why := keyFileProblem(info); why != "" {
		return nil, fmt.Errorf("the record key file %s %s", path, why)
	}
	f, err := os.OpenFile(path, os.O_RDONLY|oReadSafe, 0)
	if err != nil {
		return nil, fmt.Errorf("the record key file %s: %w", path, err)
	}
	defer f.Close()
	opened, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("the record key file %s: %w", path, err)
	}
	if !os.SameFile(info, opened) {
		return nil, fmt.Errorf("the record key file %s changed while the grader opened it", path)
	}
	if why := keyFileProblem(opened); why != "" {
		return nil, fmt.Errorf("the record key file %s %s", path, why)
	}
	data, over, err := safefile.ReadAtMost(f, maxRecordKeyBytes)
	if err != nil {
		return nil, fmt.Errorf("reading the record key file %s: %w", path, err)
	}
	secret, err := hex.DecodeString(strings.TrimSpace(string(data)))
	if over || err != nil || len(secret) < recordKeyBytes {
		return nil, fmt.Errorf("the record key file %s does not hold a record key (%d hex digits): remove it, and the grader makes a new one", path, 2*recordKeyBytes)
	}
	return &RecordKey{File: path, secret: secret, id: keyID(secret)}, nil
}

// EnsureRecordKey reads the record key in the file path, as ReadRecordKey
// does, and makes one first when there is none: 32 random bytes in hex, in
// a file of mode 0600, in a folder of mode 0700 made as needed. Two graders
// making it at once end with the same key.
func EnsureRecordKey(path string) (*RecordKey, error) {
	k, err := ReadRecordKey(path)
	if !errors.Is(err, fs.ErrNotExist) {
		return k, err
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("making the folder of the record key: %w", err)
	}
	if err := checkKeyFolder(dir); err != nil {
		return nil, err
	}
	secret := make([]byte, recordKeyBytes)
	_, _ = rand.Read(secret) // never fails (crypto/rand)
	tmp := filepath.Join(dir, ".record-key-"+safefile.TempSuffix())
	if err := safefile.CreateNew(tmp, "the record key", []byte(hex.EncodeToString(secret)+"\n"), 0o600, nil); err != nil {
		return nil, err
	}
	// A link, not a rename: it never replaces a key another grader made
	// in the meantime, and the key appears whole or not at all.
	err = os.Link(tmp, path)
	_ = os.Remove(tmp)
	if err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("making the record key file %s: %w", path, err)
	}
	return ReadRecordKey(path)
}

// checkKeyFolder refuses a folder of the record key that is a link, or
// that users other than its owner may write to (they could put another
// key in its place).
func checkKeyFolder(dir string) error {
	info, err := os.Lstat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("the folder of the record key %s: %w", dir, err)
	case err != nil:
		return fmt.Errorf("the folder of the record key %s: %w", dir, err)
	case info.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("the folder of the record key %s is a symbolic link, which the grader does not follow", dir)
	case !info.IsDir():
		return fmt.Errorf("the folder of the record key %s is not a folder", dir)
	case info.Mode().Perm()&0o022 != 0:
		return fmt.Errorf("the folder of the record key %s may be written by other users (mode %04o), who could put another key in its place", dir, info.Mode().Perm())
	}
	if owner := safefile.Owner(info); owner >= 0 && owner != os.Geteuid() && owner != 0 {
		return fmt.Errorf("the folder of the record key %s belongs to uid %d, not to the grader's user (uid %d)", dir, owner, os.Geteuid())
	}
	return nil
}

// keyFileProblem says what makes info unfit to be the record key's file,
// or "".
func keyFileProblem(info fs.FileInfo) string {
	switch {
	case info.Mode()&fs.ModeSymlink != 0:
		return "is a symbolic link, which the grader does not follow"
	case !info.Mode().IsRegular():
		return "is not a regular file"
	case info.Mode().Perm()&0o077 != 0:
		return fmt.Sprintf("may be read or written by other users (mode %04o), so others may know the key: remove it, and the grader makes a new one", info.Mode().Perm())
	}
	if owner := safefile.Owner(info); owner >= 0 && owner != os.Geteuid() {
		return fmt.Sprintf("belongs to uid %d, not to the grader's user (uid %d)", owner, os.Geteuid())
	}
	return ""
}

// keyID names a key without giving it away: the first 8 bytes of an HMAC
// of a fixed text, in hex. A record carries the id of the key its digest
// was made with, so that a record of another key is told from an edited
// one.
func keyID(secret []byte) string {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte("mcplab record key id"))
	return hex.EncodeToString(m.Sum(nil)[:8])
}

// sum is the HMAC-SHA-256 of data under k.
func (k *RecordKey) sum(data []byte) []byte {
	m := hmac.New(sha256.New, k.secret)
	m.Write(data)
	return m.Sum(nil)
}

// insideFolder reports whether path lies in the folder dir (or is dir),
// both made absolute.
func insideFolder(dir, path string) bool {
	d, err1 := filepath.Abs(dir)
	p, err2 := filepath.Abs(path)
	return err1 == nil && err2 == nil && within(d, p)
}
