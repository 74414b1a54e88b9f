package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"strconv"

	"github.com/mcplab/mcplab/grading"
)

// junitOutputMax caps the transcript in <system-out>.
const junitOutputMax = 1 << 20

// junitMessageMax caps the message attribute of <failure>, <error> and
// <skipped>; the full text is in the element's body.
const junitMessageMax = 1000

// junitSuites is the root element. It has no skipped attribute: the JUnit
// schema of Jenkins' xUnit plugin (junit-10.xsd, which tools that read JUnit
// follow) allows skipped on <testsuite> only, and refuses it here.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Time       string          `xml:"time,attr"`
	Properties []junitProperty `xml:"properties>property,omitempty"`
	Cases      []junitCase     `xml:"testcase"`
	SystemOut  *junitText      `xml:"system-out,omitempty"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Classname string        `xml:"classname,attr"`
	Name      string        `xml:"name,attr"`
	Failure   *junitProblem `xml:"failure,omitempty"`
	Error     *junitProblem `xml:"error,omitempty"`
	Skipped   *junitProblem `xml:"skipped,omitempty"`
}

type junitProblem struct {
	Message string `xml:"message,attr,omitempty"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",cdata"`
}

// junitText is an element whose text is written as CDATA, which keeps
// newlines and quotes readable (encoding/xml splits any "]]>" inside).
type junitText struct {
	Text string `xml:",cdata"`
}

// writeJUnit writes JUnit XML: one <testsuite name="lab.lessonN"> holding a
// <testcase classname="lessonN" name="CHECK-ID"> per check, in check order.
// A failed check has <failure message="…" type="RULE"> with the message and
// the expected and actual answers as its body; a skipped check has
// <skipped>. A run that could not be graded adds one more testcase, named
// "grading", with an <error> that gives the problem, so that CI shows an
// error rather than a failure. The score, outcome and seed are properties;
// the transcript is <system-out>. Bodies are CDATA and attributes are
// escaped by encoding/xml; clean has already removed every character XML
// 1.0 forbids.
func writeJUnit(w io.Writer, r *grading.Result) error {
	class := fmt.Sprintf("lesson%d", r.Lesson)
	suite := junitSuite{
		Name: "lab." + class,
		Time: seconds(r.DurationMS),
		Properties: []junitProperty{
			{Name: "gradable", Value: strconv.FormatBool(r.Gradable)},
			{Name: "score", Value: strconv.Itoa(r.Score)},
			{Name: "max_score", Value: strconv.Itoa(r.MaxScore)},
			{Name: "outcome", Value: string(r.Outcome.Kind)},
		},
	}
	if out := transcriptText(r, junitOutputMax); out != "" {
		suite.SystemOut = &junitText{Text: out}
	}
	if r.Outcome.Detail != "" {
		suite.Properties = append(suite.Properties, junitProperty{Name: "outcome_detail", Value: clip(r.Outcome.Detail, junitMessageMax)})
	}
	if r.Cuts != nil {
		suite.Properties = append(suite.Properties, junitProperty{Name: "sweep-cuts", Value: strconv.FormatInt(*r.Cuts, 10)})
	}
	if r.Flaky {
		suite.Properties = append(suite.Properties, junitProperty{Name: "flaky", Value: "true"})
	}
	for _, c := range r.Checks {
		tc := junitCase{Classname: class, Name: c.ID}
		switch c.Status {
		case grading.StatusPass:
		case grading.StatusFail:
			tc.Failure = &junitProblem{Message: clip(oneLine(c.Message, " "), junitMessageMax), Type: c.Rule, Text: details(c)}
			suite.Failures++
		default:
			tc.Skipped = &junitProblem{Message: clip(oneLine(c.Message, " "), junitMessageMax)}
			suite.Skipped++
		}
		suite.Cases = append(suite.Cases, tc)
	}
	if !r.Gradable {
		problem, more := problemParts(r)
		text := problem
		if more != "" {
			text += "\n" + more
		}
		suite.Cases = append(suite.Cases, junitCase{
			Classname: class,
			Name:      "grading",
			Error:     &junitProblem{Message: clip(oneLine(problem, " "), junitMessageMax), Type: string(r.Outcome.Kind), Text: text},
		})
		suite.Errors++
	}
	suite.Tests = len(suite.Cases)
	doc := junitSuites{
		Name:     "lab",
		Tests:    suite.Tests,
		Failures: suite.Failures,
		Errors:   suite.Errors,
		Time:     suite.Time,
		Suites:   []junitSuite{suite},
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("encoding XML: %w", err)
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// seconds formats milliseconds as seconds with three decimals.
func seconds(ms int64) string {
	ms = max(ms, 0)
	return fmt.Sprintf("%d.%03d", ms/1000, ms%1000)
}
