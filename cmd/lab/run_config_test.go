package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mcplab/mcplab/lab/clientscenario"
	"github.com/mcplab/mcplab/lessons"
)

// TestRunClientPrintsStudentConfig plays lesson 3's demonstration and
// checks what a student reads first: the servers.json they would write,
// byte for byte, and on stderr the one line that says what the rig puts
// in its place. The rig's own configuration (the relay's socket, the free
// port) is in neither.
func TestRunClientPrintsStudentConfig(t *testing.T) {
	t.Setenv("LAB_TEST_MAIN", "1") // the relay and lab client are this test binary
	code, out, stderr := lab(t, "run", "--lesson", "3")
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, stderr, out)
	}
	wantHead := "-- servers.json, as you would write it for these servers:\n" +
		"{\"servers\": {\n" +
		"  \"notes\": {\"command\": \"lab\", \"args\": [\"serve\", \"notes\"], \"timeoutMs\": 10000},\n" +
		"  \"tickets\": {\"url\": \"http://127.0.0.1:3115/mcp\", \"timeoutMs\": 10000}\n" +
		"}}\n" +
		"you -> client  {\"command\":\"list_tools\"}\n"
	if !strings.HasPrefix(out, wantHead) {
		t.Errorf("lab run --lesson 3 begins\n%s\nwant\n%s", runFirstLines(out, 6), wantHead)
	}
	wantErr := "lab run: the lab plays these servers itself and records every byte; the --config file your client is given differs from the one above only in that notes is started as `lab relay SOCKET` (a pipe to the lab's own notes server) and tickets listens on a free port of 127.0.0.1.\n"
	if stderr != wantErr {
		t.Errorf("stderr is\n%q\nwant\n%q", stderr, wantErr)
	}
	for _, leak := range []string{"configuration:", ".sock", "lab-rig-", `"relay"`} {
		if strings.Contains(out, leak) || strings.Contains(stderr, leak) {
			t.Errorf("lab run prints the rig's own configuration (%q):\n%s", leak, runFirstLines(out, 8))
		}
	}
}

// TestStudentConfigIsTheLessonsFile holds the printed servers.json to the
// one lesson 3 ships: the same servers, commands and URLs, with only the
// scenario's timeoutMs added. A servers.json changed in the lesson, or a
// server that moves to another port, fails here.
func TestStudentConfigIsTheLessonsFile(t *testing.T) {
	all, err := lessons.All()
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range all {
		if m.Subject != "client" {
			continue
		}
		shipped, err := os.ReadFile(filepath.Join("..", "..", "lessons", m.Dir, "servers.json"))
		if err != nil {
			t.Fatalf("lesson %d: %v", m.Number, err)
		}
		data, err := m.Read(m.Run)
		if err != nil {
			t.Fatal(err)
		}
		sc, err := clientscenario.Parse("scenario", data)
		if err != nil {
			t.Fatal(err)
		}
		printed, err := studentConfig(sc)
		if err != nil {
			t.Fatal(err)
		}
		var got, want map[string]map[string]map[string]any
		if err := json.Unmarshal([]byte(printed), &got); err != nil {
			t.Fatalf("lesson %d: the printed servers.json is not JSON: %v\n%s", m.Number, err, printed)
		}
		if err := json.Unmarshal(shipped, &want); err != nil {
			t.Fatalf("lesson %d: servers.json: %v", m.Number, err)
		}
		for alias, entry := range got["servers"] {
			if _, ok := entry["timeoutMs"]; !ok {
				t.Errorf("lesson %d: %s has no timeoutMs, though the scenario gives one", m.Number, alias)
			}
			delete(entry, "timeoutMs")
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("lesson %d: lab run prints\n%s\nwhere the lesson's servers.json is\n%s", m.Number, printed, shipped)
		}
	}
}

// TestRigSubstitutionsDown: a server a scenario takes down is said to be
// unreachable, and the list reads as a sentence.
func TestRigSubstitutionsDown(t *testing.T) {
	sc := &clientscenario.Scenario{Name: "x", Servers: []clientscenario.Server{
		{Alias: "notes", Transport: "stdio", Server: "notes"},
		{Alias: "tickets", Transport: "http", Server: "tickets", Down: true},
		{Alias: "more", Transport: "http", Server: "tickets"},
	}}
	want := "lab run: the lab plays these servers itself and records every byte; the --config file your client is given differs from the one above only in that notes is started as `lab relay SOCKET` (a pipe to the lab's own notes server), tickets cannot be reached, on purpose and more listens on a free port of 127.0.0.1."
	if got := rigSubstitutions(sc); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	cfg, err := studentConfig(sc)
	if err != nil {
		t.Fatal(err)
	}
	wantCfg := "{\"servers\": {\n" +
		"  \"notes\": {\"command\": \"lab\", \"args\": [\"serve\", \"notes\"]},\n" +
		"  \"tickets\": {\"url\": \"http://127.0.0.1:3115/mcp\"},\n" +
		"  \"more\": {\"url\": \"http://127.0.0.1:3115/mcp\"}\n" +
		"}}\n"
	if cfg != wantCfg {
		t.Errorf("got\n%s\nwant\n%s", cfg, wantCfg)
	}
	sc.Servers[0].Server = "no-such-server"
	if _, err := studentConfig(sc); err == nil || !strings.Contains(err.Error(), "no-such-server") {
		t.Errorf("an unknown server gives %v, want an error naming it", err)
	}
}

// runFirstLines is the first n lines of s, for a failure message.
func runFirstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "\n")
}
