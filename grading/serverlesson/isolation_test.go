package serverlesson

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/mcplab/mcplab/grading"
	"github.com/mcplab/mcplab/lab/proc"
)

// TestLoaderRefusesHiddenEvidence checks the scenario format's rule of
// evidence isolation: the loader refuses a scenario in which a check's
// evidence sits behind a line that can end a server, or is sent before it
// without being awaited, and names the file, the lines and the check.
func TestLoaderRefusesHiddenEvidence(t *testing.T) {
	const manifest = "number: 1\ntitle: T\nsubject: server\nserver: reader\nready: none\nchecks: cases/list.txtar\ngrading: cases/*.txtar\n"
	const tagged = "-- methods.ping --\ntitle: ping answers\npoints: 1\n-- errors.parse --\ntitle: parse\npoints: 1\n"
	const checks = tagged + "-- answers.once --\ntitle: once\npoints: 1\njudge: answers-once\n-- ids.exact --\ntitle: ids\npoints: 1\njudge: ids-exact\n"
	const ping = `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	const expect = "-- expect --\nerrors.parse {\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700}}\nmethods.ping {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n"
	tests := []struct {
		name, scenario string
		want           []string // parts of the error; none: accepted
	}{
		{"behind", "-- steps --\nat 0ms send bad p\n-- bad --\nnot json\n-- p --\n" + ping + "\n" + expect,
			[]string{"cases/one.txtar", "scenario one", "sent line 1 `not json` (sent by the step on line 2) is not JSON",
				"sent line 2 `" + ping + "` (expect line 9) comes after it", "the evidence for methods.ping",
				"send a line that can end a server last, in a scenario of its own"}},
		{"invalid request behind", "-- steps --\nat 0ms send bad p\n-- bad --\n[1,2]\n-- p --\n" + ping + "\n",
			[]string{"sent line 1 `[1,2]` (sent by the step on line 2) is not a valid request", "answers.once, ids.exact"}},
		{"same write before", "-- steps --\nat 0ms send p bad\n-- bad --\nnot json\n-- p --\n" + ping + "\n" + expect,
			[]string{"sent line 1 `" + ping + "` (expect line 9) is sent before it and its answer is not awaited first",
				`await the answer to id 1 ("await 1 within 5s")`}},
		{"earlier write, not awaited", "-- steps --\nat 0ms send p\nat 10ms send bad\n-- bad --\nnot json\n-- p --\n" + ping + "\n" + expect,
			[]string{"sent line 2 `not json` (sent by the step on line 3)", "its answer is not awaited first"}},
		{"awaited first", "-- steps --\nat 0ms send p\nawait 1 within 5s\nat 0ms send bad\n-- bad --\nnot json\n-- p --\n" + ping + "\n" + expect, nil},
		{"alone", "-- steps --\nat 0ms send bad\n-- bad --\nnot json\n-- expect --\nerrors.parse {\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700}}\n", nil},
	}
	for _, tt := range tests {
		dir := fstest.MapFS{
			"lesson.txt":       {Data: []byte(manifest)},
			"cases/list.txtar": {Data: []byte(checks)},
			"cases/one.txtar":  {Data: []byte(tt.scenario)},
		}
		_, err := Load(1, dir)
		if tt.want == nil {
			if err != nil {
				t.Errorf("%s: refused: %v", tt.name, err)
			}
			continue
		}
		if err == nil {
			t.Errorf("%s: accepted", tt.name)
			continue
		}
		for _, part := range tt.want {
			if !strings.Contains(err.Error(), part) {
				t.Errorf("%s: the error\n%v\ndoes not say\n%s", tt.name, err, part)
			}
		}
	}
	// A lesson without those judges has no such checks to name.
	_, err := Load(1, fstest.MapFS{"lesson.txt": {Data: []byte(manifest)}, "cases/list.txtar": {Data: []byte(tagged)},
		"cases/one.txtar": {Data: []byte(tests[1].scenario)}})
	if want := "so a server that stops there also loses the evidence for the checks judged from the traffic: send"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("without the judges of the traffic: the error\n%v\ndoes not say\n%s", err, want)
	}
}

// TestBuiltInScenariosIsolateEvidence checks that every built-in server
// lesson loads: its scenarios keep the rule.
func TestBuiltInScenariosIsolateEvidence(t *testing.T) {
	for _, n := range []int{1, 2} {
		if _, err := Load(n, nil); err != nil {
			t.Errorf("lesson %d: %v", n, err)
		}
	}
}

// TestOpeningIsNeutral grades lesson 2, whose manifest names a readiness
// probe, against a server that notes the first line each of its processes
// reads: the probe goes to a process of its own, the first, which reads
// nothing else; no scenario's process ever sees it, so it cannot change how
// the server answers a scenario.
func TestOpeningIsNeutral(t *testing.T) {
	var mu sync.Mutex
	var firsts [][]string // the lines each process read, in start order
	serve := proc.InProcess(func(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer) int {
		mu.Lock()
		firsts = append(firsts, nil)
		me := len(firsts) - 1
		mu.Unlock()
		sc := bufio.NewScanner(stdin)
		for sc.Scan() {
			mu.Lock()
			firsts[me] = append(firsts[me], sc.Text())
			mu.Unlock()
			var msg struct {
				ID json.RawMessage `json:"id"`
			}
			if json.Unmarshal(sc.Bytes(), &msg) == nil && len(msg.ID) > 0 && string(msg.ID) != "null" {
				fmt.Fprintf(stdout, `{"jsonrpc":"2.0","id":%s,"result":{}}`+"\n", msg.ID)
			}
		}
		return 0
	})
	res, err := Grade(context.Background(), grading.Options{Lesson: 2, Student: serve})
	if err != nil {
		t.Fatal(err)
	}
	lesson, err := Load(2, nil)
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(firsts) != 1+len(lesson.Scenarios) {
		t.Fatalf("%d processes, want one for the probe and one for each of %d scenarios", len(firsts), len(lesson.Scenarios))
	}
	if len(firsts[0]) != 1 || !strings.Contains(firsts[0][0], `"id":"lab-ready","method":"server/discover"`) {
		t.Errorf("the probe's process read %q, want the server/discover probe alone", firsts[0])
	}
	for i, lines := range firsts[1:] {
		for _, l := range lines {
			if strings.Contains(l, "lab-ready") {
				t.Errorf("scenario %s's process read the probe: %q", lesson.Scenarios[i].Name, l)
			}
		}
	}
	if !res.Gradable {
		t.Errorf("not gradable: %s", res.Problem)
	}
}
