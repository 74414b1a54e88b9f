package class

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/mcplab/mcplab/grading"
	"github.com/mcplab/mcplab/lab/textesc"
)

// StudentRecordFile is the name, in a student's folder of the results, of
// the student's full result with what it was graded under: written as
// the student's grading ends, so a run stopped half-way, even killed,
// leaves every finished result behind for a later run to reuse.
const StudentRecordFile = "record.json"

// maxStudentRecordBytes bounds a student's record when it is read back.
const maxStudentRecordBytes = 64 << 20

// studentRecordFormat is the version of a student record's layout. Format
// 2 ends with a digest (see signRecord); a record of format 1 carries
// none, and is graded again.
const studentRecordFormat = 2

// GradedWith is everything a result depends on besides the submission's
// files: a result is reused only under an equal GradedWith.
type GradedWith struct {
	LabVersion string  `json:"lab_version"`
	LabHash    string  `json:"lab_hash"` // SHA-256 of the lab binary
	Lesson     int     `json:"lesson"`
	TimeScale  float64 `json:"time_scale"`
	Sweep      int     `json:"sweep"`
	Cuts       int64   `json:"cuts"`
}

// studentRecord is a student's record as signed: Key names the record key
// the digest that follows it in the file was made with.
type studentRecord struct {
	Format  int        `json:"format"`
	Key     string     `json:"key,omitempty"`
	With    GradedWith `json:"graded_with"`
	Student *Student   `json:"student"`
}

// digestMember is how the digest begins in a record's file: the last
// member of its object, 64 hex digits, then the closing brace.
const digestMember = `,"digest":"`

// signRecord returns the file of the record data (a JSON object) signed
// with k: the object with a last member "digest", the HMAC-SHA-256 under k
// of data exactly as it was before the member was added, in hex. The
// digest is over bytes, not over a meaning of them: nothing is put in a
// canonical form before it is checked. Without a key, data is returned as
// it is, a record with no digest (which no run reuses).
func signRecord(data []byte, k *RecordKey) []byte {
	if k == nil {
		return data
	}
	sum := hex.EncodeToString(k.sum(data))
	out := make([]byte, 0, len(data)+len(digestMember)+len(sum)+1)
	out = append(out, data[:len(data)-1]...)
	out = append(out, digestMember...)
	out = append(out, sum...)
	return append(out, '"', '}')
}

// splitDigest undoes signRecord: the data that was signed, and the digest,
// when file ends as signRecord ends it.
func splitDigest(file []byte) (signed, digest []byte, ok bool) {
	n := len(file) - len(digestMember) - 2*sha256.Size - 2
	if n < 1 || string(file[n:n+len(digestMember)]) != digestMember || !bytes.HasSuffix(file, []byte(`"}`)) {
		return nil, nil, false
	}
	digest, err := hex.DecodeString(string(file[n+len(digestMember) : len(file)-2]))
	if err != nil {
		return nil, nil, false
	}
	signed = append(append([]byte(nil), file[:n]...), '}')
	return signed, digest, true
}

// recordKey is the record key of the results folder o: made on first use,
// never one inside the folder. An error means the records are written with
// no digest, and a later run grades them again.
func (o *Out) recordKey() (*RecordKey, error) {
	path, err := RecordKeyFile(os.Getenv)
	if err != nil {
		return nil, err
	}
	if insideFolder(o.Path, path) {
		return nil, fmt.Errorf("the record key file %s lies in the results folder %s, where it would be no secret", path, o.Path)
	}
	return EnsureRecordKey(path)
}

// WriteStudentRecord writes s's record, graded under with, to
// students/NAME/record.json (a new file renamed into place), signed with
// the record key (see RecordKeyFile; it is made on first use). When the
// key cannot be had, the record is written with no digest: the grading
// goes on, and a later run grades that student again, saying why.
func (o *Out) WriteStudentRecord(s *Student, with GradedWith) error {
	if s.Name == "" || s.Name == "." || s.Name == ".." || containsSlashOrNUL(s.Name) {
		return fmt.Errorf("writing the record: %q cannot be a folder's name", s.Name)
	}
	// Without a key the record carries no digest; a later run whose key
	// is still unusable says why as it grades the student again.
	key, _ := o.recordKey()
	rec := studentRecord{Format: studentRecordFormat, With: with, Student: s}
	if key != nil {
		rec.Key = key.id
	}
	data, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("writing %s's record: %w", s.Name, err)
	}
	o.mu.Lock()
	err = o.root.Mkdir(StudentDir(s.Name), 0o755)
	o.mu.Unlock()
	if err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("writing %s's record: %w", s.Name, err)
	}
	return o.WriteFile(StudentDir(s.Name)+"/"+StudentRecordFile, signRecord(data, key))
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
//
// A record is reused only when its digest shows that a grader holding the
// record key (see RecordKeyFile) wrote it as it is, and when it is a
// result the grader could have given (see LoadEarlierOf); any other is
// graded again, and WhyNot says what is wrong with it. LoadEarlier knows
// no lesson's catalogue: it checks a record's checks against each other
// only.
func LoadEarlier(dir string, with GradedWith) (*Earlier, error) {
	return LoadEarlierOf(dir, with, nil)
}

// LoadEarlierOf is LoadEarlier for the lesson whose catalogue is checks,
// the lesson graded now: a record is reused only when it lists exactly
// those checks, each with the catalogue's points as its maximum (nil
// checks: any). Whatever the catalogue, the record must be of with's
// lesson, give each check no more than its maximum and a check that did
// not pass no points, sum its points to its score and its maxima to its
// maximum, and have an outcome its checks bear out (passed with no check
// failed; wrong answers naming exactly the failed ones).
func LoadEarlierOf(dir string, with GradedWith, checks []grading.Check) (*Earlier, error) {
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
	key, keyErr := earlierKey(dir)
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
		r, why := openRecord(name, data, err, key, keyErr)
		if why == "" {
			why = otherThan(r.With, with)
		}
		if why == "" && r.Student.Result.Gradable && !r.Student.Result.Flaky {
			why = resultProblem(r.Student.Result, with.Lesson, checks)
		}
		if why != "" {
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

// earlierKey is the record key the records of the earlier results dir
// are checked with, or why there is none to check them with.
func earlierKey(dir string) (*RecordKey, error) {
	path, err := RecordKeyFile(os.Getenv)
	if err != nil {
		return nil, err
	}
	if insideFolder(dir, path) {
		return nil, fmt.Errorf("the record key file %s lies in the earlier results %s, where it would be no secret", path, dir)
	}
	return ReadRecordKey(path)
}

// openRecord reads data, the record of the student name (readErr the
// error reading it), checking its digest with key (keyErr: why there is
// none). It returns the record, or why it cannot be reused, in words for
// the teacher.
func openRecord(name string, data []byte, readErr error, key *RecordKey, keyErr error) (studentRecord, string) {
	const unreadable = "its record in the earlier results could not be read"
	var head struct {
		Format int    `json:"format"`
		Key    string `json:"key"`
		Digest string `json:"digest"`
	}
	if readErr != nil || json.Unmarshal(data, &head) != nil {
		return studentRecord{}, unreadable
	}
	switch {
	case head.Format == 1:
		return studentRecord{}, "its record was written by an older lab, whose records carry no digest, so nothing shows it is as the grader wrote it"
	case head.Format != studentRecordFormat:
		return studentRecord{}, fmt.Sprintf("its record is in format %d, which this lab does not read (it reads %d)", head.Format, studentRecordFormat)
	case keyErr != nil && !errors.Is(keyErr, fs.ErrNotExist):
		return studentRecord{}, "its record cannot be checked: " + keyErr.Error()
	case head.Digest == "":
		return studentRecord{}, "its record carries no digest, so nothing shows it is as the grader wrote it"
	case keyErr != nil:
		return studentRecord{}, "its record's digest was made with another record key: this grader has none (" + keyPath(keyErr) + " does not exist)"
	case head.Key != key.id:
		return studentRecord{}, fmt.Sprintf("its record's digest was made with another record key than this grader's (%s), so nothing shows this grader wrote it", key.File)
	}
	signed, digest, ok := splitDigest(data)
	if !ok || !hmac.Equal(digest, key.sum(signed)) {
		return studentRecord{}, "its record was changed after the grader wrote it: its digest does not match what it holds"
	}
	var r studentRecord
	if json.Unmarshal(signed, &r) != nil || r.Student == nil || r.Student.Result == nil {
		return studentRecord{}, unreadable
	}
	if r.Student.Name != name {
		return studentRecord{}, fmt.Sprintf("its record is the record of %s, copied into this student's folder", textesc.Line(r.Student.Name))
	}
	return r, ""
}

// keyPath is the file a record key error is about.
func keyPath(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Path
	}
	return "the record key file"
}

// resultProblem says what is wrong with res, a result of the lesson
// numbered lesson whose catalogue is checks (nil: unknown), for a result
// the grader would give, or "" when nothing is: see LoadEarlierOf. Its
// words are the teacher's, about the student's record.
func resultProblem(res *grading.Result, lesson int, checks []grading.Check) string {
	if res.Lesson != lesson {
		return fmt.Sprintf("its record holds a result of lesson %d, not of lesson %d", res.Lesson, lesson)
	}
	seen := map[string]bool{}
	score, maxScore := 0, 0
	var failed []string
	for _, c := range res.Checks {
		if seen[c.ID] {
			return fmt.Sprintf("its record lists check %s twice", textesc.Line(c.ID))
		}
		seen[c.ID] = true
		id := textesc.Line(c.ID)
		switch {
		case c.Status != grading.StatusPass && c.Status != grading.StatusFail && c.Status != grading.StatusSkip:
			return fmt.Sprintf("its record gives check %s the verdict %q, which is none the grader gives", id, textesc.Line(string(c.Status)))
		case c.MaxPoints < 0:
			return fmt.Sprintf("its record gives check %s a maximum of %d points", id, c.MaxPoints)
		case c.Points < 0 || c.Points > c.MaxPoints:
			return fmt.Sprintf("its record gives check %s %d points, but it is worth at most %d", id, c.Points, c.MaxPoints)
		case c.Status == grading.StatusFail && c.Points != 0:
			return fmt.Sprintf("its record gives check %s %d points, but the check failed, and a failed check earns none", id, c.Points)
		case c.Status == grading.StatusSkip && c.Points != 0:
			return fmt.Sprintf("its record gives check %s %d points, but the check was not judged, and such a check earns none", id, c.Points)
		}
		if c.Status == grading.StatusFail {
			failed = append(failed, c.ID)
		}
		score += c.Points
		maxScore += c.MaxPoints
	}
	if why := catalogueProblem(res, lesson, checks); why != "" {
		return why
	}
	switch {
	case res.Score != score:
		return fmt.Sprintf("its record says %d points of %d, but its checks add up to %d", res.Score, res.MaxScore, score)
	case res.MaxScore != maxScore:
		return fmt.Sprintf("its record says %d points of %d, but its checks are worth %d", res.Score, res.MaxScore, maxScore)
	}
	return outcomeProblem(res.Outcome, failed, res.Program)
}

// catalogueProblem says how the checks of res differ from the catalogue
// checks of the lesson numbered lesson, or "" (also when checks is nil).
func catalogueProblem(res *grading.Result, lesson int, checks []grading.Check) string {
	if checks == nil {
		return ""
	}
	points := map[string]int{}
	for _, c := range checks {
		points[c.ID] = c.Points
	}
	for _, c := range res.Checks {
		want, ok := points[c.ID]
		switch {
		case !ok:
			return fmt.Sprintf("its record lists a check %s, which lesson %d does not have", textesc.Line(c.ID), lesson)
		case c.MaxPoints != want:
			return fmt.Sprintf("its record says check %s is worth %d points, but lesson %d gives it %d", textesc.Line(c.ID), c.MaxPoints, lesson, want)
		}
	}
	if len(res.Checks) != len(checks) {
		var missing []string
		have := map[string]bool{}
		for _, c := range res.Checks {
			have[c.ID] = true
		}
		for _, c := range checks {
			if !have[c.ID] {
				missing = append(missing, c.ID)
			}
		}
		return fmt.Sprintf("its record lacks %s of lesson %d: %s", grading.Pick(len(missing), "a check", "checks"), lesson, strings.Join(missing, ", "))
	}
	return ""
}

// outcomeProblem says how the outcome o does not match a result whose
// failed checks are failed, or "" when it does; program is what the
// student wrote ("server", "client").
func outcomeProblem(o grading.Outcome, failed []string, program string) string {
	list := strings.Join(failed, ", ")
	switch o.Kind {
	case grading.OutcomePassed:
		if len(failed) > 0 {
			return fmt.Sprintf("its record says passed, but it lists %s: %s", grading.Pick(len(failed), "a failed check", "failed checks"), textesc.Line(list))
		}
	case grading.OutcomeWrongAnswers:
		if len(failed) == 0 {
			return "its record says wrong answers, but no check failed"
		}
		if want := fmt.Sprintf("%s failed: %s.", grading.CountOf(len(failed), "check", "checks"), list); !strings.HasPrefix(o.Detail, want) {
			return fmt.Sprintf("its record's outcome does not name the checks that failed (%s)", textesc.Line(list))
		}
	case grading.OutcomeProtocolViolation:
		if len(failed) == 0 {
			return "its record says the " + programWord(program) + " broke the protocol, but no check failed"
		}
	case grading.OutcomeExited, grading.OutcomeTimeout, grading.OutcomeOutputCap, grading.OutcomeMemory:
	default:
		return fmt.Sprintf("its record says the outcome %q, which no gradable result has", textesc.Line(string(o.Kind)))
	}
	return ""
}

// otherThan says how a record graded under was differs from now, or ""
// when only the time scale may differ.
func otherThan(was, now GradedWith) string {
	switch {
	case was.Lesson != now.Lesson:
		return fmt.Sprintf("it was graded against lesson %d, not lesson %d", was.Lesson, now.Lesson)
	case was.LabVersion != now.LabVersion || was.LabHash != now.LabHash:
		return fmt.Sprintf("it was graded by another lab (version %s), not this one (version %s)", was.LabVersion, now.LabVersion)
	case was.Sweep != now.Sweep || was.Cuts != now.Cuts:
		return fmt.Sprintf("it was graded with --sweep %d --cuts %d, not --sweep %d --cuts %d", was.Sweep, was.Cuts, now.Sweep, now.Cuts)
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
