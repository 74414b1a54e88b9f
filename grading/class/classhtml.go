package class

import (
	"bytes"
	"net/url"

	"github.com/mcplab/mcplab/grading/report"
)

// IndexFile is the class page of a results folder.
const IndexFile = "index.html"

// reportPages are the student files the class page links to, the first
// one found: the HTML page, else the Markdown report, else the JSON result.
var reportPages = []string{report.FormatHTML, report.FormatMarkdown, report.FormatJSON}

// ClassPage is the class as the class page shows it: each student's
// status, score, outcome, flags and failed checks, and the link to the
// student's own report in out (the first of the HTML page, the Markdown
// report and the JSON result that out holds). Nothing in it depends on how
// the class was graded (one run or shards, the sandbox, the time taken), so
// a merged class gives the same page as one run.
func (c *Class) ClassPage(out *Out) *report.ClassPage {
	p := &report.ClassPage{Lesson: c.Lesson, MaxScore: c.MaxScore, Incomplete: c.Incomplete, StoppedBy: c.StoppedBy}
	for _, ch := range c.Checks {
		p.Checks = append(p.Checks, report.ClassCheck{ID: ch.ID, Title: ch.Title})
	}
	for _, s := range c.sorted() {
		r := s.Result
		row := report.ClassStudent{Name: s.Name, Status: "ungradable", Outcome: string(r.Outcome.Kind), Flaky: r.Flaky, Flags: s.Flags}
		if r.Gradable {
			row.Status, row.Score, row.Failed = "graded", r.Score, r.Failed()
		}
		if out != nil {
			for _, f := range reportPages {
				file, err := FileName(f)
				if err != nil {
					continue
				}
				if info, err := out.root.Lstat(StudentDir(s.Name) + "/" + file); err == nil && info.Mode().IsRegular() {
					row.Href = StudentsDir + "/" + url.PathEscape(s.Name) + "/" + file
					break
				}
			}
		}
		p.Students = append(p.Students, row)
	}
	for _, n := range c.NotGraded {
		p.Students = append(p.Students, report.ClassStudent{Name: n, Status: "not-graded", Outcome: "grading stopped", Flags: []string{"grading-stopped"}})
	}
	return p
}

// WriteIndex writes the class page, IndexFile, into out.
func (c *Class) WriteIndex(out *Out) error {
	var b bytes.Buffer
	if err := report.WriteClassHTML(&b, c.ClassPage(out)); err != nil {
		return err
	}
	return out.WriteFile(IndexFile, b.Bytes())
}
