package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"

	"github.com/mcplab/mcplab/internal/kinds"
	"github.com/mcplab/mcplab/lessons"
)

// assignmentUsage is the synopsis of lab assignment; help/assignment.txt says the rest.
const assignmentUsage = "assignment --lesson N --lang go|python|javascript [flags] DIR"

// modulePath is the lab's Go module, as CI installs it.
const modulePath = "github.com/mcplab/mcplab"

func assignmentCmd(_ context.Context, e *env, args []string) (int, error) {
	fs := newFlags("assignment", assignmentUsage, e.stderr)
	lesson := fs.Int("lesson", 1, "the lesson whose starter to hand out")
	lessonDir := fs.String("lesson-dir", "", "hand out the lesson in this folder (its lesson.txt says it is lesson -lesson; its starter is in starter/LANG) instead of the built-in one")
	lang := fs.String("lang", "", "the starter's language: "+strings.Join(lessons.StarterLanguages(), ", "))
	labVersion := fs.String("lab-version", "", "the lab CI installs: a release such as v1.2.3 or a commit's pseudo-version (default: exactly this lab)")
	timeScale := fs.Float64("time-scale", 2, "CI's deadline multiplier (shared runners are slower than a laptop)")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return exitCannot, err
	}
	if len(rest) != 1 {
		return exitCannot, usagef("name one folder to write the assignment to, for example: lab assignment --lesson 1 --lang python lesson1")
	}
	if !contains(lessons.StarterLanguages(), *lang) {
		return exitCannot, usagef("-lang must be one of %s", strings.Join(lessons.StarterLanguages(), ", "))
	}
	if *timeScale <= 0 || *timeScale > 100 {
		return exitCannot, usagef("-time-scale must be more than 0 and at most 100")
	}
	v, note := *labVersion, ""
	if v == "" {
		b := thisBuild()
		if b.Pin == "" {
			return exitCannot, usageError{b.Why}
		}
		v, note = b.Pin, b.pinNote()
	} else if !moduleVersion.MatchString(v) {
		return exitCannot, usagef("-lab-version %q is not a version go install can fetch: a release such as v1.2.3, or a commit's pseudo-version such as v0.0.0-20261201110831-9e51dd326eb3", v)
	}
	m, err := kinds.Find(*lesson, dirFS(*lessonDir))
	if err != nil {
		return exitCannot, usageError{err.Error()}
	}
	if *lessonDir != "" && m.BuiltIn() {
		return exitCannot, usagef("-lesson-dir %s has no %s: lab assignment hands out a lesson folder with a manifest of its own (leave -lesson-dir out to hand out built-in lesson %d)", *lessonDir, lessons.ManifestFile, m.Number)
	}
	files, err := assignmentFiles(m, *lang, v, *timeScale)
	if err != nil {
		return exitCannot, err
	}
	if err := writeNewTree(rest[0], files); err != nil {
		return exitCannot, err
	}
	fmt.Fprintf(e.stderr, "lab assignment: lesson %d (%s), %s starter, grading with lab %s%s, written to %s\n", m.Number, m.Title, *lang, v, note, rest[0])
	if !m.BuiltIn() {
		fmt.Fprintf(e.stderr, "lab assignment: CI grades with the copy of the lesson's files in %s/, which the student can change: record the marks of lab grade-class --lesson-dir %s\n", kitLessonDir, *lessonDir)
	}
	return exitOK, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// goSeries is the Go release CI sets up to install the lab: the series
// this lab was built with, which meets the lab's go.mod.
func goSeries() string {
	m := regexp.MustCompile(`^go([0-9]+)\.([0-9]+)`).FindStringSubmatch(runtime.Version())
	if m == nil {
		return "stable"
	}
	return m[1] + "." + m[2]
}

// newFile is one file of a tree writeNewTree writes.
type newFile struct {
	name string // slash-separated, inside the tree
	data []byte
	exec bool
}

// kitLessonDir is the folder of a student repository that holds the
// grading files of a lesson that is not built into the lab, for CI.
const kitLessonDir = "lesson"

// assignmentFiles returns every file of the student repository.
func assignmentFiles(m *lessons.Manifest, lang, labVersion string, timeScale float64) ([]newFile, error) {
	starter, err := m.Starter(lang)
	if err != nil {
		return nil, err
	}
	kind, err := kinds.For(m)
	if err != nil {
		return nil, err
	}
	ls := kind.Setup(lang)
	var out []newFile
	hasMain := false
	for _, f := range starter {
		name := f.Name
		if name == "README.md" {
			name = "STARTER.md"
		}
		if name == ls.Main {
			hasMain = true
		}
		out = append(out, newFile{name: name, data: f.Data})
	}
	if !hasMain {
		return nil, fmt.Errorf("lesson %d's %s starter has no %s", m.Number, lang, ls.Main)
	}
	if ls.Build != "" {
		out = append(out, newFile{name: "build", data: []byte("#!/bin/sh\n" + ls.Build), exec: true})
	}
	out = append(out, newFile{name: "run", data: []byte("#!/bin/sh\n" + ls.Run), exec: true})
	lessonFiles, err := m.GradingFiles()
	if err != nil {
		return nil, err
	}
	for _, f := range lessonFiles {
		out = append(out, newFile{name: path.Join(kitLessonDir, f.Name), data: f.Data})
	}
	p := ciParams{Lesson: m.Number, Title: m.Title, Lang: lang, Version: labVersion, Go: goSeries(),
		Scale: fmt.Sprintf("%g", timeScale), Build: ls.Build != "", Main: ls.Main, Needs: ls.Needs, Program: kind.Program(), RunNote: ls.RunNote}
	if len(lessonFiles) > 0 {
		p.LessonDir = kitLessonDir
	}
	out = append(out,
		newFile{name: "README.md", data: []byte(studentReadme(p))},
		newFile{name: ".github/workflows/grade.yml", data: []byte(githubWorkflow(p))},
		newFile{name: ".gitlab-ci.yml", data: []byte(gitlabCI(p))},
	)
	return out, nil
}

// writeNewTree writes files into dir, which must not exist or be an empty
// folder (not a link). Every file is created new, through an os.Root, so
// no link is followed; on failure, what it made is removed.
func writeNewTree(dir string, files []newFile) (err error) {
	made := false
	info, err := os.Lstat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
			return fmt.Errorf("making the folder above %s: %w", dir, err)
		}
		if err := os.Mkdir(dir, 0o755); err != nil {
			return fmt.Errorf("making %s: %w", dir, err)
		}
		made = true
	case err != nil:
		return fmt.Errorf("looking at %s: %w", dir, err)
	case info.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("%s is a link: name a new folder, or an empty one, to write the assignment to", dir)
	case !info.IsDir():
		return fmt.Errorf("%s is a file, not a folder: name a new folder to write the assignment to", dir)
	default:
		entries, err := os.ReadDir(dir)
		if err != nil {
			return fmt.Errorf("reading %s: %w", dir, err)
		}
		if len(entries) > 0 {
			return fmt.Errorf("%s is not empty (it holds %s): the assignment is written only to a new or empty folder, so nothing is overwritten", dir, entries[0].Name())
		}
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return fmt.Errorf("opening %s: %w", dir, err)
	}
	defer root.Close()
	var written []string
	defer func() {
		if err == nil {
			return
		}
		if made {
			_ = os.RemoveAll(dir) // RemoveAll does not follow links
			return
		}
		for i := len(written) - 1; i >= 0; i-- {
			_ = root.Remove(written[i])
		}
	}()
	for _, f := range files {
		if !fs.ValidPath(f.name) {
			return fmt.Errorf("%q is not a path inside the assignment", f.name)
		}
		if d := path.Dir(f.name); d != "." {
			parts := strings.Split(d, "/")
			for i := range parts {
				sub := strings.Join(parts[:i+1], "/")
				if err := root.Mkdir(sub, 0o755); err == nil {
					written = append(written, sub)
				} else if !errors.Is(err, fs.ErrExist) {
					return fmt.Errorf("making %s: %w", sub, err)
				}
			}
		}
		mode := os.FileMode(0o644)
		if f.exec {
			mode = 0o755
		}
		w, err := root.OpenFile(f.name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
		if err != nil {
			return fmt.Errorf("writing %s: %w", f.name, err)
		}
		written = append(written, f.name)
		_, werr := w.Write(f.data)
		if cerr := w.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			return fmt.Errorf("writing %s: %w", f.name, werr)
		}
		// The umask may have taken the execute bits; scripts need them.
		if err := root.Chmod(f.name, mode); err != nil {
			return fmt.Errorf("setting the mode of %s: %w", f.name, err)
		}
	}
	return nil
}
