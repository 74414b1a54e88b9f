package lesson02_test

import (
	"bytes"
	"context"
	"flag"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mcplab/mcplab/internal/kinds"
	"github.com/mcplab/mcplab/lab/event"
	"github.com/mcplab/mcplab/lab/proc"

	"github.com/mcplab/mcplab/grading"
	"github.com/mcplab/mcplab/lab/capture"
	"github.com/mcplab/mcplab/lab/helpdesk"
	"github.com/mcplab/mcplab/lab/scenario"
	"github.com/mcplab/mcplab/lab/schema"
)

var update = flag.Bool("update", false, "rewrite sessions/ from a fresh recording")

// helpdeskInProcess is what `lab serve helpdesk` runs, over this lesson's
// data, inside the test process.
func helpdeskInProcess(t *testing.T) proc.InProcess {
	data, err := helpdesk.LoadData(os.DirFS("data"))
	if err != nil {
		t.Fatal(err)
	}
	return func(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer) int {
		srv := helpdesk.New(data)
		srv.Log = stderr
		if err := srv.ServeStdio(ctx, stdin, stdout); err != nil {
			return 1
		}
		return 0
	}
}

// sessionName is the name of the recording of a wire file: its name
// without .jsonl or .invalid.jsonl.
func sessionName(wire string) string {
	return strings.TrimSuffix(strings.TrimSuffix(filepath.Base(wire), ".jsonl"), ".invalid")
}

// TestSessionsAreRecordingsOfTheWireFiles records every wire file again, as
// `lab capture sessions/NAME wire/NAME.jsonl -- lab serve helpdesk` does, and
// compares with sessions/: the same messages in the same order, the same
// log lines; only the times may differ.
func TestSessionsAreRecordingsOfTheWireFiles(t *testing.T) {
	wires, _ := filepath.Glob("wire/*.jsonl")
	if len(wires) == 0 {
		t.Fatal("no wire files")
	}
	for _, w := range wires {
		name := sessionName(w)
		t.Run(name, func(t *testing.T) {
			input, err := os.ReadFile(w)
			if err != nil {
				t.Fatal(err)
			}
			s, err := capture.Run(context.Background(), helpdeskInProcess(t), input, capture.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(s.Missing) > 0 {
				t.Errorf("answers missing: %v", s.Missing)
			}
			s.Command, s.Input = []string{"lab", "serve", "helpdesk"}, filepath.ToSlash(w)
			var jsonl, md bytes.Buffer
			if err := s.WriteJSONL(&jsonl); err != nil {
				t.Fatal(err)
			}
			if err := s.WriteMarkdown(&md, "Session "+name); err != nil {
				t.Fatal(err)
			}
			base := filepath.Join("sessions", name)
			if *update {
				for file, b := range map[string][]byte{base + ".jsonl": jsonl.Bytes(), base + ".md": md.Bytes()} {
					if err := os.WriteFile(file, b, 0o644); err != nil {
						t.Fatal(err)
					}
				}
				return
			}
			oldJSONL, err := os.ReadFile(base + ".jsonl")
			if err != nil {
				t.Fatalf("%v (run go test -update to record it)", err)
			}
			oldMD, err := os.ReadFile(base + ".md")
			if err != nil {
				t.Fatal(err)
			}
			if got, want := normaliseJSONL(t, jsonl.Bytes()), normaliseJSONL(t, oldJSONL); got != want {
				t.Errorf("%s.jsonl differs from a fresh recording (times aside):\n--- recorded now\n%s\n--- in the file\n%s", base, got, want)
			}
			if got, want := normaliseMD(md.Bytes()), normaliseMD(oldMD); got != want {
				t.Errorf("%s.md differs from a fresh recording (times aside):\n--- recorded now\n%s\n--- in the file\n%s", base, got, want)
			}
		})
	}
}

// normaliseJSONL drops what varies from one recording to the next: the
// times, and where the server's log lines fall among the messages (stderr
// and stdout are separate pipes). The messages keep their order, and so do
// the log lines.
func normaliseJSONL(t *testing.T, b []byte) string {
	t.Helper()
	recs, err := capture.ReadJSONL(b)
	if err != nil {
		t.Fatal(err)
	}
	var exchange, log []string
	for _, r := range recs {
		if r.From == capture.Stderr {
			log = append(log, r.Line())
			continue
		}
		exchange = append(exchange, string(r.From)+" "+r.Line())
	}
	return strings.Join(exchange, "\n") + "\n-- stderr --\n" + strings.Join(log, "\n")
}

var (
	mdTime  = regexp.MustCompile(`at [0-9]+\.[0-9] ms`)
	logTime = regexp.MustCompile(`(?m)^ *[0-9]+\.[0-9] ms  `)
)

func normaliseMD(b []byte) string {
	s := mdTime.ReplaceAllString(string(b), "at T ms")
	return logTime.ReplaceAllString(s, "T ms  ")
}

// TestFilesMeetTheSchema runs what `lab validate wire sessions` runs: every
// message of the wire files and of the sessions meets the official schema,
// except in *.invalid.jsonl, where every line must fail.
func TestFilesMeetTheSchema(t *testing.T) {
	v, err := schema.Default()
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob("wire/*.jsonl")
	sessions, _ := filepath.Glob("sessions/*.jsonl")
	files = append(files, sessions...)
	invalid := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		r := v.CheckFile(f, data)
		if !r.OK() {
			t.Errorf("%s (%s) fails: %v", f, r.Kind, r.Err)
			for _, l := range r.Lines {
				t.Logf("  line %d: %+v", l.Line, l)
			}
		}
		if strings.HasSuffix(f, schema.InvalidSuffix) {
			invalid++
		}
	}
	if invalid == 0 {
		t.Error("no *.invalid.jsonl file: the lesson shows mistakes the schema catches")
	}
}

// TestScenariosParse keeps lab run's scenario and the grading scenarios
// readable by the scripted client.
func TestScenariosParse(t *testing.T) {
	files, _ := filepath.Glob("grading/*.txtar")
	files = append(files, "scenario.txtar")
	for _, f := range files {
		if filepath.Base(f) == "checks.txtar" {
			continue
		}
		if _, err := scenario.ParseFile(f); err != nil {
			t.Error(err)
		}
	}
}

// TestReferenceServerScoresFullMarks grades the helpdesk with this lesson's
// checks, as `lab grade --lesson 2 -- lab serve helpdesk` does, and also
// checks every answer it gave against the official schema.
func TestReferenceServerScoresFullMarks(t *testing.T) {
	res, err := kinds.Grade(context.Background(), grading.Options{Lesson: 2, LessonDir: os.DirFS("."), Student: helpdeskInProcess(t)})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Gradable || res.Score != res.MaxScore || len(res.Failed()) > 0 {
		t.Fatalf("score %d/%d, failed %v, problem %q", res.Score, res.MaxScore, res.Failed(), res.Problem)
	}
	v, err := schema.Default()
	if err != nil {
		t.Fatal(err)
	}
	// Each scenario's traffic is one session, so that answers are checked
	// against their requests' results and the legacy era is recognised.
	answers := 0
	sessions := map[string]*schema.Session{}
	for _, ev := range res.Transcript {
		s := sessions[ev.Scenario]
		if s == nil {
			s = v.NewSession()
			sessions[ev.Scenario] = s
		}
		switch ev.Kind {
		case event.Send:
			for _, line := range strings.Split(ev.Text, "\n") {
				if strings.TrimSpace(line) != "" {
					s.Check(schema.FromClient, []byte(line))
				}
			}
		case event.Answer:
			answers++
			if vd := s.Check(schema.FromServer, []byte(ev.Text)); vd.Err != nil {
				t.Errorf("scenario %s: the answer %s does not meet the schema: %v", ev.Scenario, ev.Text, vd.Err)
			}
		}
	}
	if answers == 0 {
		t.Error("the transcript holds no answers")
	}
}
