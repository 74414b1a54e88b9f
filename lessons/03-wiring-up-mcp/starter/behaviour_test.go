// Package starter_test checks lesson 3's starter clients in Go, Python and
// JavaScript. This file needs no grader: it runs each starter, as shipped
// and after each part of its solution in stages/, against the lab's real
// demo servers (lab serve notes over stdio, lab serve tickets over HTTP)
// through the commands of the contract, and compares every answer with
// what the part's TODO says and with the answers of the reference client,
// lab client, to the same commands.
package starter_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// A language is one starter: its folder and how to start it.
type language struct {
	name, dir string
	// tool runs source; "" for Go, which is built first.
	tool, source string
}

var languages = []language{
	{name: "Go", dir: "go", source: "main.go"},
	{name: "Python", dir: "python", tool: "python3", source: "client.py"},
	{name: "JavaScript", dir: "javascript", tool: "node", source: "client.js"},
}

// partNames are the TODO parts of every starter, by number; stages/LANG
// holds one diff for each, named N-NAME.diff.
var partNames = []string{"original-name", "framing", "pagination", "response-by-id", "annotations"}

// commandIn returns the argv that starts the starter in dir, building it
// first, into the folder bin, when it is the Go one; skip says why the
// language cannot run here (its tool is missing or too old).
func (l language) commandIn(dir, bin string) (argv []string, skip string, err error) {
	if l.tool == "" {
		exe := filepath.Join(bin, "starter")
		cmd := exec.Command("go", "build", "-o", exe, ".")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			return nil, "", fmt.Errorf("building the Go starter: %v\n%s", err, out)
		}
		return []string{exe}, "", nil
	}
	path, err := exec.LookPath(l.tool)
	if err != nil {
		return nil, fmt.Sprintf("%s is not on PATH, so the %s starter is not checked here", l.tool, l.name), nil
	}
	if l.tool == "node" {
		out, err := exec.Command(path, "--version").Output()
		if err != nil {
			return nil, "", fmt.Errorf("node --version: %v", err)
		}
		v := strings.TrimPrefix(strings.TrimSpace(string(out)), "v")
		if major, _ := strconv.Atoi(strings.SplitN(v, ".", 2)[0]); major < 18 {
			return nil, fmt.Sprintf("node is v%s; the JavaScript starter needs Node 18 or later", v), nil
		}
	}
	return []string{path, filepath.Join(dir, l.source)}, "", nil
}

// stageInto copies the starter into the empty folder dir and applies the
// first n parts of its solution, checking that each removes its own TODO;
// skip says why the parts cannot be applied here.
func (l language) stageInto(dir string, n int) (skip string, err error) {
	if out, err := exec.Command("cp", "-R", l.dir+"/.", dir).CombinedOutput(); err != nil {
		return "", fmt.Errorf("copying the starter: %v\n%s", err, out)
	}
	if n == 0 {
		return "", nil
	}
	if _, err := exec.LookPath("patch"); err != nil {
		return "patch is not on PATH, so the stages are not applied here", nil
	}
	for i := 1; i <= n; i++ {
		diff, err := filepath.Abs(filepath.Join("stages", l.dir, fmt.Sprintf("%d-%s.diff", i, partNames[i-1])))
		if err != nil {
			return "", err
		}
		if out, err := exec.Command("patch", "--batch", "-p0", "-d", dir, "-i", diff).CombinedOutput(); err != nil {
			return "", fmt.Errorf("applying %s: %v\n%s", diff, err, out)
		}
		src, err := os.ReadFile(filepath.Join(dir, l.source))
		if err != nil {
			return "", err
		}
		if marker := fmt.Sprintf("TODO(lesson 3), part %d", i); bytes.Contains(src, []byte(marker)) {
			return "", fmt.Errorf("%s leaves %q in the source", filepath.Base(diff), marker)
		}
	}
	return "", nil
}

// The lab, built once for the whole test binary.
var (
	labOnce sync.Once
	labPath string
	labErr  error
)

func lab(t *testing.T) string {
	t.Helper()
	path, err := labBuilt()
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// labBuilt is lab without a test.
func labBuilt() (string, error) {
	labOnce.Do(func() {
		dir, err := os.MkdirTemp("", "lesson3-starters-lab")
		if err != nil {
			labErr = err
			return
		}
		labPath = filepath.Join(dir, "lab")
		if out, err := exec.Command("go", "build", "-o", labPath, "../../../cmd/lab").CombinedOutput(); err != nil {
			labErr = fmt.Errorf("building lab: %v\n%s", err, out)
		}
	})
	return labPath, labErr
}

// startTickets starts lab serve tickets on a free loopback port and
// returns its endpoint. It stops when the test ends.
func startTickets(t *testing.T) string {
	t.Helper()
	cmd := exec.Command(lab(t), "serve", "tickets", "--http", "127.0.0.1:0")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	// The server says where it listens on its first line of stderr.
	listening := regexp.MustCompile(`listening on (http://127\.0\.0\.1:[0-9]+/mcp)`)
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		if m := listening.FindStringSubmatch(sc.Text()); m != nil {
			go func() {
				for sc.Scan() { // keep draining, so the server never blocks on stderr
				}
			}()
			return m[1]
		}
	}
	t.Fatalf("lab serve tickets ended without saying where it listens (%v)", sc.Err())
	return ""
}

// writeConfig writes a configuration naming servers, in order, and
// returns its path.
func writeConfig(t *testing.T, servers ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "servers.json")
	if err := os.WriteFile(path, []byte(`{"servers": {`+strings.Join(servers, ",\n")+`}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func notesServer(t *testing.T) string {
	return fmt.Sprintf(`"notes": {"command": %q, "args": ["serve", "notes"], "timeoutMs": 10000}`, lab(t))
}

func ticketsServer(url string) string {
	return fmt.Sprintf(`"tickets": {"url": %q, "timeoutMs": 10000}`, url)
}

// run starts argv with --config config, feeds it the commands, one a line,
// and returns its answers, one a line, and its exit status. It fails the
// test when the client breaks the contract's framing: one JSON object per
// command, nothing else on stdout.
func run(t *testing.T, argv []string, config string, commands []string) ([]map[string]any, int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], append(argv[1:], "--config", config)...)
	cmd.Stdin = strings.NewReader(strings.Join(commands, "\n") + "\n")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	status := 0
	if exit, ok := err.(*exec.ExitError); ok {
		status = exit.ExitCode()
	} else if err != nil {
		t.Fatalf("running %v: %v", argv, err)
	}
	var answers []map[string]any
	for _, line := range strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n") {
		if line == "" && len(answers) == 0 && stdout.Len() == 0 {
			break
		}
		var a map[string]any
		if err := json.Unmarshal([]byte(line), &a); err != nil {
			t.Fatalf("stdout has a line that is not a JSON object (%v): %.200q\nstderr:\n%s", err, line, stderr.String())
		}
		answers = append(answers, a)
	}
	return answers, status, stderr.String()
}

// The commands every client answers, in this order.
var commands = []string{
	`{"command":"list_tools"}`,
	`{"command":"call_tool","name":"mcp__notes__search","arguments":{"query":"retry"}}`,
	`{"command":"call_tool","name":"mcp__tickets__search","arguments":{"query":"queue"}}`,
	`{"command":"call_tool","name":"mcp__tickets__r_sum_"}`,
	`{"command":"call_tool","name":"mcp__notes__read_note","arguments":{"id":"incident-log"}}`,
	`{"command":"call_tool","name":"mcp__tickets__get_ticket","arguments":{"id":"T-101"}}`,
	`{"command":"call_tool","name":"mcp__notes__add_note","arguments":{"title":"Lesson 3","text":"Done."}}`,
	`{"command":"call_tool","name":"mcp__notes__nothing"}`,
	`{"command":"bogus"}`,
	`not json`,
	`{"command":"call_tool"}`,
	`{"command":"call_tool","name":"mcp__notes__search","arguments":[1]}`,
	``, // a blank line gets no answer
	`{"command":"call_tool","name":"mcp__notes__search","arguments":{"query":"zero"}}`,
}

// what each command is, by index in commands.
const (
	cmdList = iota
	cmdNotesSearch
	cmdTicketsSearch
	cmdResume
	cmdLongNote
	cmdTicket
	cmdAddNote
	cmdUnknownTool
	cmdBogus
	cmdNotJSON
	cmdNoName
	cmdBadArguments
	cmdNotesSearch2 // after the blank line, which is not answered
)

// expect says what a starter answers to the commands after the first
// `parts` parts, as a change to the reference client's answers: nil means
// the same answer (free-text error messages aside); else a check of its
// own.
func expect(parts, cmd int) func(t *testing.T, got, ref map[string]any) {
	failsWith := func(text string) func(t *testing.T, got, _ map[string]any) {
		return func(t *testing.T, got, _ map[string]any) {
			t.Helper()
			if got["isError"] != true || !strings.Contains(fmt.Sprint(got["text"]), text) {
				t.Errorf("want a failed result saying %q, got %.300v", text, got)
			}
		}
	}
	switch cmd {
	case cmdList:
		if parts >= 5 {
			return nil
		}
		return func(t *testing.T, got, ref map[string]any) {
			t.Helper()
			want := mustCopy(t, ref)
			var tools []any
			for _, tool := range want["tools"].([]any) {
				tool := tool.(map[string]any)
				if parts < 3 && tool["name"] == "mcp__notes__add_note" {
					continue // on the notes server's second page
				}
				if strings.HasSuffix(tool["name"].(string), "__search") {
					tool["needsApproval"] = false // both claim readOnlyHint: true
				}
				tools = append(tools, tool)
			}
			want["tools"] = tools
			if !reflect.DeepEqual(got, want) {
				t.Errorf("list_tools:\n got %v\nwant %v", got, want)
			}
		}
	case cmdNotesSearch, cmdNotesSearch2:
		if parts < 1 {
			return failsWith("Unknown tool: mcp__notes__search")
		}
	case cmdTicketsSearch, cmdResume, cmdTicket:
		switch {
		case parts < 1:
			return failsWith("Unknown tool: mcp__tickets__")
		case parts < 4:
			// The progress notification, taken for the response: it has no
			// result, so the call looks finished, with no text.
			return func(t *testing.T, got, _ map[string]any) {
				t.Helper()
				if want := map[string]any{"text": "", "isError": false}; !reflect.DeepEqual(got, want) {
					t.Errorf("got %.300v, want %v", got, want)
				}
			}
		}
	case cmdLongNote:
		switch {
		case parts < 1:
			return failsWith("Unknown tool: mcp__notes__read_note")
		case parts < 2:
			return failsWith("no answer within") // every piece dropped, so the call times out
		}
	case cmdAddNote:
		if parts < 3 {
			return failsWith(`No tool is named "mcp__notes__add_note"`)
		}
	}
	return nil
}

func mustCopy(t *testing.T, v map[string]any) map[string]any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// sameAnswer compares an answer with the reference client's: exactly,
// except the free text of an error answer and of a failed result.
func sameAnswer(t *testing.T, got, ref map[string]any) {
	t.Helper()
	_, refError := ref["error"]
	_, gotError := got["error"]
	switch {
	case refError || gotError:
		if !refError || !gotError || len(got) != 1 {
			t.Errorf("got %.300v, want an error answer like lab client's %.300v", got, ref)
		}
	case ref["isError"] == true:
		if got["isError"] != true || len(got) != 2 {
			t.Errorf("got %.300v, want a failed result like lab client's %.300v", got, ref)
		}
	case !reflect.DeepEqual(got, ref):
		t.Errorf("got %.300v\nwant lab client's %.300v", got, ref)
	}
}

// reference runs lab client on the same commands.
func reference(t *testing.T, config string) []map[string]any {
	t.Helper()
	answers, status, stderr := run(t, []string{lab(t), "client"}, config, commands)
	if status != 0 {
		t.Fatalf("lab client exited with status %d:\n%s", status, stderr)
	}
	return answers
}

// TestStartersAgainstTheDemoServers runs every starter, as shipped and
// after each part, against lab serve notes and lab serve tickets.
func TestStartersAgainstTheDemoServers(t *testing.T) {
	if testing.Short() {
		t.Skip("runs eighteen clients against real servers; not in -short mode")
	}
	config := writeConfig(t, notesServer(t), ticketsServer(startTickets(t)))
	ref := reference(t, config)
	// The reference's own answers are what the lesson says they are.
	if len(ref) != len(commands)-1 {
		t.Fatalf("lab client gave %d answers to %d commands (one blank)", len(ref), len(commands))
	}
	if n := len([]rune(fmt.Sprint(ref[cmdLongNote]["text"]))); n != 8052 {
		t.Fatalf("lab client's long note is %d characters, want 8052", n)
	}
	for _, l := range languages {
		t.Run(l.name, func(t *testing.T) {
			t.Parallel()
			for parts := 0; parts <= len(partNames); parts++ {
				t.Run(fmt.Sprintf("parts=%d", parts), func(t *testing.T) {
					_, argv := l.prepared(t, parts)
					got, status, stderr := run(t, argv, config, commands)
					if status != 0 {
						t.Errorf("exit status %d at the end of stdin, want 0", status)
					}
					if len(got) != len(ref) {
						t.Fatalf("%d answers, want %d\nstderr:\n%s", len(got), len(ref), stderr)
					}
					for i := range got {
						check := expect(parts, i)
						if check == nil {
							check = sameAnswer
						}
						t.Run(fmt.Sprintf("command=%d", i), func(t *testing.T) { check(t, got[i], ref[i]) })
					}
					if parts >= 2 {
						if text := fmt.Sprint(got[cmdLongNote]["text"]); len([]rune(text)) != 8052 || !strings.HasSuffix(text, "\n\n[16000 more characters were cut from this result.]") {
							t.Errorf("the long note is %d characters ending %q, want 8052 ending in the cut sentence", len([]rune(text)), text[max(0, len(text)-60):])
						}
					}
					if t.Failed() {
						t.Logf("stderr:\n%s", stderr)
					}
				})
			}
		})
	}
}

// freePort returns a loopback address where nothing listens.
func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// TestIsolationAndLifecycle runs each fully staged starter with servers
// that fail: the ticket system's address with nothing listening, a stdio
// server that never answers, one that exits at once, one that cannot start
// and one that outlives its stdin. Each costs only its own tools; the notes
// still work.
func TestIsolationAndLifecycle(t *testing.T) {
	if testing.Short() {
		t.Skip("not in -short mode")
	}
	cmds := []string{
		`{"command":"list_tools"}`,
		`{"command":"call_tool","name":"mcp__notes__search","arguments":{"query":"retry"}}`,
		`{"command":"call_tool","name":"mcp__tickets__search","arguments":{"query":"queue"}}`,
	}
	for _, l := range languages {
		t.Run(l.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			silentLog, stubbornPID := filepath.Join(dir, "silent.log"), filepath.Join(dir, "stubborn.pid")
			config := writeConfig(t,
				// A server that reads every request and never answers.
				fmt.Sprintf(`"silent": {"command": "sh", "args": ["-c", "exec cat >%s"], "timeoutMs": 300}`, silentLog),
				notesServer(t),
				// A server that exits: its request fails when the process
				// ends, long before this timeout.
				`"dying": {"command": "sh", "args": ["-c", "echo going away >&2; exit 3"], "timeoutMs": 600000}`,
				`"missing": {"command": "/nonexistent/mcp-server", "timeoutMs": 600000}`,
				// A server that neither answers nor exits when its stdin closes.
				fmt.Sprintf(`"stubborn": {"command": "sh", "args": ["-c", "echo $$ >%s; exec sleep 600"], "timeoutMs": 300}`, stubbornPID),
				ticketsServer("http://"+freePort(t)+"/mcp"),
			)
			_, argv := l.prepared(t, len(partNames))
			got, status, stderr := run(t, argv, config, cmds)
			if status != 0 || len(got) != len(cmds) {
				t.Fatalf("exit status %d and %d answers, want 0 and %d\nstderr:\n%s", status, len(got), len(cmds), stderr)
			}
			checkSilentLog(t, silentLog)
			// The client waits for the servers it ends, so by now the
			// stubborn one is gone.
			if b, err := os.ReadFile(stubbornPID); err != nil {
				t.Error(err)
			} else if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err != nil {
				t.Error(err)
			} else if p, err := os.FindProcess(pid); err == nil && p.Signal(syscall.Signal(0)) == nil {
				p.Kill()
				t.Errorf("the server that ignores the end of its stdin (pid %d) still runs after the client exited", pid)
			}
			var names []string
			for _, tool := range got[0]["tools"].([]any) {
				names = append(names, tool.(map[string]any)["name"].(string))
			}
			if want := []string{"mcp__notes__search", "mcp__notes__read_note", "mcp__notes__add_note"}; !reflect.DeepEqual(names, want) {
				t.Errorf("tools %v, want %v", names, want)
			}
			failed := map[string]string{}
			for _, f := range got[0]["failedServers"].([]any) {
				f := f.(map[string]any)
				failed[f["server"].(string)] = f["error"].(string)
			}
			var aliases []string
			for a := range failed {
				aliases = append(aliases, a)
			}
			sort.Strings(aliases)
			if want := []string{"dying", "missing", "silent", "stubborn", "tickets"}; !reflect.DeepEqual(aliases, want) {
				t.Errorf("failedServers name %v, want %v: %v", aliases, want, failed)
			}
			// The reasons say what happened: a timeout for the silent one,
			// the exit for the dying one (not a timeout: it fails at once).
			if !strings.Contains(failed["silent"], "no answer within") {
				t.Errorf("silent server: %q, want a timeout", failed["silent"])
			}
			if !strings.Contains(failed["dying"], "exit") || strings.Contains(failed["dying"], "no answer") {
				t.Errorf("dying server: %q, want its exit", failed["dying"])
			}
			if got[1]["isError"] != false || !strings.Contains(fmt.Sprint(got[1]["text"]), "retry-budget") {
				t.Errorf("the notes search: %v", got[1])
			}
			if got[2]["isError"] != true {
				t.Errorf("a tickets call with the ticket system down: %v, want a failed result", got[2])
			}
			if !strings.Contains(stderr, "[dying] going away") {
				t.Errorf("the dying server's stderr is not passed on, marked with its alias:\n%s", stderr)
			}
		})
	}
}

// checkSilentLog reads what the silent server was sent: tools/list with
// id 1 and _meta inside params, then, when its time was up,
// notifications/cancelled for id 1.
func checkSilentLog(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("the silent server got %d lines, want a request and its cancellation:\n%s", len(lines), b)
	}
	var request, cancel struct {
		ID     any    `json:"id"`
		Method string `json:"method"`
		Params struct {
			Meta      map[string]any `json:"_meta"`
			RequestID any            `json:"requestId"`
		} `json:"params"`
	}
	if err := json.Unmarshal([]byte(lines[0]), &request); err != nil || request.ID != 1.0 || request.Method != "tools/list" ||
		request.Params.Meta["io.modelcontextprotocol/protocolVersion"] != "2026-07-28" || request.Params.Meta["io.modelcontextprotocol/clientCapabilities"] == nil {
		t.Errorf("the first line is not tools/list with id 1 and _meta in params (%v): %s", err, lines[0])
	}
	if err := json.Unmarshal([]byte(lines[1]), &cancel); err != nil || cancel.ID != nil || cancel.Method != "notifications/cancelled" || cancel.Params.RequestID != 1.0 {
		t.Errorf("the second line is not notifications/cancelled for request 1 (%v): %s", err, lines[1])
	}
}

// TestDuplicateAlias: an alias given twice is an error before anything
// starts, on stderr, with a status other than 0.
func TestDuplicateAlias(t *testing.T) {
	config := writeConfig(t, `"notes": {"command": "sh", "args": ["-c", "exit 0"]}`, `"notes": {"url": "http://127.0.0.1:1/mcp"}`)
	for _, l := range languages {
		t.Run(l.name, func(t *testing.T) {
			t.Parallel()
			_, argv := l.prepared(t, 0)
			got, status, stderr := run(t, argv, config, []string{`{"command":"list_tools"}`})
			if status == 0 || len(got) != 0 || !strings.Contains(stderr, "twice") {
				t.Errorf("exit status %d, answers %v, stderr %q; want a status other than 0, no answer, and the alias named twice on stderr", status, got, stderr)
			}
		})
	}
}
