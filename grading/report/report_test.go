package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/mcplab/mcplab/grading"
	"github.com/mcplab/mcplab/lab/event"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// fixedRand gives the same stop-commands token on every run.
func fixedRand() *bytes.Reader { return bytes.NewReader(bytes.Repeat([]byte{0xab}, 64)) }

const fixedToken = "lab-abababababababababababababababab"

var fixtures = []struct {
	name   string
	result func() *grading.Result
}{
	{"pass", passing},
	{"fail", failing},
	{"ungradable", ungradable},
}

// render writes r in format and returns the output and, for github, the
// job summary.
func render(t *testing.T, format string, r *grading.Result, opt Options) (out, summary []byte) {
	t.Helper()
	var b, s bytes.Buffer
	if format == FormatGitHub {
		opt.Summary = &s
		if opt.Rand == nil {
			opt.Rand = fixedRand()
		}
	}
	if err := Write(&b, format, r, opt); err != nil {
		t.Fatalf("Write %s: %v", format, err)
	}
	return b.Bytes(), s.Bytes()
}

// golden compares got with testdata/NAME.golden, or rewrites it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./grading/report/ -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from %s (run with -update and review the diff)\n--- got:\n%s", name, path, got)
	}
}

func TestGolden(t *testing.T) {
	for _, fx := range fixtures {
		for _, format := range Formats() {
			t.Run(fx.name+"/"+format, func(t *testing.T) {
				out, summary := render(t, format, fx.result(), Options{})
				golden(t, fx.name+"."+format, out)
				if format == FormatGitHub {
					golden(t, fx.name+".github-summary", summary)
				}
			})
		}
	}
	t.Run("fail/text-color", func(t *testing.T) {
		out, _ := render(t, FormatText, failing(), Options{Color: true})
		golden(t, "fail.text-color", out)
	})
}

// TestNoRawControls: whatever the format, no terminal escape, other control
// character or invalid UTF-8 from student text gets through.
func TestNoRawControls(t *testing.T) {
	colours := regexp.MustCompile(`\x1b\[(0|1|31|32|33)m`)
	for _, fx := range fixtures {
		for _, format := range Formats() {
			for _, color := range []bool{false, true} {
				out, summary := render(t, format, fx.result(), Options{Color: color})
				for _, b := range [][]byte{out, summary} {
					s := string(b)
					if format == FormatText && color {
						s = colours.ReplaceAllString(s, "")
					}
					if !utf8.ValidString(s) {
						t.Errorf("%s/%s: output is not valid UTF-8", fx.name, format)
					}
					for _, r := range s {
						if (r < 0x20 && r != '\n' && r != '\t') || (r >= 0x7f && r <= 0x9f) || r == 0x202e {
							t.Errorf("%s/%s (color %v): raw control %U in output", fx.name, format, color, r)
							break
						}
					}
				}
			}
		}
	}
}

func TestFormatsAllWork(t *testing.T) {
	want := []string{"text", "json", "junit", "prairielearn", "gradescope", "exercism", "github", "markdown", "html"}
	if got := Formats(); !slices.Equal(got, want) {
		t.Fatalf("Formats() = %v, want %v", got, want)
	}
	err := Write(&bytes.Buffer{}, "pdf", passing(), Options{})
	if err == nil || !strings.Contains(err.Error(), `unknown format "pdf"`) || !strings.Contains(err.Error(), "markdown") {
		t.Errorf("unknown format: err = %v, want one naming the format and listing the known ones", err)
	}
	if err := Write(&bytes.Buffer{}, FormatText, nil, Options{}); err == nil {
		t.Error("nil result: no error")
	}
}

type failWriter struct{}

var errDisk = errors.New("disk full")

func (failWriter) Write([]byte) (int, error) { return 0, errDisk }

func TestWriteErrorIsWrapped(t *testing.T) {
	for _, format := range Formats() {
		err := Write(failWriter{}, format, failing(), Options{Rand: fixedRand()})
		if !errors.Is(err, errDisk) || !strings.Contains(err.Error(), format) {
			t.Errorf("%s: err = %v, want it to wrap the write error and name the format", format, err)
		}
	}
	err := Write(&bytes.Buffer{}, FormatGitHub, failing(), Options{Rand: fixedRand(), Summary: failWriter{}})
	if !errors.Is(err, errDisk) || !strings.Contains(err.Error(), "summary") {
		t.Errorf("github summary: err = %v, want the write error of the summary", err)
	}
}

func TestText(t *testing.T) {
	out, _ := render(t, FormatText, failing(), Options{})
	lines := strings.Split(string(out), "\n")
	if lines[0] != "Lesson 1: score 7/10. Outcome: wrong-answers (some answers were wrong or missing: 1 check failed)" {
		t.Errorf("header = %q", lines[0])
	}
	var verdicts []string
	for _, l := range lines {
		if len(l) > 5 && (strings.HasPrefix(l, "PASS ") || strings.HasPrefix(l, "FAIL ") || strings.HasPrefix(l, "SKIP ")) {
			verdicts = append(verdicts, strings.Fields(l)[0]+" "+strings.Fields(l)[1])
		}
	}
	want := []string{"PASS framing.split", "FAIL errors.parse", "PASS ids.exact", "PASS notifications.silent", "PASS stdout.messages-only", "SKIP lifecycle.exit-on-eof"}
	if !slices.Equal(verdicts, want) {
		t.Errorf("check lines %q, want %q", verdicts, want)
	}
	for _, want := range []string{
		"(0/2)  answers a line that is not JSON",
		`      Expected: {"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`,
		`      Actual:   ::error::pwned <script>alert(1)</script> ]]> a|b ` + "`x` ```` " + `\x1b[31mred\x1b[0m %0A::warning::enc \xff\xfe`,
		"SKIP lifecycle.exit-on-eof  (0/1)  exits when stdin closes\n      Not judged:",
		"4 passed, 1 failed, 1 skipped: 7/10 points.",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("text report lacks %q\n%s", want, out)
		}
	}
	if bytes.ContainsRune(out, 0x1b) {
		t.Error("text without colour contains ESC")
	}
	colored, _ := render(t, FormatText, failing(), Options{Color: true})
	for _, want := range []string{"\x1b[32mPASS\x1b[0m", "\x1b[31mFAIL\x1b[0m", "\x1b[33mSKIP\x1b[0m"} {
		if !bytes.Contains(colored, []byte(want)) {
			t.Errorf("coloured text lacks %q", want)
		}
	}
	un, _ := render(t, FormatText, ungradable(), Options{})
	last := strings.Split(strings.TrimRight(string(un), "\n"), "\n")
	if !strings.HasPrefix(last[len(last)-2], "Could not grade: The server exited with status 2") || last[len(last)-1] != "Detail: exit status 2" {
		t.Errorf("ungradable text ends with %q", last[len(last)-2:])
	}
}

func TestJSON(t *testing.T) {
	for _, fx := range fixtures {
		out, _ := render(t, FormatJSON, fx.result(), Options{})
		var got grading.Result
		dec := json.NewDecoder(bytes.NewReader(out))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&got); err != nil {
			t.Fatalf("%s: decode: %v", fx.name, err)
		}
		want := sanitized(fx.result())
		wantJSON, _ := json.Marshal(want)
		gotJSON, _ := json.Marshal(&got)
		if !bytes.Equal(gotJSON, wantJSON) {
			t.Errorf("%s: decoded result differs from the sanitised input\n got %s\nwant %s", fx.name, gotJSON, wantJSON)
		}
		if !strings.Contains(string(out), "\n  \"lesson\": 1,\n") {
			t.Errorf("%s: not indented with two spaces", fx.name)
		}
		var keys map[string]json.RawMessage
		if err := json.Unmarshal(out, &keys); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"lesson", "gradable", "score", "max_score", "outcome", "checks", "transcript", "duration_ms"} {
			if _, ok := keys[k]; !ok {
				t.Errorf("%s: key %q missing", fx.name, k)
			}
		}
	}
	out, _ := render(t, FormatJSON, failing(), Options{})
	var got grading.Result
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	if got.Checks[1].Actual != `::error::pwned <script>alert(1)</script> ]]> a|b `+"`x` ```` "+`\x1b[31mred\x1b[0m %0A::warning::enc \xff\xfe`+"\n  ::error::second line" {
		t.Errorf("actual = %q, want the escapes visible", got.Checks[1].Actual)
	}
}

// The documented shape of PrairieLearn's results.json.
type plShape struct {
	Gradable     bool     `json:"gradable"`
	Score        *float64 `json:"score"`
	Message      string   `json:"message"`
	Output       string   `json:"output"`
	FormatErrors []string `json:"format_errors"`
	Tests        []struct {
		Name        string `json:"name"`
		Description string `json:"description"`
		Points      int    `json:"points"`
		MaxPoints   int    `json:"max_points"`
		Message     string `json:"message"`
		Output      string `json:"output"`
	} `json:"tests"`
}

func decodeStrict(t *testing.T, b []byte, v any) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("decode %T: %v\n%s", v, err, b)
	}
}

func TestPrairieLearn(t *testing.T) {
	out, _ := render(t, FormatPrairieLearn, failing(), Options{})
	var pl plShape
	decodeStrict(t, out, &pl)
	if !pl.Gradable || pl.Score == nil || *pl.Score != 0.7 || len(pl.Tests) != 6 {
		t.Fatalf("gradable %v score %v tests %d, want true 0.7 6", pl.Gradable, pl.Score, len(pl.Tests))
	}
	tc := pl.Tests[1]
	if tc.Name != "errors.parse" || tc.Points != 0 || tc.MaxPoints != 2 || !strings.Contains(tc.Output, "Expected: ") {
		t.Errorf("test 1 = %+v", tc)
	}
	if !strings.Contains(pl.Output, "== scenario bad-lines ==") {
		t.Errorf("output lacks the transcript: %q", pl.Output)
	}

	out, _ = render(t, FormatPrairieLearn, ungradable(), Options{})
	pl = plShape{}
	decodeStrict(t, out, &pl)
	if pl.Gradable || pl.Score != nil || len(pl.FormatErrors) == 0 || len(pl.Tests) != 0 {
		t.Errorf("ungradable: gradable %v score %v format_errors %q tests %d", pl.Gradable, pl.Score, pl.FormatErrors, len(pl.Tests))
	}
	if !strings.HasPrefix(pl.FormatErrors[0], "The server exited with status 2") {
		t.Errorf("format_errors[0] = %q", pl.FormatErrors[0])
	}
}

// hugeResult has a transcript of about 3 MB.
func hugeResult() *grading.Result {
	r := failing()
	line := strings.Repeat("<&\"x", 250) // escapes to more bytes in JSON
	for i := range 3000 {
		r.Transcript = append(r.Transcript, grading.Event{Scenario: "flood", Record: event.Record{At: time.Duration(i) * time.Millisecond, Kind: event.Stderr, Text: line}})
	}
	return r
}

func TestPlatformLimits(t *testing.T) {
	for _, c := range []struct {
		format string
		limit  int
	}{{FormatPrairieLearn, 1 << 20}, {FormatGradescope, 1 << 20}, {FormatExercism, 500_000}} {
		out, _ := render(t, c.format, hugeResult(), Options{})
		if len(out) > c.limit {
			t.Errorf("%s: %d bytes, over its limit of %d", c.format, len(out), c.limit)
		}
		if !json.Valid(out) {
			t.Errorf("%s: not valid JSON", c.format)
		}
		if c.format != FormatExercism && !strings.Contains(string(out), "[cut: ") {
			t.Errorf("%s: a cut output carries no marker", c.format)
		}
	}
	md, _ := render(t, FormatMarkdown, hugeResult(), Options{})
	if len(md) > 1<<20 || !strings.Contains(string(md), "[cut: ") {
		t.Errorf("markdown: %d bytes, marker %v", len(md), strings.Contains(string(md), "[cut: "))
	}
}

type gsShape struct {
	Score            int    `json:"score"`
	ExecutionTime    int    `json:"execution_time"`
	Output           string `json:"output"`
	OutputFormat     string `json:"output_format"`
	TestOutputFormat string `json:"test_output_format"`
	Tests            []struct {
		Score      int    `json:"score"`
		MaxScore   int    `json:"max_score"`
		Status     string `json:"status"`
		Name       string `json:"name"`
		Number     string `json:"number"`
		Output     string `json:"output"`
		Visibility string `json:"visibility"`
	} `json:"tests"`
}

func TestGradescope(t *testing.T) {
	out, _ := render(t, FormatGradescope, failing(), Options{})
	var gs gsShape
	decodeStrict(t, out, &gs)
	if gs.Score != 7 || gs.ExecutionTime != 3 || gs.OutputFormat != "text" || len(gs.Tests) != 6 {
		t.Fatalf("score %d time %d format %q tests %d", gs.Score, gs.ExecutionTime, gs.OutputFormat, len(gs.Tests))
	}
	var statuses []string
	for i, tc := range gs.Tests {
		statuses = append(statuses, tc.Status)
		if tc.Visibility != "visible" || tc.Number != string(rune('1'+i)) {
			t.Errorf("test %d: visibility %q number %q", i, tc.Visibility, tc.Number)
		}
	}
	if want := []string{"passed", "failed", "passed", "passed", "passed", "failed"}; !slices.Equal(statuses, want) {
		t.Errorf("statuses %v, want %v", statuses, want)
	}
	if gs.Tests[1].Name != "errors.parse: answers a line that is not JSON with -32700 and id null" || !strings.Contains(gs.Tests[1].Output, "Actual:") {
		t.Errorf("failed test = %+v", gs.Tests[1])
	}

	out, _ = render(t, FormatGradescope, ungradable(), Options{})
	gs = gsShape{}
	decodeStrict(t, out, &gs)
	if gs.Score != 0 || len(gs.Tests) != 0 || !strings.Contains(gs.Output, "could not be graded") {
		t.Errorf("ungradable: score %d tests %d output %q", gs.Score, len(gs.Tests), gs.Output)
	}
	// Gradescope records a score that is present, 0 included, as the grade;
	// a run that could not be graded has none.
	var fields map[string]json.RawMessage
	decodeStrict(t, out, &fields)
	if _, ok := fields["score"]; ok {
		t.Errorf("ungradable: results.json has a score, which Gradescope records as a grade:\n%s", out)
	}
}

type exShape struct {
	Version int     `json:"version"`
	Status  string  `json:"status"`
	Message *string `json:"message"`
	Tests   []struct {
		Name     string `json:"name"`
		Status   string `json:"status"`
		Message  string `json:"message"`
		Output   string `json:"output"`
		TestCode string `json:"test_code"`
		TaskID   *int   `json:"task_id"`
	} `json:"tests"`
}

func TestExercism(t *testing.T) {
	for _, c := range []struct {
		result   func() *grading.Result
		status   string
		statuses []string
	}{
		{passing, "pass", []string{"pass", "pass", "pass", "pass", "pass", "pass"}},
		{failing, "fail", []string{"pass", "fail", "pass", "pass", "pass", "error"}},
		{ungradable, "error", []string{"error", "error", "error", "error", "error", "error"}},
	} {
		out, _ := render(t, FormatExercism, c.result(), Options{})
		var ex exShape
		decodeStrict(t, out, &ex)
		var statuses, names []string
		for _, tc := range ex.Tests {
			statuses = append(statuses, tc.Status)
			names = append(names, strings.SplitN(tc.Name, ":", 2)[0])
			if tc.TestCode == "" || utf8.RuneCountInString(tc.Output) > 500 {
				t.Errorf("%s: test %q: test_code %q, output of %d chars", c.status, tc.Name, tc.TestCode, utf8.RuneCountInString(tc.Output))
			}
		}
		if ex.Version != 3 || ex.Status != c.status || !slices.Equal(statuses, c.statuses) {
			t.Errorf("version %d status %q statuses %v, want 3 %q %v", ex.Version, ex.Status, statuses, c.status, c.statuses)
		}
		var ids []string
		for _, k := range checks() {
			ids = append(ids, k.ID)
		}
		if !slices.Equal(names, ids) {
			t.Errorf("tests out of check order: %v", names)
		}
		if (ex.Message != nil) != (c.status == "error") {
			t.Errorf("%s: message %v, want one exactly when status is error", c.status, ex.Message)
		}
	}

	// The stderr log goes with the first test that did not pass, cut to 500
	// characters with Exercism's note.
	out, _ := render(t, FormatExercism, hugeResult(), Options{})
	var ex exShape
	decodeStrict(t, out, &ex)
	o := ex.Tests[1].Output
	if utf8.RuneCountInString(o) != 500 || !strings.HasSuffix(o, "\nOutput was truncated. Please limit to 500 chars") {
		t.Errorf("output of %d chars ending %q", utf8.RuneCountInString(o), o[max(0, len(o)-60):])
	}
	if ex.Tests[5].Output != "" {
		t.Errorf("the log is given twice")
	}
}

// The documented shape of JUnit XML.
type juShape struct {
	XMLName  xml.Name `xml:"testsuites"`
	Tests    int      `xml:"tests,attr"`
	Failures int      `xml:"failures,attr"`
	Errors   int      `xml:"errors,attr"`
	// Skipped is absent: junit-10.xsd allows it on <testsuite> only.
	Skipped *int      `xml:"skipped,attr"`
	Suites  []juSuite `xml:"testsuite"`
}

// juSuite is one <testsuite> of juShape.
type juSuite struct {
	Name     string `xml:"name,attr"`
	Tests    int    `xml:"tests,attr"`
	Failures int    `xml:"failures,attr"`
	Errors   int    `xml:"errors,attr"`
	Skipped  int    `xml:"skipped,attr"`
	Time     string `xml:"time,attr"`
	Cases    []struct {
		Classname string `xml:"classname,attr"`
		Name      string `xml:"name,attr"`
		Failure   *struct {
			Message string `xml:"message,attr"`
			Text    string `xml:",chardata"`
		} `xml:"failure"`
		Error *struct {
			Message string `xml:"message,attr"`
		} `xml:"error"`
		Skipped *struct{} `xml:"skipped"`
	} `xml:"testcase"`
	SystemOut string `xml:"system-out"`
}

// caseCounts counts the suite's testcases that failed, that erred and that
// were skipped.
func (s juSuite) caseCounts() (failures, errors, skipped int) {
	for _, tc := range s.Cases {
		if tc.Failure != nil {
			failures++
		}
		if tc.Error != nil {
			errors++
		}
		if tc.Skipped != nil {
			skipped++
		}
	}
	return failures, errors, skipped
}

func TestJUnit(t *testing.T) {
	for _, c := range []struct {
		name                                  string
		result                                func() *grading.Result
		tests, failures, errors, skipped, per int
	}{
		{"pass", passing, 6, 0, 0, 0, 6},
		{"fail", failing, 6, 1, 0, 1, 6},
		{"ungradable", ungradable, 7, 0, 1, 6, 7},
	} {
		out, _ := render(t, FormatJUnit, c.result(), Options{})
		if !bytes.HasPrefix(out, []byte(`<?xml version="1.0" encoding="UTF-8"?>`)) {
			t.Errorf("%s: no XML declaration", c.name)
		}
		var ju juShape
		if err := xml.Unmarshal(out, &ju); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if len(ju.Suites) != 1 {
			t.Fatalf("%s: %d suites", c.name, len(ju.Suites))
		}
		s := ju.Suites[0]
		for _, tc := range s.Cases {
			if tc.Classname != "lesson1" {
				t.Errorf("%s: classname %q", c.name, tc.Classname)
			}
		}
		f, e, sk := s.caseCounts()
		if ju.Skipped != nil {
			t.Errorf("%s: <testsuites> has skipped=%d, which junit-10.xsd refuses there", c.name, *ju.Skipped)
		}
		got := []int{ju.Tests, ju.Failures, ju.Errors, s.Tests, s.Failures, s.Errors, s.Skipped, len(s.Cases), f, e, sk}
		want := []int{c.tests, c.failures, c.errors, c.tests, c.failures, c.errors, c.skipped, c.per, c.failures, c.errors, c.skipped}
		if !slices.Equal(got, want) || s.Name != "lab.lesson1" {
			t.Errorf("%s: suite %q counts %v, want %v", c.name, s.Name, got, want)
		}
		if c.name == "fail" {
			fc := s.Cases[1].Failure
			if s.Cases[1].Name != "errors.parse" || fc == nil || !strings.Contains(fc.Text, "<script>alert(1)</script> ]]> a|b") || !strings.Contains(fc.Text, `\x1b[31m`) {
				t.Errorf("failure case = %+v", s.Cases[1])
			}
			if !strings.Contains(s.SystemOut, "<- ::error::pwned") || s.Time != "2.050" {
				t.Errorf("system-out %q time %q", s.SystemOut, s.Time)
			}
		}
		if c.name == "ungradable" {
			last := s.Cases[len(s.Cases)-1]
			if last.Name != "grading" || last.Error == nil || !strings.HasPrefix(last.Error.Message, "The server exited") {
				t.Errorf("ungradable error case = %+v", last)
			}
		}
	}
}

func TestGitHub(t *testing.T) {
	out, summary := render(t, FormatGitHub, failing(), Options{})
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if !slices.Contains(lines, "::notice title=Autograding complete::Points 7/10") {
		t.Errorf("no exact Points notice in\n%s", out)
	}
	if !slices.Contains(lines, `::notice title=Autograding report::{"totalPoints":7,"maxPoints":10}`) {
		t.Errorf("no report notice in\n%s", out)
	}
	ours := regexp.MustCompile(`^::(stop-commands::` + fixedToken + `|` + fixedToken + `::|group::Transcript of the graded run|endgroup::|error title=[^:]*::.*|notice title=Autograding (complete|report)::.*)$`)
	stopped := false
	for i, line := range lines {
		if strings.Contains(line, "##[") {
			t.Errorf("line %d carries a legacy workflow command: %q", i, line)
		}
		trimmed := strings.TrimLeftFunc(line, unicode.IsSpace)
		if !strings.HasPrefix(trimmed, "::") {
			continue
		}
		if trimmed != line || !ours.MatchString(line) {
			t.Errorf("line %d starts with :: and is not ours: %q", i, line)
		}
		switch line {
		case "::stop-commands::" + fixedToken:
			stopped = true
		case "::" + fixedToken + "::":
			stopped = false
		default:
			if stopped {
				t.Errorf("line %d: our command %q inside a stop-commands block", i, line)
			}
		}
	}
	// The annotation of the failed check is one line whose data unescapes
	// to the message.
	var annotation string
	for _, line := range lines {
		if strings.HasPrefix(line, "::error title=Check errors.parse failed::") {
			annotation = line
		}
	}
	if !strings.Contains(annotation, "%0AExpected: ") || !strings.Contains(annotation, "%250A::warning::enc") {
		t.Errorf("annotation not escaped as workflow data: %q", annotation)
	}
	if !bytes.HasPrefix(summary, []byte("# Lesson 1: 7/10 points\n")) {
		t.Errorf("summary starts %q", summary[:min(len(summary), 40)])
	}

	// Without a summary writer there is no summary, and the log is the same.
	var b bytes.Buffer
	if err := Write(&b, FormatGitHub, failing(), Options{Rand: fixedRand()}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b.Bytes(), out) {
		t.Error("the log depends on whether a summary is written")
	}

	// Not gradable: no points, an error annotation instead.
	out, _ = render(t, FormatGitHub, ungradable(), Options{})
	if bytes.Contains(out, []byte("Points ")) || !bytes.Contains(out, []byte("\n::error title=Could not grade::The server exited with status 2")) {
		t.Errorf("ungradable github output:\n%s", out)
	}
}

func TestStopTokenAvoidsTheText(t *testing.T) {
	first := "lab-" + strings.Repeat("00", 16)
	random := bytes.NewReader(append(make([]byte, 16), bytes.Repeat([]byte{1}, 16)...))
	token, err := stopToken(random, "student wrote ::"+first+"::")
	if err != nil || token != "lab-"+strings.Repeat("01", 16) {
		t.Errorf("token %q, err %v: want the second draw", token, err)
	}
	if _, err := stopToken(bytes.NewReader(nil), ""); err == nil {
		t.Error("an empty random source gave a token")
	}
}

func TestMarkdown(t *testing.T) {
	for _, fx := range fixtures {
		out, _ := render(t, FormatMarkdown, fx.result(), Options{})
		s := string(out)
		if strings.Contains(strings.ToLower(s), "<script") || strings.Contains(s, "<b>") {
			t.Errorf("%s: raw HTML in markdown", fx.name)
		}
		// Every row of the checks table has exactly five unescaped pipes.
		for _, line := range strings.Split(s, "\n") {
			if strings.HasPrefix(line, "| ✅") || strings.HasPrefix(line, "| ❌") || strings.HasPrefix(line, "| ⏭️") {
				if n := len(regexp.MustCompile(`(^|[^\\])\|`).FindAllString(line, -1)); n != 5 {
					t.Errorf("%s: row has %d cell borders: %q", fx.name, n, line)
				}
			}
		}
		if n := strings.Count(s, "```mermaid\nsequenceDiagram\n    participant Grader\n    participant Server\n"); n != len(byScenario(fx.result().Transcript)) {
			t.Errorf("%s: %d diagrams", fx.name, n)
		}
	}
	out, _ := render(t, FormatMarkdown, failing(), Options{})
	s := string(out)
	for _, want := range []string{
		"| Expected | Actual |\n| --- | --- |\n| {\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700,\"message\":\"Parse error\"}} | ::error::pwned &lt;script&gt;alert(1)&lt;/script&gt; \\]\\]&gt; a\\|b \\`x\\` \\`\\`\\`\\` \\\\x1b\\[31mred\\\\x1b\\[0m %0A::warning::enc \\\\xff\\\\xfe<br>  ::error::second line |",
		// The transcript holds a run of four backticks, so its fence has five.
		"`````text\n",
		"    Server-->>Grader: #58;#58;error#58;#58;pwned #lt;script#gt;alert(1)#lt;/script#gt; ]]#gt; a|b #96;x#96; ",
		"    Note over Grader,Server: FAIL errors.parse#58; expected #123;#quot;jsonrpc",
		"    Note right of Server: stderr #58;#58;error#58;#58;pwned\n",
		"    Grader->>Server: not json at all |\n",
		"     5ms  <- ::error::pwned \\u003cscript\\u003ealert(1)\\u003c/script\\u003e ]]\\u003e a|b",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("markdown lacks %q", want)
		}
	}
	// The failure note comes right after the answer it quotes.
	i := strings.Index(s, "    Server-->>Grader: #58;#58;error")
	j := strings.Index(s, "    Note over Grader,Server: FAIL errors.parse")
	if i < 0 || j < i || strings.Count(s[i:j], "\n") != 1 {
		t.Errorf("the failure note is not right after the wrong answer")
	}
}
