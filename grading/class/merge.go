package class

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/mcplab/mcplab/grading"
	"github.com/mcplab/mcplab/lab/textesc"
)

// RecordFile is the name, in a results folder, of the machine-readable
// record of the grading: every student's full result and what the class was
// graded with. lab merge-grades joins shards' results through it.
const RecordFile = "class.json"

// recordFormat is the version of the layout of RecordFile (class.json). A
// student's record (StudentRecordFile) has a version of its own,
// studentRecordFormat, since it changes apart.
const recordFormat = 1

// Bounds on what Merge reads from a results folder, which may come from
// another machine.
const (
	maxRecordBytes = 512 << 20
	maxReportBytes = 64 << 20
)

// Record is a results folder's record (RecordFile).
type Record struct {
	Format int `json:"format"`
	// LabVersion is the version of the lab that graded.
	LabVersion string `json:"lab_version"`
	// Shard is the slice of the class graded; the zero Shard is the whole.
	Shard Shard  `json:"shard"`
	Class *Class `json:"class"`
}

// WriteRecord writes the record of c, graded by lab version labVersion as
// shard, into out.
func (o *Out) WriteRecord(c *Class, labVersion string, shard Shard) error {
	data, err := json.MarshalIndent(Record{Format: recordFormat, LabVersion: labVersion, Shard: shard, Class: c}, "", "\t")
	if err != nil {
		return fmt.Errorf("writing %s: %w", RecordFile, err)
	}
	return o.WriteFile(RecordFile, append(data, '\n'))
}

// ReadRecord reads the record of the results folder dir.
func ReadRecord(dir string) (*Record, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("the results folder %s: %w", dir, err)
	}
	defer root.Close()
	data, err := readSmall(root, RecordFile, maxRecordBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s has no %s: it is not a results folder of lab grade-class (or a lab older than merge-grades wrote it)", dir, RecordFile)
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", dir, err)
	}
	var r Record
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("reading %s/%s: %w", dir, RecordFile, err)
	}
	if r.Format != recordFormat || r.Class == nil {
		return nil, fmt.Errorf("%s/%s is in format %d, which this lab does not read (it reads %d)", dir, RecordFile, r.Format, recordFormat)
	}
	for _, s := range r.Class.Students {
		if s == nil || s.Result == nil {
			return nil, fmt.Errorf("%s/%s has a student without a result", dir, RecordFile)
		}
	}
	return &r, nil
}

// Merged is a class joined from its shards' results folders by Join, not
// yet written.
type Merged struct {
	Class      *Class
	LabVersion string
	dirs       []string
	recs       []*Record
}

// Join reads the results folders dirs, each a shard of one class, and joins
// them into one class. It refuses shards of different lessons, lab versions,
// time scales or checks, a shard given twice or missing, a shard that was
// stopped before it graded everyone, a student present in two shards, and
// a graded student whose result is none the grader gives (a score its
// checks do not add up to, passed with a failed check, a check the shard's
// lesson lacks: see LoadEarlierOf), each with an error that names the
// folders. It writes nothing.
func Join(dirs []string) (*Merged, error) {
	if len(dirs) == 0 {
		return nil, errors.New("name the shards' results folders to merge")
	}
	recs := make([]*Record, len(dirs))
	for i, d := range dirs {
		r, err := ReadRecord(d)
		if err != nil {
			return nil, err
		}
		recs[i] = r
	}
	first, fd := recs[0], dirs[0]
	n := max(first.Shard.N, 1)
	byK := map[int]string{}
	owner := map[string]string{}
	merged := &Class{Lesson: first.Class.Lesson, MaxScore: first.Class.MaxScore, TimeScale: first.Class.TimeScale,
		Checks: first.Class.Checks, Calibration: first.Class.Calibration}
	sandboxes := map[string]bool{}
	ignored := map[string]bool{}
	for i, r := range recs {
		c, d := r.Class, dirs[i]
		switch {
		case c.Lesson != first.Class.Lesson:
			return nil, fmt.Errorf("%s graded lesson %d but %s graded lesson %d: shards of different lessons cannot be merged", fd, first.Class.Lesson, d, c.Lesson)
		case r.LabVersion != first.LabVersion:
			return nil, fmt.Errorf("%s was graded by lab %s but %s by lab %s: grade every shard with the same lab, so every student meets the same checks", fd, first.LabVersion, d, r.LabVersion)
		case c.TimeScale != first.Class.TimeScale:
			return nil, fmt.Errorf("%s was graded with deadlines × %g but %s with × %g: give every shard the same --time-scale, so every student has the same deadlines", fd, first.Class.TimeScale, d, c.TimeScale)
		case c.MaxScore != first.Class.MaxScore:
			return nil, fmt.Errorf("%s has a maximum score of %d but %s of %d: the lesson's checks differ (a --lesson-dir?)", fd, first.Class.MaxScore, d, c.MaxScore)
		case max(r.Shard.N, 1) != n:
			return nil, fmt.Errorf("%s is shard %s but %s is shard %s: every shard must split the class the same number of ways", fd, first.Shard, d, r.Shard)
		case c.Incomplete:
			return nil, fmt.Errorf("%s (shard %s) was stopped before it graded %s (%s): grade that shard again before merging", d, r.Shard, grading.CountOf(len(c.NotGraded), "student", "students"), strings.Join(c.NotGraded, ", "))
		}
		if !sameChecks(c.Checks, first.Class.Checks) {
			return nil, fmt.Errorf("%s and %s were graded against different checks: the lesson's checks differ (a --lesson-dir?)", fd, d)
		}
		if why := shardProblem(r, d); why != "" {
			return nil, errors.New(why)
		}
		k := max(r.Shard.K, 1)
		if prev, dup := byK[k]; dup {
			return nil, fmt.Errorf("shard %s is given twice: %s and %s", r.Shard, prev, d)
		}
		byK[k] = d
		for _, s := range c.Students {
			if prev, dup := owner[s.Name]; dup {
				return nil, fmt.Errorf("student %q is in both %s and %s: were the shards cut from different class folders, or one given under two names?", s.Name, prev, d)
			}
			owner[s.Name] = d
			merged.Students = append(merged.Students, s)
		}
		for _, name := range c.Ignored {
			ignored[name] = true
		}
		sandboxes[c.Sandbox] = true
		merged.Jobs += c.Jobs
		merged.Duration = max(merged.Duration, c.Duration)
	}
	var missing []string
	for k := 1; k <= n; k++ {
		if _, ok := byK[k]; !ok {
			missing = append(missing, fmt.Sprintf("%d/%d", k, n))
		}
	}
	if len(missing) > 0 {
		if len(missing) == 1 {
			return nil, fmt.Errorf("shard %s missing: a merge without it would drop its students; grade it with --shard and name its folder too", missing[0])
		}
		return nil, fmt.Errorf("shards %s missing: a merge without them would drop their students; grade them with --shard and name their folders too", strings.Join(missing, ", "))
	}
	sort.Slice(merged.Students, func(i, j int) bool { return merged.Students[i].Name < merged.Students[j].Name })
	for name := range ignored {
		merged.Ignored = append(merged.Ignored, name)
	}
	sort.Strings(merged.Ignored)
	var sbs []string
	for s := range sandboxes {
		sbs = append(sbs, s)
	}
	sort.Strings(sbs)
	merged.Sandbox = strings.Join(sbs, "+")

	return &Merged{Class: merged, LabVersion: first.LabVersion, dirs: dirs, recs: recs}, nil
}

// shardProblem says what is wrong with the record r of the shard in the
// folder dir, as an error's text, or "": a maximum score that is not the
// sum of its lesson's checks, or a graded student whose result is none the
// grader gives (see resultProblem). A shard's folder may have been written
// to by others before it reached the merge, and grades.csv would carry
// what it says.
func shardProblem(r *Record, dir string) string {
	c := r.Class
	sum := 0
	for _, ch := range c.Checks {
		sum += ch.Points
	}
	if sum != c.MaxScore {
		return fmt.Sprintf("%s/%s says a maximum score of %d, but its lesson's checks are worth %d: it is not as the grader wrote it; grade that shard again",
			dir, RecordFile, c.MaxScore, sum)
	}
	for _, s := range c.Students {
		if !s.Result.Gradable {
			continue
		}
		if why := resultProblem(s.Result, c.Lesson, c.Checks); why != "" {
			return fmt.Sprintf("%s/%s: student %s: %s: it is not a result the grader gives; grade that shard again",
				dir, RecordFile, textesc.Line(s.Name), strings.Replace(why, "its record", "the record", 1))
		}
	}
	return ""
}

// sameChecks reports whether a and b are the same checks, in the same
// order, each worth the same points.
func sameChecks(a, b []grading.Check) bool {
	return slices.EqualFunc(a, b, func(x, y grading.Check) bool { return x.ID == y.ID && x.Points == y.Points })
}

// Write writes the joined class into out: every student's reports, copied
// from the shards' folders, then grades.csv, summary.md and the record.
func (m *Merged) Write(out *Out) error {
	for i, r := range m.recs {
		if err := copyReports(m.dirs[i], r.Class.Students, out); err != nil {
			return err
		}
	}
	if err := m.Class.WriteGradebook(out); err != nil {
		return err
	}
	return out.WriteRecord(m.Class, m.LabVersion, Shard{})
}

// copyReports copies each student's reports from the results folder dir
// into out: plain files only, none followed through a link, each bounded.
func copyReports(dir string, students []*Student, out *Out) error {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return fmt.Errorf("the results folder %s: %w", dir, err)
	}
	defer root.Close()
	for _, s := range students {
		src := StudentDir(s.Name)
		if s.Name == "" || s.Name == "." || s.Name == ".." || strings.ContainsAny(s.Name, "/\x00") {
			return fmt.Errorf("%s: %q cannot be a student folder's name", dir, s.Name)
		}
		info, err := root.Lstat(src)
		if errors.Is(err, fs.ErrNotExist) {
			continue // no formats were asked for
		}
		if err != nil || !info.IsDir() {
			return fmt.Errorf("%s/%s is not a folder of reports (%v)", dir, src, err)
		}
		f, err := root.Open(src)
		if err != nil {
			return fmt.Errorf("reading %s/%s: %w", dir, src, err)
		}
		entries, err := f.ReadDir(-1)
		f.Close()
		if err != nil {
			return fmt.Errorf("reading %s/%s: %w", dir, src, err)
		}
		out.mu.Lock()
		err = out.root.Mkdir(src, 0o755)
		out.mu.Unlock()
		if err != nil && !errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("writing %s's reports: %w", s.Name, err)
		}
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), ".") {
				continue // a temporary file of a write that did not finish
			}
			data, err := readSmall(root, src+"/"+e.Name(), maxReportBytes)
			if err != nil {
				return fmt.Errorf("copying %s's reports from %s: %w", s.Name, dir, err)
			}
			if err := out.WriteFile(src+"/"+e.Name(), data); err != nil {
				return err
			}
		}
	}
	return nil
}
