// Package starter_test checks lesson 2's starters in Go, Python and
// JavaScript: as shipped, each passes the checks starter/README.md's table
// says it passes and fails the others; after each part of its solution in
// stages/, the checks that part fixes pass too. The reference server passes
// every check, which shows each check can be passed.
//
// Lesson 2's checks in the lab's grader are not written yet, so this test
// plays two sessions itself and judges them by the rule of each check the
// issue names, under the same ids.
package starter_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcplab/mcplab/lab/helpdesk"
)

// deadline bounds one run of a starter, from start to exit. The starters
// answer in milliseconds; the deadline only ends one that does not exit
// when stdin closes, and is generous so that a slow machine never fails
// a starter that works.
const deadline = 30 * time.Second

// A language is one starter: its folder and how to start it.
type language struct {
	name, dir string
	// tool runs source; "" for Go, which is built first.
	tool, source string
}

var languages = []language{
	{name: "Go", dir: "go"},
	{name: "Python", dir: "python", tool: "python3", source: "server.py"},
	{name: "JavaScript", dir: "javascript", tool: "node", source: "server.js"},
}

// command returns the command line that starts the starter in dir, run
// from dir, building it first when it is the Go one. It skips the test when
// the language's tool is missing: CI has go, python3 and node.
func (l language) command(t *testing.T, dir string) []string {
	t.Helper()
	if l.tool == "" {
		bin := filepath.Join(t.TempDir(), "starter")
		cmd := exec.Command("go", "build", "-o", bin, ".")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("building the Go starter: %v\n%s", err, out)
		}
		return []string{bin}
	}
	path, err := exec.LookPath(l.tool)
	if err != nil {
		t.Skipf("%s is not on PATH, so the %s starter is not checked here", l.tool, l.name)
	}
	if l.tool == "node" {
		out, err := exec.Command(path, "--version").Output()
		if err != nil {
			t.Fatalf("node --version: %v", err)
		}
		v := strings.TrimPrefix(strings.TrimSpace(string(out)), "v")
		if major, _ := strconv.Atoi(strings.SplitN(v, ".", 2)[0]); major < 18 {
			t.Skipf("node is v%s; the JavaScript starter needs Node 18 or later", v)
		}
	}
	return []string{path, l.source}
}

// run is one run of a starter: what it wrote, and how it ended.
type run struct {
	stdout, stderr []byte
	exited         bool // it exited by itself once stdin closed
	exitErr        error
}

// play starts argv in dir, writes lines to its stdin at once, closes
// stdin, and waits for it to exit.
func play(t *testing.T, dir string, argv []string, lines []string) run {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), deadline)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdin = strings.NewReader(strings.Join(lines, ""))
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return run{stdout: stdout.Bytes(), stderr: stderr.Bytes(), exited: ctx.Err() == nil, exitErr: err}
}

// meta is the _meta of a 2026-07-28 request.
const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"starter-test","version":"0.0.0"},"io.modelcontextprotocol/clientCapabilities":{}}`

// modernLines is the session played to a starter on the 2026-07-28 path:
// one or more lines for each check, each request with an id of its own.
var modernLines = []string{
	`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + meta + `}}` + "\n",
	`{"jsonrpc":"2.0","method":"server/discover","params":{` + meta + `}}` + "\n",
	`{"jsonrpc":"2.0","id":2,"method":"tickets/get","params":{` + meta + `}}` + "\n",
	"hello server\n",
	`{"jsonrpc":"2.0","id":null,"method":"server/discover","params":{` + meta + `}}` + "\n",
	`{"jsonrpc":"2.0","id":3,"method":"server/discover","params":{}}` + "\n",
	`{"jsonrpc":"2.0","id":4,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"1900-01-01","io.modelcontextprotocol/clientCapabilities":{}}}}` + "\n",
	`{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{` + meta + `}}` + "\n",
	`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"get_ticket","arguments":{"ticket_id":"2318"},` + meta + `}}` + "\n",
	`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"get_ticket","arguments":{"ticket_id":"9999"},` + meta + `}}` + "\n",
}

// legacyLines is the session played on the legacy path, in a process of
// its own: initialize switches the whole process to the older rules.
var legacyLines = []string{
	`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"starter-test","version":"0.0.0"}}}` + "\n",
	`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n",
	`{"jsonrpc":"2.0","id":2,"method":"ping"}` + "\n",
}

// answer is one line of a starter's stdout, decoded.
type answer struct {
	raw    string
	fields map[string]json.RawMessage
	id     string // the id member as it was written; "" when absent
	result map[string]any
	err    *struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	}
}

// answers decodes stdout. A line that is not a JSON object is returned in
// bad.
func answers(stdout []byte) (out []answer, bad []string) {
	sc := bufio.NewScanner(bytes.NewReader(stdout))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		a := answer{raw: sc.Text()}
		if err := json.Unmarshal(sc.Bytes(), &a.fields); err != nil {
			bad = append(bad, a.raw)
			continue
		}
		if id, ok := a.fields["id"]; ok {
			a.id = string(id)
		}
		if r, ok := a.fields["result"]; ok {
			_ = json.Unmarshal(r, &a.result)
		}
		if e, ok := a.fields["error"]; ok {
			_ = json.Unmarshal(e, &a.err)
		}
		out = append(out, a)
	}
	return out, bad
}

// byID returns the answers whose id member is id, as written.
func byID(as []answer, id string) []answer {
	var out []answer
	for _, a := range as {
		if a.id == id {
			out = append(out, a)
		}
	}
	return out
}

// errorCode returns the one answer with id whose error code is code.
func errorCode(as []answer, id string, code int) (answer, error) {
	got := byID(as, id)
	if len(got) != 1 {
		return answer{}, fmt.Errorf("%d answers with id %s, want 1", len(got), orNone(id))
	}
	if got[0].err == nil || got[0].err.Code != code {
		return got[0], fmt.Errorf("answered %s, want error %d", got[0].raw, code)
	}
	return got[0], nil
}

func orNone(id string) string {
	if id == "" {
		return "(none)"
	}
	return id
}

// A check judges one behaviour from a modern and a legacy run. It returns
// nil when the starter passes.
type check struct {
	id    string
	judge func(modern, legacy run, mAns, lAns []answer) error
}

// checks are the lesson 2 checks a starter can be judged on here, by the
// ids of the issue and of lesson 1's shared stdio checks.
var checks = []check{
	{"discover.fields", func(_, _ run, as, _ []answer) error {
		got := byID(as, "1")
		if len(got) != 1 || got[0].result == nil {
			return fmt.Errorf("server/discover id 1 got %d answers, want one result", len(got))
		}
		r := got[0].result
		want := map[string]any{
			"resultType": "complete", "supportedVersions": []any{"2026-07-28"},
			"ttlMs": float64(3600000), "cacheScope": "public",
		}
		for k, v := range want {
			if !reflect.DeepEqual(r[k], v) {
				return fmt.Errorf("result.%s is %v, want %v", k, r[k], v)
			}
		}
		caps, _ := r["capabilities"].(map[string]any)
		if _, ok := caps["tools"]; !ok {
			return fmt.Errorf("result.capabilities is %v, want a tools member", r["capabilities"])
		}
		if s, _ := r["instructions"].(string); s == "" {
			return fmt.Errorf("result.instructions is %v, want a sentence", r["instructions"])
		}
		m, _ := r["_meta"].(map[string]any)
		info, _ := m["io.modelcontextprotocol/serverInfo"].(map[string]any)
		if info["name"] == nil || info["version"] == nil {
			return fmt.Errorf("result._meta has no io.modelcontextprotocol/serverInfo with a name and a version: %v", r["_meta"])
		}
		return nil
	}},
	{"notifications.silent", func(_, _ run, as, _ []answer) error {
		// Every request of the session has an id of its own; the
		// notification is the only line that must get nothing. Lines
		// without a usable id are the parse error's and the null id's.
		if want := len(modernLines) - 1; len(as) > want {
			return fmt.Errorf("%d answers to %d requests and bad lines: the notification was answered", len(as), want)
		}
		return nil
	}},
	{"methods.unknown", func(_, _ run, as, _ []answer) error {
		a, err := errorCode(as, "2", -32601)
		if err == nil && a.err.Message != "Method not found: tickets/get" {
			err = fmt.Errorf("message %q, want %q", a.err.Message, "Method not found: tickets/get")
		}
		return err
	}},
	{"errors.parse-no-id", func(_, _ run, as, _ []answer) error {
		for _, a := range as {
			if a.err != nil && a.err.Code == -32700 {
				if _, ok := a.fields["id"]; ok {
					return fmt.Errorf("answered %s: a parse error has no id member in 2026-07-28", a.raw)
				}
				return nil
			}
		}
		return fmt.Errorf("no -32700 answer to a line that is not JSON")
	}},
	{"errors.null-id", func(_, _ run, as, _ []answer) error {
		for _, a := range as {
			if a.id == "null" {
				return fmt.Errorf("answered %s: an id is never null in 2026-07-28", a.raw)
			}
		}
		for _, a := range as {
			if _, ok := a.fields["id"]; !ok && a.err != nil && a.err.Code == -32600 {
				return nil
			}
		}
		return fmt.Errorf("no -32600 answer without an id to a request whose id is null")
	}},
	{"meta.required", func(_, _ run, as, _ []answer) error {
		_, err := errorCode(as, "3", -32602)
		return err
	}},
	{"version.unsupported", func(_, _ run, as, _ []answer) error {
		a, err := errorCode(as, "4", -32022)
		if err != nil {
			return err
		}
		var data struct {
			Supported []string `json:"supported"`
			Requested string   `json:"requested"`
		}
		if json.Unmarshal(a.err.Data, &data) != nil || !reflect.DeepEqual(data.Supported, []string{"2026-07-28"}) || data.Requested != "1900-01-01" {
			return fmt.Errorf("data is %s, want supported [2026-07-28] and requested 1900-01-01", a.err.Data)
		}
		return nil
	}},
	{"tools.list", func(_, _ run, as, _ []answer) error {
		got := byID(as, "5")
		if len(got) != 1 || got[0].result == nil {
			return fmt.Errorf("tools/list id 5: want one result, got %d answers %v", len(got), raws(got))
		}
		r := got[0].result
		if r["resultType"] != "complete" || r["cacheScope"] == nil || r["ttlMs"] == nil {
			return fmt.Errorf("result %s lacks resultType complete, ttlMs or cacheScope", got[0].raw)
		}
		tools, _ := r["tools"].([]any)
		for _, tool := range tools {
			tm, _ := tool.(map[string]any)
			schema, _ := tm["inputSchema"].(map[string]any)
			if tm["name"] == "get_ticket" && schema["type"] == "object" {
				return nil
			}
		}
		return fmt.Errorf("result %s lists no get_ticket with an object inputSchema", got[0].raw)
	}},
	{"tools.call", func(_, _ run, as, _ []answer) error {
		got := byID(as, "6")
		if len(got) != 1 || got[0].result == nil {
			return fmt.Errorf("tools/call id 6: want one result, got %d answers %v", len(got), raws(got))
		}
		r := got[0].result
		content, _ := r["content"].([]any)
		if r["resultType"] != "complete" || r["isError"] == true || len(content) == 0 {
			return fmt.Errorf("result %s: want resultType complete, content, and no isError", got[0].raw)
		}
		return nil
	}},
	{"tools.unknown-ticket", func(_, _ run, as, _ []answer) error {
		got := byID(as, "7")
		if len(got) != 1 || got[0].result == nil || got[0].result["isError"] != true {
			return fmt.Errorf("tools/call of an unknown ticket, id 7: want one result with isError true, got %v", raws(got))
		}
		return nil
	}},
	{"legacy.initialize", func(_, _ run, _, as []answer) error {
		got := byID(as, "1")
		if len(got) != 1 || got[0].result == nil {
			return fmt.Errorf("initialize id 1: want one result, got %v", raws(got))
		}
		r := got[0].result
		if r["protocolVersion"] != "2025-06-18" || r["serverInfo"] == nil || r["resultType"] != nil {
			return fmt.Errorf("result %s: want protocolVersion 2025-06-18, serverInfo, and no resultType", got[0].raw)
		}
		ping := byID(as, "2")
		if len(ping) != 1 || ping[0].result == nil || len(ping[0].result) != 0 {
			return fmt.Errorf("ping after initialize: want one empty result, got %v", raws(ping))
		}
		return nil
	}},
	{"stdout.messages-only", func(m, l run, _, _ []answer) error {
		for _, r := range []run{m, l} {
			if _, bad := answers(r.stdout); len(bad) > 0 {
				return fmt.Errorf("stdout has lines that are not messages: %q", bad)
			}
			if len(r.stdout) > 0 && r.stdout[len(r.stdout)-1] != '\n' {
				return fmt.Errorf("stdout ends without a newline")
			}
		}
		return nil
	}},
	{"stderr.logs", func(m, _ run, _, _ []answer) error {
		if len(bytes.TrimSpace(m.stderr)) == 0 {
			return fmt.Errorf("nothing on stderr: log there, never on stdout")
		}
		return nil
	}},
	{"lifecycle.exit-on-eof", func(m, l run, _, _ []answer) error {
		for _, r := range []run{m, l} {
			if !r.exited {
				return fmt.Errorf("still running %v after stdin closed", deadline)
			}
			if r.exitErr != nil {
				return fmt.Errorf("exited with %v, want status 0", r.exitErr)
			}
		}
		return nil
	}},
}

func raws(as []answer) []string {
	var out []string
	for _, a := range as {
		out = append(out, a.raw)
	}
	return out
}

// judge plays both sessions to argv, run from dir, and returns each
// check's verdict: nil when it passes.
func judge(t *testing.T, dir string, argv []string) map[string]error {
	t.Helper()
	modern := play(t, dir, argv, modernLines)
	legacy := play(t, dir, argv, legacyLines)
	mAns, _ := answers(modern.stdout)
	lAns, _ := answers(legacy.stdout)
	verdicts := map[string]error{}
	for _, c := range checks {
		verdicts[c.id] = c.judge(modern, legacy, mAns, lAns)
	}
	if t.Failed() {
		t.Logf("stdout of the 2026-07-28 session:\n%s\nstdout of the legacy session:\n%s", modern.stdout, legacy.stdout)
	}
	return verdicts
}

// compare checks verdicts against the README's table after the given
// number of stages: a check passes once the part that fixes it is done,
// and from the start when nothing needs fixing.
func compare(t *testing.T, what string, stages int, table map[string]int, verdicts map[string]error) {
	t.Helper()
	var passed []string
	for _, c := range checks {
		err := verdicts[c.id]
		if err == nil {
			passed = append(passed, c.id)
		}
		part, ok := table[c.id]
		switch {
		case !ok:
			t.Errorf("check %s is not in README.md's table", c.id)
		case part <= stages && err != nil:
			t.Errorf("%s: README.md says it passes %s, but: %v", what, c.id, err)
		case part > stages && err == nil:
			t.Errorf("%s: README.md says it fails %s until part %d is done, but it passes", what, c.id, part)
		}
	}
	t.Logf("%s passes %d of %d: %s", what, len(passed), len(checks), strings.Join(passed, ", "))
}

// TestStartersAsShipped judges each starter as it is and compares the
// checks it passes with the table in starter/README.md.
func TestStartersAsShipped(t *testing.T) {
	table := readTable(t)
	for _, l := range languages {
		t.Run(l.name, func(t *testing.T) {
			compare(t, "the "+l.name+" starter as shipped", 0, table, judge(t, l.dir, l.command(t, l.dir)))
		})
	}
}

// TestStages applies the solutions in stages/ to a copy of each starter,
// one part after another, and judges the copy after each: every part must
// fix the checks the table says it fixes, and break none.
func TestStages(t *testing.T) {
	table := readTable(t)
	if _, err := exec.LookPath("patch"); err != nil {
		t.Skip("patch is not on PATH, so the stages are not applied here")
	}
	for _, l := range languages {
		t.Run(l.name, func(t *testing.T) {
			diffs, err := filepath.Glob(filepath.Join("stages", l.dir, "*.diff"))
			if err != nil || len(diffs) != 4 {
				t.Fatalf("stages/%s holds %d diffs (%v), want one for each of the 4 parts", l.dir, len(diffs), err)
			}
			sort.Strings(diffs)
			dir := t.TempDir()
			if out, err := exec.Command("cp", "-R", l.dir+"/.", dir).CombinedOutput(); err != nil {
				t.Fatalf("copying the starter: %v\n%s", err, out)
			}
			for i, diff := range diffs {
				abs, err := filepath.Abs(diff)
				if err != nil {
					t.Fatal(err)
				}
				cmd := exec.Command("patch", "--batch", "-p0", "-d", dir, "-i", abs)
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("applying %s: %v\n%s", diff, err, out)
				}
				what := fmt.Sprintf("the %s starter after %s", l.name, filepath.Base(diff))
				compare(t, what, i+1, table, judge(t, dir, l.command(t, dir)))
			}
		})
	}
}

// readTable reads README.md's table, or fails the test.
func readTable(t *testing.T) map[string]int {
	t.Helper()
	table, err := readShippedTable("README.md")
	if err != nil {
		t.Fatal(err)
	}
	for id := range table {
		found := false
		for _, c := range checks {
			found = found || c.id == id
		}
		if !found {
			t.Errorf("README.md's table names %s, which this test does not judge", id)
		}
	}
	return table
}

// referenceArg, as the first argument of this package's test binary, makes
// the binary run lesson 2's reference server, lab/helpdesk, on stdio.
const referenceArg = "mcplab-starter-reference"

// TestMain lets the test binary double as the reference server.
func TestMain(m *testing.M) {
	if len(os.Args) == 2 && os.Args[1] == referenceArg {
		data, err := helpdesk.LoadData(os.DirFS("../data"))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		srv := helpdesk.New(data)
		srv.Log = os.Stderr
		if err := srv.ServeStdio(context.Background(), os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestChecksPassTheReference judges lesson 2's reference server with the
// same checks: it must pass every one, or a check is wrong.
func TestChecksPassTheReference(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	compare(t, "the reference server", len(languageParts), readTable(t), judge(t, ".", []string{self, referenceArg}))
}

// TestTicketsAreTheLessons checks that each starter's tickets.json is the
// lesson's data, byte for byte, so the starters never drift from it.
func TestTicketsAreTheLessons(t *testing.T) {
	want, err := os.ReadFile("../data/tickets.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range languages {
		got, err := os.ReadFile(filepath.Join(l.dir, "tickets.json"))
		if err != nil {
			t.Error(err)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s/tickets.json differs from ../data/tickets.json: copy it again", l.dir)
		}
	}
}

// shippedHeader is the header of the table in README.md that says which
// checks the starters pass as shipped, and which part fixes each other one.
const shippedHeader = "| Check | As shipped | Fixed by |"

// languageParts are the TODO parts of every starter, by number.
var languageParts = []string{"errors without an id", "_meta on every request", "tools", "legacy clients"}

// readShippedTable reads that table: for each check id, 0 when the
// starters pass it as shipped, else the number of the part that fixes it.
func readShippedTable(file string) (map[string]int, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	out := map[string]int{}
	in := false
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if !in {
			in = line == shippedHeader
			continue
		}
		if !strings.HasPrefix(line, "|") {
			break
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		if len(cells) != 3 || strings.HasPrefix(strings.TrimSpace(cells[0]), "--") {
			continue
		}
		id := strings.Trim(strings.TrimSpace(cells[0]), "`")
		shipped, fixedBy := strings.TrimSpace(cells[1]), strings.TrimSpace(cells[2])
		part, err := strconv.Atoi(strings.TrimPrefix(fixedBy, "part "))
		switch {
		case shipped == "passes" && fixedBy == "":
			out[id] = 0
		case shipped == "fails" && err == nil && part >= 1 && part <= len(languageParts):
			out[id] = part
		default:
			return nil, fmt.Errorf("%s: check %s: %q and %q, want passes and nothing, or fails and part 1 to %d", file, id, shipped, fixedBy, len(languageParts))
		}
	}
	if !in {
		return nil, fmt.Errorf("%s has no table with the header %q", file, shippedHeader)
	}
	return out, nil
}
