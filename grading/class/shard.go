package class

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
)

// Shard is one of N slices of a class, for grading a class on N machines:
// shard K (1 to N) holds the students whose folder name hashes to K. The
// hash is of the name alone, so adding or removing a student moves no one
// else to another shard. The zero Shard is the whole class.
type Shard struct {
	K int `json:"k"`
	N int `json:"n"`
}

// ParseShard reads "K/N", with 1 ≤ K ≤ N ≤ 10000.
func ParseShard(s string) (Shard, error) {
	k, n, ok := strings.Cut(s, "/")
	ki, err1 := strconv.Atoi(k)
	ni, err2 := strconv.Atoi(n)
	if !ok || err1 != nil || err2 != nil || ni < 1 || ni > 10000 || ki < 1 || ki > ni {
		return Shard{}, fmt.Errorf("shard %q: want K/N, such as 2/5: this is shard K of N, with 1 ≤ K ≤ N ≤ 10000", s)
	}
	return Shard{K: ki, N: ni}, nil
}

// ShardFromIndex returns the shard of 0-based index (0 to count-1) of
// count: index K-1 is shard K/N, so a Kubernetes Indexed Job's completion
// index names a shard as it is. index is text, as it arrives in an
// argument: a reference to a variable the container did not have (which
// Kubernetes leaves as it is, "$(NAME)") is refused with a hint.
func ShardFromIndex(index string, count int) (Shard, error) {
	if count < 1 || count > 10000 {
		return Shard{}, fmt.Errorf("shard count %d: want 1 to 10000, the number of shards the class is graded in", count)
	}
	i, err := strconv.Atoi(index)
	if err != nil || i < 0 || i >= count {
		why := fmt.Sprintf("want a whole number from 0 to %d (the 0-based index of a shard of %d)", count-1, count)
		if strings.Contains(index, "$") {
			why += "; it looks like a variable nobody expanded: Kubernetes replaces $(JOB_COMPLETION_INDEX) only in an Indexed Job's " +
				"pods (completionMode: Indexed), and a shell is needed for $VAR"
		}
		return Shard{}, fmt.Errorf("shard index %q: %s", index, why)
	}
	return Shard{K: i + 1, N: count}, nil
}

// Whole reports whether the shard is the whole class.
func (s Shard) Whole() bool { return s.N <= 1 }

func (s Shard) String() string {
	if s.Whole() {
		return "1/1"
	}
	return fmt.Sprintf("%d/%d", s.K, s.N)
}

// Holds reports whether the student whose folder is named name belongs to
// the shard: the first 8 bytes of the name's SHA-256, modulo N, is K-1.
func (s Shard) Holds(name string) bool {
	if s.Whole() {
		return true
	}
	sum := sha256.Sum256([]byte(name))
	return int(binary.BigEndian.Uint64(sum[:8])%uint64(s.N)) == s.K-1
}

// Filter returns the folders of subs the shard holds, in order.
func (s Shard) Filter(subs []Folder) []Folder {
	var out []Folder
	for _, f := range subs {
		if s.Holds(f.Name) {
			out = append(out, f)
		}
	}
	return out
}

// Empty returns the class of a shard that holds none of the students, so
// that it still leaves a record for the merge to count: the checks and
// maximum score of the lesson opts names, opts' time scale, no students.
func Empty(opts Options, sandboxName string, ignored []string) (*Class, error) {
	l, err := opts.loadLesson()
	if err != nil {
		return nil, err
	}
	c := &Class{Lesson: l.Manifest().Number, Sandbox: sandboxName, Checks: l.Checks(), TimeScale: opts.TimeScale, Ignored: ignored}
	for _, ch := range l.Checks() {
		c.MaxScore += ch.Points
	}
	return c, nil
}
