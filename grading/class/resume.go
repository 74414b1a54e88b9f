package class

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/mcplab/mcplab/grading"
)

// StudentRecordFile is the name, in a student's folder of the results, of
// the student's full result with what it was graded under: written as
// the student's grading ends, so a run stopped half-way, even killed,
// leaves every finished result behind for a later run to reuse.
const StudentRecordFile = "record.json"

// maxStudentRecordBytes bounds a student's record when it is read back.
const maxStudentRecordBytes = 64 << 20

// GradedWith is everything a result depends on besides the submission's
// files: a result is reused only under an equal GradedWith.
type GradedWith struct {
	LabVersion string  `json:"lab_version"`
	LabHash    string  `json:"lab_hash"` // SHA-256 of the lab binary
	Lesson     int     `json:"lesson"`
	TimeScale  float64 `json:"time_scale"`
	Sweep      int     `json:"sweep"`
	Seed       int64   `json:"cuts"`
}

type studentRecord struct {
	Format  int        `json:"format"`
	With    GradedWith `json:"graded_with"`
	Student *Student   `json:"student"`
}

// WriteStudentRecord writes s's record, graded under with, to
// students/NAME/record.json (a new file renamed into place).
func (o *Out) WriteStudentRecord(s *Student, with GradedWith) error {
	if s.Name == "" || s.Name == "." || s.Name == ".." || containsSlashOrNUL(s.Name) {
		return fmt.Errorf("writing the record: %q cannot be a folder's name", s.Name)
	}
	data, err := json.Marshal(studentRecord{Format: recordFormat, With: with, Student: s})
	if err != nil {
		return fmt.Errorf("writing %s's record: %w", s.Name, err)
	}
	o.mu.Lock()
	err = o.root.Mkdir(StudentDir(s.Name), 0o755)
	o.mu.Unlock()
	if err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("writing %s's record: %w", s.Name, err)
	}
	return o.WriteFile(StudentDir(s.Name)+"/"+StudentRecordFile, data)
}

func containsSlashOrNUL(s string) bool {
	for _, r := range s {
		if r == '/' || r == 0 {
			return true
		}
	}
	return false
}

// Earlier holds the results of an earlier run that may be reused, and why
// the others may not.
type Earlier struct {
	// Dir is the earlier results folder, as given.
	Dir string
	// TimeScale is the scale of the deadlines the reusable results were
	// graded under: the one asked for, or, when none was, the one the
	// earlier run used (0 when it left no reusable result).
	TimeScale float64
	// OtherScale counts the records graded under a scale other than the
	// one asked for, and Scales lists those scales, smallest first.
	OtherScale int
	Scales     []float64
	// Skipped counts the records found but graded under something else.
	Skipped int
	byName  map[string]*Student
	// why says, for a student whose record cannot be reused whatever its
	// files, why not.
	why map[string]string
}

// LoadEarlier reads the student records of the results folder dir (an
// earlier run of grade-class, finished or not) that were graded under
// with. A with.TimeScale of 0 means the scale the earlier run used, which
// Earlier.TimeScale then holds; a run whose records were graded under
// several scales is refused then, since no one scale can be chosen. It
// never follows a link and bounds every read; an unreadable record is
// skipped, not fatal, since that student is simply graded again. A dir
// that is not a results folder of grade-class is an error.
func LoadEarlier(dir string, with GradedWith) (*Earlier, error) {
	info, err := os.Lstat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("the earlier results %s do not exist: name the --out folder of an earlier lab grade-class", dir)
	case err != nil:
		return nil, fmt.Errorf("the earlier results %s: %w", dir, err)
	case info.Mode()&fs.ModeSymlink != 0:
		return nil, fmt.Errorf("the earlier results %s are a symbolic link, which the grader does not follow: name the folder itself", dir)
	case !info.IsDir():
		return nil, fmt.Errorf("the earlier results %s are not a folder: name the --out folder of an earlier lab grade-class", dir)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("the earlier results %s: %w", dir, err)
	}
	defer root.Close()
	if m, err := root.Lstat(OutMarker); err != nil || !m.Mode().IsRegular() {
		return nil, fmt.Errorf("the earlier results %s were not made by lab grade-class (the folder has no %s): name the --out folder of an earlier run", dir, OutMarker)
	}
	e := &Earlier{Dir: dir, byName: map[string]*Student{}, why: map[string]string{}}
	f, err := root.Open(StudentsDir)
	if errors.Is(err, fs.ErrNotExist) {
		e.TimeScale = with.TimeScale
		return e, nil // stopped before any student was done
	}
	if err != nil {
		return nil, fmt.Errorf("the earlier results %s: %w", dir, err)
	}
	entries, err := f.ReadDir(-1)
	f.Close()
	if err != nil {
		return nil, fmt.Errorf("the earlier results %s: %w", dir, err)
	}
	records := map[string]studentRecord{}
	scales := map[float64]bool{}
	for _, ent := range entries {
		if !ent.IsDir() {
			continue
		}
		name := ent.Name()
		data, err := readSmall(root, StudentDir(name)+"/"+StudentRecordFile, maxStudentRecordBytes)
		if errors.Is(err, fs.ErrNotExist) {
			continue // its grading had not ended: "not graded in the earlier run"
		}
		var r studentRecord
		if err != nil || json.Unmarshal(data, &r) != nil || r.Format != recordFormat || r.Student == nil || r.Student.Result == nil ||
			r.Student.Name != name {
			e.Skipped++
			e.why[name] = "its record in the earlier results could not be read"
			continue
		}
		if why := otherThan(r.With, with); why != "" {
			e.Skipped++
			e.why[name] = why
			continue
		}
		records[name] = r
		scales[r.With.TimeScale] = true
	}
	e.TimeScale = with.TimeScale
	if with.TimeScale == 0 {
		switch len(scales) {
		case 0:
		case 1:
			for s := range scales {
				e.TimeScale = s
			}
		default:
			return nil, fmt.Errorf("the earlier results %s were graded under several time scales (%s): pass --time-scale to say which results to reuse",
				dir, scaleList(scales))
		}
	}
	others := map[float64]bool{}
	for name, r := range records {
		if r.With.TimeScale != e.TimeScale {
			e.Skipped++
			e.OtherScale++
			others[r.With.TimeScale] = true
			e.why[name] = fmt.Sprintf("it was graded with deadlines × %g, not the × %g of this run", r.With.TimeScale, e.TimeScale)
			continue
		}
		e.byName[name] = r.Student
	}
	for s := range others {
		e.Scales = append(e.Scales, s)
	}
	slices.Sort(e.Scales)
	return e, nil
}

// otherThan says how a record graded under was differs from now, or ""
// when only the time scale may differ.
func otherThan(was, now GradedWith) string {
	switch {
	case was.Lesson != now.Lesson:
		return fmt.Sprintf("it was graded against lesson %d, not lesson %d", was.Lesson, now.Lesson)
	case was.LabVersion != now.LabVersion || was.LabHash != now.LabHash:
		return fmt.Sprintf("it was graded by another lab (version %s), not this one (version %s)", was.LabVersion, now.LabVersion)
	case was.Sweep != now.Sweep || was.Seed != now.Seed:
		return fmt.Sprintf("it was graded with --sweep %d --cuts %d, not --sweep %d --cuts %d", was.Sweep, was.Seed, now.Sweep, now.Seed)
	case was.TimeScale <= 0:
		return "the earlier run did not record the scale of its deadlines"
	}
	return ""
}

func scaleList(scales map[float64]bool) string {
	var list []float64
	for s := range scales {
		list = append(list, s)
	}
	slices.Sort(list)
	var b strings.Builder
	for i, s := range list {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "× %g", s)
	}
	return b.String()
}

// Len is how many results may be reused.
func (e *Earlier) Len() int { return len(e.byName) }

// Reuse is an Options.Reuse: the earlier result of the student name, when
// it was of the same files (the same commit, or the same hash of them), was
// gradable and was not flaky. It may be called from several goroutines.
func (e *Earlier) Reuse(name string, sub *grading.Submission) *Student {
	prev := e.byName[name]
	if prev == nil || prev.Result.Submission == nil || sub == nil || !prev.Result.Gradable || prev.Result.Flaky {
		return nil
	}
	was := prev.Result.Submission
	if (sub.Commit == "" && sub.Hash == "") || was.Commit != sub.Commit || was.Hash != sub.Hash {
		return nil
	}
	return prev
}

// Reused reports whether s, a student of the new run, is the earlier
// result Reuse gave.
func (e *Earlier) Reused(s *Student) bool {
	return s != nil && e.byName[s.Name] == s
}

// WhyNot says why the earlier result of s, a student of the new run that
// was graded again, was not reused, in words for the teacher.
func (e *Earlier) WhyNot(s *Student) string {
	if why, ok := e.why[s.Name]; ok {
		return why
	}
	prev := e.byName[s.Name]
	switch {
	case prev == nil:
		return "it was not graded in the earlier run"
	case !prev.Result.Gradable:
		return fmt.Sprintf("it could not be graded in the earlier run (outcome %s), and such a result is never reused", prev.Result.Outcome.Kind)
	case prev.Result.Flaky:
		return "its earlier result was flaky: two runs of it disagreed"
	case slices.Contains(s.Flags, FlagUnidentified):
		return "its files could not be identified in this run, so they cannot be shown unchanged"
	case prev.Result.Submission == nil || prev.Result.Submission.Commit == "" && prev.Result.Submission.Hash == "":
		return "its files could not be identified in the earlier run"
	}
	return "its files changed since the earlier run"
}
