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
	// Subject is what the lesson grades: "server" (a student's server,
	// played against by the scripted client) or "client" (a student's
	// client, for which the lab plays the servers).
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
//	subject: server                or "client": what the lesson grades
//	server: reader                 the reference server's name (required
//	                               of a server lesson)
//	client: host                   the reference client's name (required
//	                               of a client lesson)
//	servers: notes tickets         the servers a client lesson plays
//	ready: stderr ready            or "probe REQUEST-LINE" or "none"
//	run: scenario.txtar            the scenario lab run plays
//	checks: grading/checks.txtar   the check catalogue (this is the default)
//	grading: grading/*.txtar       the grading scenarios (this is the default;
//	                               the catalogue is left out of the match)
//	model: model                   the folder of the model step, if any
func ParseManifest(data []byte) (*Manifest, error) {
	m := &Manifest{Subject: "server", Checks: "grading/checks.txtar", Grading: "grading/*.txtar", Ready: Readiness{Kind: "stderr", Pattern: "ready"}}
	seen := map[string]bool{}
	for _, kv := range KeyValues(data) {
		i, key, val := kv.Line-1, kv.Key, kv.Value
		if !kv.OK || val == "" {
			return nil, fmt.Errorf("line %d: want \"key: value\", got %q", i+1, kv.Text)
		}
		if seen[key] {
			return nil, fmt.Errorf("line %d: %s is given twice", i+1, key)
		}
		seen[key] = true
		switch key {
		case "number":
			n, err := strconv.Atoi(val)
			if err != nil || n < 1 || n > 99 {
				return nil, fmt.Errorf("line %d: number %q is not a whole number from 1 to 99", i+1, val)
			}
			m.Number = n
		case "title":
			m.Title = val
		case "subject":
			if val != "server" && val != "client" {
				return nil, fmt.Errorf("line %d: subject %q: want server or client", i+1, val)
			}
			m.Subject = val
		case "server":
			m.Server = val
		case "client":
			m.Client = val
		case "servers":
			m.Servers = strings.Fields(val)
		case "ready":
			r, err := parseReady(val)
			if err != nil {
				return nil, fmt.Errorf("line %d: %w", i+1, err)
			}
			m.Ready = r
		case "run":
			m.Run = val
		case "checks":
			m.Checks = val
		case "grading":
			m.Grading = val
		case "model":
			m.Model = val
		default:
			return nil, fmt.Errorf("line %d: unknown key %q (want number, title, subject, server, client, servers, ready, run, checks, grading, model)", i+1, key)
		}
	}
	required := []string{"number", "title", "server"}
	if m.Subject == "client" {
		required = []string{"number", "title", "servers", "client"}
	}
	for _, k := range required {
		if !seen[k] {
			return nil, fmt.Errorf("the manifest has no %q line", k)
		}
	}
	for _, p := range []string{m.Run, m.Checks, m.Grading, m.Model} {
		if p != "" && (path.IsAbs(p) || strings.HasPrefix(path.Clean(p), "..")) {
			return nil, fmt.Errorf("%q is not a path inside the lesson's folder", p)
		}
	}
	return m, nil
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
