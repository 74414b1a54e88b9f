// Package lessons holds the lessons' data, embedded into the lab binary so
// the image is one file: each lesson's manifest, scenario files, grading
// checks, and the texts a student reads.
//
// A lesson is a folder named NN-title-words holding a manifest, lesson.txt,
// that says everything the commands need to know about it (see Manifest and
// lessons/README.md). `lab run`, `lab grade`, `lab grade-class` and
// `lab serve` find a lesson through its manifest only: adding a lesson adds a
// folder (and, for a new reference server, one entry in internal/servers),
// never code in a command.
package lessons

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
)

//go:embed */lesson.txt */*.txtar */*.md */grading/*.txtar */model/*.txt */data/*.json
var files embed.FS

// ManifestFile is the name of a lesson's manifest inside its folder.
const ManifestFile = "lesson.txt"

// FS returns the lessons' files, one folder per lesson.
func FS() fs.FS { return files }

// Readiness says how the scripted client knows a server is ready for the
// scenario to start.
type Readiness struct {
	// Kind is "stderr" (a stderr line contains Pattern, in any case),
	// "probe" (the first answer to the Probe request has come back), or
	// "none" (start at once).
	Kind    string
	Pattern string
	Probe   string
}

// Manifest is a lesson's lesson.txt: its number and title, its reference
// server, how a server shows it is ready, and where its data is.
type Manifest struct {
	Number int
	Title  string
	// Subject names the lesson's kind, in a word: what it grades, and so
	// which of the lines below it needs (see grading.Kind).
	Subject string
	// Server is the name of the reference server, as `lab serve NAME`
	// knows it (a server lesson's).
	Server string
	// Client is the name of the reference client, as `lab client NAME`
	// knows it (a client lesson's): the lab grades it first, and lab run
	// plays it when no command is given.
	Client string
	// Servers are the servers a client lesson's scenarios name.
	Servers []string
	Ready   Readiness
	// Run is the scenario `lab run` plays, Checks the check catalogue, and
	// Grading the pattern of the grading scenarios, all paths inside the
	// lesson's folder.
	Run, Checks, Grading string
	// Model is the folder of the model step's question.txt and sample.txt,
	// or "" for a lesson without one.
	Model string
	// Dir is the lesson's folder, such as "01-reading-messages" (empty for a
	// folder read on its own with ReadManifest).
	Dir string
	// fsys holds Dir: the built-in lessons (nil), or the files ReadManifest
	// read the manifest from, such as a teacher's folder on disk.
	fsys fs.FS
}

// ParseManifest reads a manifest: "key: value" lines, # comments. The keys:
//
//	number: 1                      the lesson's number (required)
//	title: Reading messages        (required)
//	subject: server                the kind of lesson, in a word (required):
//	                               its kind says which lines below it needs
//	server: reader                 the reference server's name (a server
//	                               lesson's)
//	client: host                   the reference client's name (a client
//	                               lesson's)
//	servers: notes tickets         the servers a client lesson plays
//	ready: stderr ready            or "probe REQUEST-LINE" or "none"
//	run: scenario.txtar            the scenario lab run plays
//	checks: grading/checks.txtar   the check catalogue (this is the default)
//	grading: grading/*.txtar       the grading scenarios (this is the default;
//	                               the catalogue is left out of the match)
//	model: model                   the folder of the model step, if any
//
// It reads the subject as a word only: whether the lab has that kind of
// lesson, and whether the manifest has the lines that kind needs, is the
// kind's to say (grading.Kinds.For).
func ParseManifest(data []byte) (*Manifest, error) {
	m := &Manifest{Checks: "grading/checks.txtar", Grading: "grading/*.txtar", Ready: Readiness{Kind: "stderr", Pattern: "ready"}}
	fields := m.fields()
	seen := map[string]bool{}
	for _, kv := range KeyValues(data) {
		if !kv.OK || kv.Value == "" {
			return nil, fmt.Errorf("line %d: want \"key: value\", got %q", kv.Line, kv.Text)
		}
		if seen[kv.Key] {
			return nil, fmt.Errorf("line %d: %s is given twice", kv.Line, kv.Key)
		}
		seen[kv.Key] = true
		known, err := fields.Set(kv)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", kv.Line, err)
		}
		if !known {
			return nil, fmt.Errorf("line %d: unknown key %q (want %s)", kv.Line, kv.Key, fields.Keys())
		}
	}
	for _, k := range []string{"number", "title", "subject"} {
		if !seen[k] {
			return nil, MissingLine(k)
		}
	}
	for _, p := range []string{m.Run, m.Checks, m.Grading, m.Model} {
		if p != "" && (path.IsAbs(p) || strings.HasPrefix(path.Clean(p), "..")) {
			return nil, fmt.Errorf("%q is not a path inside the lesson's folder", p)
		}
	}
	return m, nil
}

// isWord reports whether s may name a kind of lesson: one word in lower
// case, a letter first, then letters, digits and hyphens.
func isWord(s string) bool {
	for i, r := range s {
		if !(r >= 'a' && r <= 'z' || i > 0 && (r >= '0' && r <= '9' || r == '-')) {
			return false
		}
	}
	return s != ""
}

// fields are the keys of m's manifest, in the order a message lists them,
// each setting its part of m.
func (m *Manifest) fields() Fields {
	return Fields{
		{Key: "number", Parse: func(kv KeyValue) error {
			n, err := strconv.Atoi(kv.Value)
			if err != nil || n < 1 || n > 99 {
				return fmt.Errorf("number %q is not a whole number from 1 to 99", kv.Value)
			}
			m.Number = n
			return nil
		}},
		{Key: "title", Text: &m.Title},
		{Key: "subject", Parse: func(kv KeyValue) error {
			if !isWord(kv.Value) {
				return fmt.Errorf("subject %q is not a kind of lesson: name the kind in one word, in lower case (lessons/README.md lists the kinds)", kv.Value)
			}
			m.Subject = kv.Value
			return nil
		}},
		{Key: "server", Text: &m.Server},
		{Key: "client", Text: &m.Client},
		{Key: "servers", Parse: func(kv KeyValue) error {
			m.Servers = strings.Fields(kv.Value)
			return nil
		}},
		{Key: "ready", Parse: func(kv KeyValue) (err error) {
			m.Ready, err = parseReady(kv.Value)
			return err
		}},
		{Key: "run", Text: &m.Run},
		{Key: "checks", Text: &m.Checks},
		{Key: "grading", Text: &m.Grading},
		{Key: "model", Text: &m.Model},
	}
}

func parseReady(val string) (Readiness, error) {
	kind, arg, _ := strings.Cut(val, " ")
	arg = strings.TrimSpace(arg)
	switch {
	case kind == "none" && arg == "":
		return Readiness{Kind: "none"}, nil
	case kind == "stderr" && arg != "":
		return Readiness{Kind: "stderr", Pattern: arg}, nil
	case kind == "probe" && strings.HasPrefix(arg, "{"):
		return Readiness{Kind: "probe", Probe: arg}, nil
	}
	return Readiness{}, fmt.Errorf("ready %q: want \"stderr TEXT\", \"probe {REQUEST}\" or \"none\"", val)
}

// ReadManifest reads the manifest of the lesson folder dir inside fsys.
func ReadManifest(fsys fs.FS, dir string) (*Manifest, error) {
	data, err := fs.ReadFile(fsys, path.Join(dir, ManifestFile))
	if err != nil {
		return nil, fmt.Errorf("reading the lesson's manifest: %w", err)
	}
	m, err := ParseManifest(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path.Join(dir, ManifestFile), err)
	}
	m.Dir, m.fsys = dir, fsys
	return m, nil
}

// All returns the manifests of the lessons built into the lab, by number.
func All() ([]*Manifest, error) {
	entries, err := fs.ReadDir(files, ".")
	if err != nil {
		return nil, fmt.Errorf("listing lessons: %w", err)
	}
	var out []*Manifest
	byNumber := map[int]string{}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		// A folder without a manifest is not a lesson (yet).
		if _, err := fs.Stat(files, path.Join(e.Name(), ManifestFile)); err != nil {
			continue
		}
		m, err := ReadManifest(files, e.Name())
		if err != nil {
			return nil, err
		}
		if prev, dup := byNumber[m.Number]; dup {
			return nil, fmt.Errorf("lessons %s and %s both have number %d", prev, e.Name(), m.Number)
		}
		byNumber[m.Number] = e.Name()
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Number < out[j].Number })
	return out, nil
}

// Get returns the manifest of lesson n, or an error listing the lessons
// there are.
func Get(n int) (*Manifest, error) {
	all, err := All()
	if err != nil {
		return nil, err
	}
	var have []string
	for _, m := range all {
		if m.Number == n {
			return m, nil
		}
		have = append(have, fmt.Sprintf("%d (%s)", m.Number, m.Title))
	}
	return nil, fmt.Errorf("there is no lesson %d (lessons: %s)", n, strings.Join(have, ", "))
}

// Read returns one file of the lesson, by its path inside the lesson's
// folder.
func (m *Manifest) Read(name string) ([]byte, error) {
	b, err := fs.ReadFile(m.files(), path.Join(m.Dir, name))
	if err != nil {
		return nil, fmt.Errorf("lesson %d: %w", m.Number, err)
	}
	return b, nil
}

// GradingScenarios lists the paths, inside fsys, of the scenario files the
// grader plays for the lesson in folder dir, in the order it plays them:
// the files matching the manifest's grading pattern, less the catalogue.
func (m *Manifest) GradingScenarios(fsys fs.FS, dir string) ([]string, error) {
	matches, err := fs.Glob(fsys, path.Join(dir, m.Grading))
	if err != nil {
		return nil, fmt.Errorf("lesson %d: grading pattern %q: %w", m.Number, m.Grading, err)
	}
	var out []string
	for _, f := range matches {
		if f != path.Join(dir, m.Checks) {
			out = append(out, f)
		}
	}
	sort.Strings(out)
	return out, nil
}
