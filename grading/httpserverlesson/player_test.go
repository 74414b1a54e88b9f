package httpserverlesson_test

import (
	"context"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/mcplab/mcplab/grading/httpserverlesson"
	"github.com/mcplab/mcplab/lab/event"
	"github.com/mcplab/mcplab/lab/play"
	"github.com/mcplab/mcplab/lab/proc"
)

// lab run --lesson 4 shows each exchange as it crosses: the request line
// and its MCP headers, the status, each message (golden, the copies' logs
// and ports left out: they come on pipes of their own).
func TestPlayerShowsEachExchange(t *testing.T) {
	starter := helpdesk(t, "").(proc.Command)
	p := httpserverlesson.Player{Source: play.Source{Lesson: 4, Run: "scenario.txtar", Read: func(name string) ([]byte, error) {
		return os.ReadFile("../../lessons/04-serving-over-http/" + name)
	}}, Reference: "helpdesk"}
	run, err := p.Load(play.Request{Command: append([]string{starter.Path}, starter.Args...)})
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	if err := run.Play(context.Background(), func(_ event.Event, line string) {
		if strings.Contains(line, "#") {
			lines = append(lines, line)
		}
	}); err != nil {
		t.Fatal(err)
	}
	got := regexp.MustCompile(`"nextCursor":"[^"]*"`).ReplaceAllString(strings.Join(lines, "\n")+"\n", `"nextCursor":"CURSOR"`)
	got = regexp.MustCompile(`"cursor":"[^"]*"`).ReplaceAllString(got, `"cursor":"CURSOR"`)
	want, err := os.ReadFile("testdata/run.golden")
	if os.Getenv("UPDATE_GOLDEN") != "" {
		os.WriteFile("testdata/run.golden", []byte(got), 0o644)
		return
	}
	if err != nil || got != string(want) {
		t.Errorf("lab run's lines:\n%s\nwant (testdata/run.golden, UPDATE_GOLDEN=1 rewrites it):\n%s", got, want)
	}
}
