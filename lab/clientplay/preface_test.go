package clientplay_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mcplab/mcplab/internal/servers"
	"github.com/mcplab/mcplab/lab/clientplay"
	"github.com/mcplab/mcplab/lab/clientscenario"
	"github.com/mcplab/mcplab/lessons"
)

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
		printed, err := clientplay.StudentConfig(sc, servers.ForRig)
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
	if got := clientplay.RigSubstitutions(sc); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	cfg, err := clientplay.StudentConfig(sc, servers.ForRig)
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
	if _, err := clientplay.StudentConfig(sc, servers.ForRig); err == nil || !strings.Contains(err.Error(), "no-such-server") {
		t.Errorf("an unknown server gives %v, want an error naming it", err)
	}
}
