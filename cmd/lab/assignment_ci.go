package main

import (
	"fmt"
	"strings"
)

// ciParams is what the generated README and CI files say.
type ciParams struct {
	Lesson  int
	Title   string
	Lang    string
	Version string // the lab release CI installs
	Go      string // the Go series CI installs it with
	Scale   string // LAB_TIME_SCALE
	Build   bool   // the starter has a build script
	Main    string // the file the student edits
	Needs   string
	Program string // what the student writes: "server" or "client"
	RunNote string // what the README says run does (grading.Setup's RunNote)
	// LessonDir is the folder of the repository that holds the lesson's
	// grading files, for a lesson that is not built into the lab; "" for
	// a built-in one.
	LessonDir string
}

// lessonFlag is the flag that grades with the repository's copy of the
// lesson, " --lesson-dir DIR", or "" for a built-in lesson.
func (p ciParams) lessonFlag() string {
	if p.LessonDir == "" {
		return ""
	}
	return " --lesson-dir " + p.LessonDir
}

// gradeCommands are the shell lines of the grading step, the same in both
// CI systems but for the report format. The build runs apart from the
// grade so that a server that does not compile says so, as one error.
func (p ciParams) gradeCommands(format, out string) []string {
	lines := []string{`export LAB_WORK="$(mktemp -d)"`}
	if p.Build {
		msg := "./build failed: the " + p.Program + " does not compile (its errors are above), so it was not graded"
		if format == "github" {
			lines = append(lines, `./build || { echo "::error title=Could not grade::`+msg+`"; exit 2; }`)
		} else {
			lines = append(lines, `./build || { echo "`+msg+`"; exit 2; }`)
		}
	}
	g := `lab grade --lesson "$LAB_LESSON"` + p.lessonFlag() + ` --time-scale "$LAB_TIME_SCALE" --format ` + format
	if out != "" {
		g += " --out " + out
	}
	return append(lines, g+" -- ./run")
}

// variables are the CI variables both systems give the grading step, as
// YAML mapping lines indented by indent.
func (p ciParams) variables(indent string) string {
	lines := []string{
		"# The lab release that grades: pinned, so every push is graded by the",
		"# same checks. Change it only between assignments.",
		"LAB_VERSION: " + p.Version,
		fmt.Sprintf("LAB_LESSON: \"%d\"", p.Lesson),
		"# Every deadline of the grader is multiplied by this: shared runners",
		"# are slower than a laptop. Raise it if a run is flaky.",
		"LAB_TIME_SCALE: \"" + p.Scale + "\"",
	}
	return indent + strings.Join(lines, "\n"+indent) + "\n"
}

func githubWorkflow(p ciParams) string {
	var b strings.Builder
	fmt.Fprintf(&b, `# Grades every push with mcplab's grader: lesson %d (%s), %s starter.
# "lab assignment" wrote this file; README.md says how it works.
name: Grade
on:
  push:
  pull_request:
  workflow_dispatch:
permissions:
  contents: read
jobs:
  grade:
    runs-on: ubuntu-latest
    timeout-minutes: 15
    env:
%s    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-go@v5
        with:
          go-version: "%s"
          cache: false
`, p.Lesson, p.Title, p.Lang, p.variables("      "), p.Go)
	switch p.Lang {
	case "python":
		b.WriteString("      - uses: actions/setup-python@v5\n        with:\n          python-version: \"3.12\"\n")
	case "javascript":
		b.WriteString("      - uses: actions/setup-node@v4\n        with:\n          node-version: \"22\"\n")
	}
	b.WriteString(`      - name: Install the lab
        run: go install "` + modulePath + `/cmd/lab@${LAB_VERSION}"
      # Prints GitHub Classroom's "Points X/Y" notice, an annotation per
      # failed check, and the Markdown report to the job summary.
      - name: Grade
        id: grade
        run: |
`)
	for _, l := range p.gradeCommands("github", "") {
		b.WriteString("          " + l + "\n")
	}
	return b.String()
}

func gitlabCI(p ciParams) string {
	var b strings.Builder
	fmt.Fprintf(&b, `# Grades every push with mcplab's grader: lesson %d (%s), %s starter.
# "lab assignment" wrote this file; README.md says how it works. Each check
# is a test case of the JUnit report: see the pipeline's Tests tab.
grade:
  image: golang:%s-bookworm
  timeout: 15 minutes
  variables:
%s  before_script:
`, p.Lesson, p.Title, p.Lang, p.Go, p.variables("    "))
	switch p.Lang {
	case "python":
		b.WriteString("    - apt-get update -qq && apt-get install -y -qq --no-install-recommends python3\n")
	case "javascript":
		b.WriteString("    - apt-get update -qq && apt-get install -y -qq --no-install-recommends nodejs\n")
	}
	b.WriteString(`    - go install "` + modulePath + `/cmd/lab@${LAB_VERSION}"
    - export PATH="$(go env GOPATH)/bin:$PATH"
  script:
`)
	for _, l := range p.gradeCommands("junit", "report.xml") {
		b.WriteString("    - " + yamlPlain(l) + "\n")
	}
	b.WriteString(`  artifacts:
    when: always
    paths:
      - report.xml
    reports:
      junit: report.xml
`)
	return b.String()
}

// yamlPlain quotes a shell line for a YAML sequence item when it holds
// characters YAML would read otherwise.
func yamlPlain(s string) string {
	if strings.ContainsAny(s, ":{}[]#&*!|>'\"%@`,") || strings.HasPrefix(s, "-") {
		return "'" + strings.ReplaceAll(s, "'", "''") + "'"
	}
	return s
}

func studentReadme(p ciParams) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Lesson %d: %s (%s)\n\n", p.Lesson, p.Title, p.Lang)
	fmt.Fprintf(&b, `Your %s for lesson %d of mcplab. It starts as the lesson's starter: what it
already does, and the parts left for you (each marked with a TODO in
[%s](%s)), are in [STARTER.md](STARTER.md). Needs: %s.

Every push is graded by the lab, with the same checks as on your machine.

## Grade it yourself

Install the same lab CI uses (it needs Go):

`+"```sh\ngo install %s/cmd/lab@%s\n```"+`

Then, from this folder:

`, p.Program, p.Lesson, p.Main, p.Main, p.Needs, modulePath, p.Version)
	b.WriteString("```sh\nexport LAB_WORK=\"$(mktemp -d)\"\n")
	if p.Build {
		b.WriteString("./build\n")
	}
	fmt.Fprintf(&b, "lab grade --lesson %d%s -- ./run\n```\n\n", p.Lesson, p.lessonFlag())
	b.WriteString(p.RunNote)
	if p.Build {
		b.WriteString("; `build` compiles it into `$LAB_WORK` first. Run `./build` again after each change")
	}
	// The placeholders are braced so that no word of the text (LAB_VERSION)
	// is taken for one.
	b.WriteString(strings.NewReplacer("{MODULE}", modulePath, "{VERSION}", p.Version, "{PROGRAM}", p.Program).Replace(`. The grade lists every check, what happened, what was expected, and how to
fix it; it exits 0 when every check passes, 1 when one fails, 2 when it could
not grade.

## What CI does

- **GitHub** ([.github/workflows/grade.yml](.github/workflows/grade.yml)): the
  step "Grade" prints the report, marks each failed check as an error, and
  writes the Markdown report to the run's summary page. Its last lines,
  "Points X/Y", are what GitHub Classroom records.
- **GitLab** ([.gitlab-ci.yml](.gitlab-ci.yml)): the job "grade" writes a JUnit
  report (` + "`report.xml`" + `); each check is one test case in the pipeline's Tests
  tab, a failed one with what was expected.

The job fails (red) while a check fails: that is the grade, not a broken CI.

## How the lab gets into CI, and why

CI builds the lab from source with ` + "`go install {MODULE}/cmd/lab@{VERSION}`" + `, a pinned
version, rather than pulling the lab's container image:

- the version is pinned in the CI files (` + "`LAB_VERSION`" + `), so every push of the
  course is graded by the same checks and points, and you can install that very
  version to grade on your machine;
- it works the same on GitHub's and GitLab's runners, needing only Go, which
  both set up in a line; no registry has to serve an image to the runners,
  and the course has nothing to publish;
- your {PROGRAM} runs on the runner itself, next to the Go, Python or Node it needs,
  instead of inside an image that would have to carry all three.

Teachers: change ` + "`LAB_VERSION`" + ` only between assignments, and raise
` + "`LAB_TIME_SCALE`" + ` (every deadline is multiplied by it) if runners are slow.
`))
	return b.String()
}
