package report

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/mcplab/mcplab/grading"
)

// githubLogMax caps the transcript printed to the Actions log.
const githubLogMax = 256 << 10

// githubErrorsMax is how many error annotations one step can make: GitHub
// Actions keeps 10 annotations of each type a step and drops the rest
// without a word (actions/toolkit, docs/problem-matchers.md, "Limitations").
const githubErrorsMax = 10

// writeGitHub writes what GitHub Classroom reads from a workflow step, to
// log (the step's stdout):
//
//   - the text report, then the transcript in a collapsed group, each
//     between ::stop-commands::TOKEN and ::TOKEN:: with a fresh random
//     token, so that no line of student output runs as a workflow command;
//     on top of that every such line is neutralised (see ghLogLine);
//   - an error annotation per failed check, its values escaped as workflow
//     commands require (% CR LF, and : , in properties); GitHub keeps 10
//     error annotations a step, so when more checks failed the tenth
//     annotation names the rest (the report in the log has them all);
//   - the two notices Classroom takes the points from:
//     "::notice title=Autograding complete::Points X/Y" and
//     "::notice title=Autograding report::{"totalPoints":X,"maxPoints":Y}".
//
// A run that could not be graded gets an error annotation titled "Could not
// grade" instead of the two notices: Classroom then records no points,
// rather than a 0 that would read as a grade.
//
// When summary is not nil, the Markdown report (as the markdown format
// writes it) goes there, for GITHUB_STEP_SUMMARY.
func writeGitHub(log, summary io.Writer, r *grading.Result, random io.Reader) error {
	var report bytes.Buffer
	if err := writeText(&report, r, false); err != nil {
		return err
	}
	transcript := transcriptText(r, githubLogMax)
	token, err := stopToken(random, report.String()+transcript)
	if err != nil {
		return err
	}

	ew := &errWriter{w: log}
	ew.printf("::stop-commands::%s\n", token)
	for _, line := range strings.Split(strings.TrimRight(report.String(), "\n"), "\n") {
		ew.printf("%s\n", ghLogLine(line))
	}
	ew.printf("::%s::\n", token)
	if transcript != "" {
		ew.printf("::group::Transcript of the graded run\n")
		ew.printf("::stop-commands::%s\n", token)
		for _, line := range strings.Split(strings.TrimRight(transcript, "\n"), "\n") {
			ew.printf("%s\n", ghLogLine(line))
		}
		ew.printf("::%s::\n", token)
		ew.printf("::endgroup::\n")
	}
	shown, rest := annotated(r)
	for _, c := range shown {
		ew.printf("::error title=%s::%s\n", ghProperty("Check "+c.ID+" failed"), ghData(clip(details(c), 4000)))
	}
	if len(rest) > 0 {
		ew.printf("::error title=%s::%s\n", ghProperty(fmt.Sprintf("%d more checks failed", len(rest))), ghData(clip(moreFailed(rest), 4000)))
	}
	if r.Gradable {
		ew.printf("::notice title=Autograding complete::Points %d/%d\n", r.Score, r.MaxScore)
		ew.printf("::notice title=Autograding report::{\"totalPoints\":%d,\"maxPoints\":%d}\n", r.Score, r.MaxScore)
	} else {
		ew.printf("::error title=Could not grade::%s\n", ghData(clip(strings.Join(problemLines(r), "\n"), 4000)))
	}
	if ew.err != nil {
		return ew.err
	}
	if summary == nil {
		return nil
	}
	var md bytes.Buffer
	if err := writeMarkdown(&md, r); err != nil {
		return err
	}
	if _, err := summary.Write(md.Bytes()); err != nil {
		return fmt.Errorf("writing the job summary: %w", err)
	}
	return nil
}

// stopToken draws a random token for ::stop-commands:: that does not occur
// in the text it will guard (so the text cannot end the pause early).
func stopToken(random io.Reader, guarded string) (string, error) {
	if random == nil {
		random = rand.Reader
	}
	for range 4 {
		var b [16]byte
		if _, err := io.ReadFull(random, b[:]); err != nil {
			return "", fmt.Errorf("drawing a stop-commands token: %w", err)
		}
		token := "lab-" + hex.EncodeToString(b[:])
		if !strings.Contains(guarded, token) {
			return token, nil
		}
	}
	return "", errors.New("drawing a stop-commands token: every token drawn occurs in the output")
}

// annotated splits the failed checks of r into those that get an error
// annotation of their own and the rest, which one more annotation names, so
// that the step makes at most githubErrorsMax error annotations (one of
// them "Could not grade" when r is not gradable).
func annotated(r *grading.Result) (shown, rest []grading.CheckResult) {
	var failed []grading.CheckResult
	for _, c := range r.Checks {
		if c.Status == grading.StatusFail {
			failed = append(failed, c)
		}
	}
	budget := githubErrorsMax
	if !r.Gradable {
		budget--
	}
	if len(failed) <= budget {
		return failed, nil
	}
	return failed[:budget-1], failed[budget-1:]
}

// moreFailed is the message of the annotation that names the failed checks
// left without one of their own.
func moreFailed(rest []grading.CheckResult) string {
	ids := make([]string, len(rest))
	for i, c := range rest {
		ids[i] = c.ID
	}
	return fmt.Sprintf("These checks failed too: %s. GitHub shows at most %d error annotations a step, so they have none of their own: "+
		"what each one expected and what it got is in the report at the top of this step's log, and in the job summary.",
		strings.Join(ids, ", "), githubErrorsMax)
}
