package class

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"

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
	Seed       int64   `json:"seed"`
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

// Earlier holds the results of an earlier run that may be reused.
type Earlier struct {
	byName map[string]*Student
	// Skipped counts the records found but graded under something else.
	Skipped int
}

// LoadEarlier reads the student records of the results folder dir (an
// earlier run, finished or not) that were graded under with. It never
// follows a link and bounds every read; an unreadable record is skipped,
// not fatal, since that student is simply graded again.
func LoadEarlier(dir string, with GradedWith) (*Earlier, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("the earlier results %s: %w", dir, err)
	}
	defer root.Close()
	e := &Earlier{byName: map[string]*Student{}}
	f, err := root.Open(StudentsDir)
	if errors.Is(err, fs.ErrNotExist) {
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
	for _, ent := range entries {
		if !ent.IsDir() {
			continue
		}
		data, err := readSmall(root, StudentDir(ent.Name())+"/"+StudentRecordFile, maxStudentRecordBytes)
		if err != nil {
			continue
		}
		var r studentRecord
		if json.Unmarshal(data, &r) != nil || r.Format != recordFormat || r.Student == nil || r.Student.Result == nil ||
			r.Student.Name != ent.Name() || r.With != with {
			e.Skipped++
			continue
		}
		e.byName[r.Student.Name] = r.Student
	}
	return e, nil
}

// Len is how many results may be reused.
func (e *Earlier) Len() int { return len(e.byName) }

// Reuse is an Options.Reuse: the earlier result of the student name, when
// it was of the same files (the same commit, or the same hash of them).
func (e *Earlier) Reuse(name string, sub *grading.Submission) *Student {
	prev := e.byName[name]
	if prev == nil || prev.Result.Submission == nil || sub == nil {
		return nil
	}
	was := prev.Result.Submission
	if (sub.Commit == "" && sub.Hash == "") || was.Commit != sub.Commit || was.Hash != sub.Hash {
		return nil
	}
	return prev
}
