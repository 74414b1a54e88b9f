package starter_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcplab/mcplab/grading"
	"github.com/mcplab/mcplab/internal/kinds"
	"github.com/mcplab/mcplab/internal/testkit"
	"github.com/mcplab/mcplab/lab/wire"
)

// knownMisses are rows of odd-inputs.md that a finished starter answers
// wrongly for a reason its README states. Each must really fail, so that an
// entry cannot outlive its reason.
var knownMisses = map[string]map[int]string{
	"javascript": {37: "JSON.parse reads every number as a double, so an integer id past 2^53 comes back changed (javascript/README.md says so)"},
}

// oddAnswer is the Answer column: "nothing", "result JSON, id ID" or
// "error CODE, id ID".
var oddAnswer = regexp.MustCompile(`^(result (.+)|error (-?\d+)), id (.+)$`)

// TestFinishedStartersAnswerOddInputs sends every row of the lesson's
// odd-inputs.md, each to a fresh server, to each starter with all its
// stages applied, and grades it with the lesson's messages also cut at
// random places: the finished starters are the complete servers the
// teacher key says they are, beyond what the grader's scenarios try.
func TestFinishedStartersAnswerOddInputs(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server for each of 150 rows; not in -short mode")
	}
	t.Parallel() // its servers mostly wait, like TestStarters' grades
	rows := testkit.ReadOddInputs(t, "../odd-inputs.md")
	for _, lang := range languages {
		t.Run(lang.dir, func(t *testing.T) {
			t.Parallel()
			stages := readStages(t, lang)
			start := lang.command(t, buildStage(t, lang, stages, len(stages)))
			misses := make([]string, len(rows)) // what went wrong, by row; "" when right
			var wg sync.WaitGroup
			slots := make(chan struct{}, 4)
			for i, r := range rows {
				wg.Add(1)
				go func() {
					defer wg.Done()
					slots <- struct{}{}
					defer func() { <-slots }()
					misses[i] = oddMiss(start.Path, start.Args, start.Dir, r.Input, r.Answer)
				}()
			}
			wg.Wait()
			res, err := kinds.Grade(context.Background(), grading.Options{Student: start, Sweep: 4, Cuts: 1})
			if err != nil {
				t.Fatalf("grading: %v", err)
			}
			if failed := res.Failed(); len(failed) > 0 || !res.Gradable {
				t.Errorf("graded with its messages cut at random places (seed 1), the finished %s starter fails %v (%s)", lang.name, failed, res.Outcome.Detail)
			}
			for i, r := range rows {
				why, known := knownMisses[lang.dir][r.N]
				switch {
				case misses[i] != "" && !known:
					t.Errorf("odd-inputs.md row %d %q: %s", r.N, r.Input, misses[i])
				case misses[i] == "" && known:
					t.Errorf("odd-inputs.md row %d is listed as a known miss (%s), but the finished %s starter answers it right: drop it from knownMisses", r.N, why, lang.name)
				}
			}
		})
	}
}

// oddMiss runs a fresh server on input and says what is wrong with its
// stdout, or "" when it is the answer the table gives.
func oddMiss(path string, args []string, dir, input, answer string) string {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(input)
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	if err := cmd.Run(); err != nil {
		return "the server did not exit with status 0: " + err.Error()
	}
	out := stdout.String()
	if answer == "nothing" {
		if out != "" {
			return "want no answer, got " + strconv.Quote(out)
		}
		return ""
	}
	m := oddAnswer.FindStringSubmatch(answer)
	if m == nil {
		return "the answer " + strconv.Quote(answer) + " is not in a form this test reads"
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 1 || lines[0] == "" || !strings.HasSuffix(out, "\n") {
		return "want one answer line, got " + strconv.Quote(out)
	}
	msg, why := wire.ParseResponse([]byte(lines[0]))
	if msg == nil {
		return lines[0] + " is not a response: " + why
	}
	if !wire.SameID(msg.ID, json.RawMessage(m[4])) {
		return "got " + lines[0] + ", want id " + m[4]
	}
	if m[2] != "" {
		if msg.Result == nil || string(msg.Result) != m[2] {
			return "got " + lines[0] + ", want result " + m[2]
		}
		return ""
	}
	if code, _ := strconv.Atoi(m[3]); msg.Error == nil || msg.Error.Code != code {
		return "got " + lines[0] + ", want error " + m[3]
	}
	return ""
}
