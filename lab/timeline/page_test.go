package timeline

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcplab/mcplab/lab/event"
)

// TestWriteRunLanes: the page of a run draws a mark per event, in lanes
// that say whose streams they are: a server's stdin and stdout, or, when
// the transcript holds the rig's events, the client's commands and answers
// and a lane per server the lab played; the page holds no grade and no
// script, and shows hostile text as text.
func TestWriteRunLanes(t *testing.T) {
	server := []event.Event{
		{Scenario: "01", Record: event.Record{At: 0, Kind: event.Send, Text: `{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n"}},
		{Scenario: "01", Record: event.Record{At: 2 * time.Millisecond, Kind: event.Answer, Text: `{"jsonrpc":"2.0","id":1,"result":{}}`}},
		{Scenario: "01", Record: event.Record{At: 3 * time.Millisecond, Kind: event.Answer, Text: "<script>hello</script>"}},
	}
	client := []event.Event{
		{Scenario: "c", Record: event.Record{At: 0, Kind: event.Send, Text: `{"command":"list_tools"}` + "\n"}},
		{Scenario: "c", Record: event.Record{At: 1 * time.Millisecond, Kind: event.ToServer, Text: `tickets#1 {"jsonrpc":"2.0","id":1,"method":"tools/list"}`}},
		{Scenario: "c", Record: event.Record{At: 2 * time.Millisecond, Kind: event.FromServer, Text: `tickets#1 {"jsonrpc":"2.0","id":1,"result":{}}`}},
		{Scenario: "c", Record: event.Record{At: 3 * time.Millisecond, Kind: event.Answer, Text: `{"tools":[]}`}},
	}
	for _, c := range []struct {
		name   string
		events []event.Event
		lanes  []string
		wrong  int
	}{
		{"server", server, []string{"stdin", "stdout", "stderr", "grader"}, 1},
		{"client", client, []string{"commands", "the client's answers", "server tickets", "stderr", "grader"}, 0},
	} {
		var b bytes.Buffer
		if err := WriteRun(&b, 98, c.events); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		page := b.String()
		var lanes []string
		for _, m := range regexp.MustCompile(`<text class="lane-name"[^>]*>([^<]*)<title>`).FindAllStringSubmatch(page, -1) {
			lanes = append(lanes, strings.ReplaceAll(m[1], "&#39;", "'"))
		}
		marks := strings.Count(page, `<g class="mark `)
		wrong := strings.Count(page, `<td class="wrong">wrong: this line on stdout is not a JSON-RPC message</td>`)
		if strings.Join(lanes, "|") != strings.Join(c.lanes, "|") || marks != len(c.events) || wrong != c.wrong {
			t.Errorf("%s: lanes %q, %d marks, %d wrong; want lanes %q, %d marks, %d wrong", c.name, lanes, marks, wrong, c.lanes, len(c.events), c.wrong)
		}
		title := "<title>Lesson 98: lab run, scenario " + c.events[0].Scenario + "</title>"
		if !strings.Contains(page, title) || strings.Contains(page, "<script") || strings.Contains(page, "Outcome:") || strings.Contains(page, "skiplink\" href") {
			t.Errorf("%s: want %s, no script, no grade, no link to checks:\n%.600s", c.name, title, page)
		}
	}
}
