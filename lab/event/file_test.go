package event_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mcplab/mcplab/lab/event"
)

// rigEvents are events the rig saw, one of each shape a transcript shows,
// of a server whose alias holds a '#' and a space (which words alone
// could not carry), with what each file line holds for it.
var rigEvents = []struct {
	ev   event.Event
	file string
}{
	{event.Event{Scenario: "s", Record: event.Record{At: 1 * time.Millisecond, Kind: event.Start, Server: "a#b c", Conn: 2, Played: true}},
		`{"scenario":"s","at_ms":1,"kind":"rig","text":"a#b c#2 start","record":{"kind":"start","text":"","server":"a#b c","conn":2,"played":true}}`},
	{event.Event{Scenario: "s", Record: event.Record{At: 2 * time.Millisecond, Kind: event.Post, Server: "a#b c", Conn: 2, Played: true, Text: `{"id":1} `,
		Header: http.Header{"Mcp-Protocol-Version": {"2026-07-28"}, "Mcp-Method": {"tools/list"}, "Accept": {"application/json", "text/event-stream"}}}},
		`{"scenario":"s","at_ms":2,"kind":"to-server","text":"a#b c#2 [Mcp-Protocol-Version: 2026-07-28; Mcp-Method: tools/list] {\"id\":1}","record":{"kind":"post","text":"{\"id\":1} ","server":"a#b c","conn":2,"header":{"Accept":["application/json","text/event-stream"],"Mcp-Method":["tools/list"],"Mcp-Protocol-Version":["2026-07-28"]},"played":true}}`},
	{event.Event{Scenario: "s", Record: event.Record{At: 3 * time.Millisecond, Kind: event.Status, Server: "a#b c", Conn: 2, Played: true, Status: 202, Text: "text/event-stream"}},
		`{"scenario":"s","at_ms":3,"kind":"from-server","text":"a#b c#2 HTTP 202 text/event-stream","record":{"kind":"status","text":"text/event-stream","server":"a#b c","conn":2,"status":202,"played":true}}`},
	{event.Event{Scenario: "s", Record: event.Record{At: 4 * time.Millisecond, Kind: event.Answer, Server: "a#b c", Conn: 2, Played: true, Text: `{"id":1,"result":{}}`}},
		`{"scenario":"s","at_ms":4,"kind":"from-server","text":"a#b c#2 {\"id\":1,\"result\":{}}","record":{"kind":"answer","text":"{\"id\":1,\"result\":{}}","server":"a#b c","conn":2,"played":true}}`},
	{event.Event{Scenario: "s", Record: event.Record{At: 5 * time.Millisecond, Kind: event.Close, Server: "a#b c", Conn: 2, Played: true}},
		`{"scenario":"s","at_ms":5,"kind":"rig","text":"a#b c#2 eof","record":{"kind":"close","text":"","server":"a#b c","conn":2,"played":true}}`},
	{event.Event{Scenario: "s", Record: event.Record{At: 6 * time.Millisecond, Kind: event.Refused, Server: "a#b c", Conn: 3, Played: true, Status: 413, Text: "too long"}},
		`{"scenario":"s","at_ms":6,"kind":"rig","text":"a#b c#3 refused too long","record":{"kind":"refused","text":"too long","server":"a#b c","conn":3,"status":413,"played":true}}`},
}

// TestRigEventsRoundTrip writes each event the rig saw as a file holds
// it, with the transcript's words in the four keys every version wrote
// and the fields (server, connection, headers, status) in "record", and
// reads it back whole.
func TestRigEventsRoundTrip(t *testing.T) {
	for _, c := range rigEvents {
		b, err := json.Marshal(c.ev)
		if err != nil {
			t.Fatalf("%+v: %v", c.ev, err)
		}
		if string(b) != c.file {
			t.Errorf("the file's line:\n got %s\nwant %s", b, c.file)
		}
		var back event.Event
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		if !reflect.DeepEqual(back, c.ev) {
			t.Errorf("read back:\n got %+v\nwant %+v", back, c.ev)
		}
	}
}

// TestOtherEventsKeepTheirBytes: an event that is not the rig's (a
// server lesson's, the grader's) is written with the four keys alone, as
// every version wrote it; one with fields that is not the rig's (a copy of
// a student's HTTP server) keeps its own kind and text, and its fields in
// "record".
func TestOtherEventsKeepTheirBytes(t *testing.T) {
	for _, c := range []struct {
		ev   event.Event
		file string
	}{
		{event.Event{Scenario: "01", Record: event.Record{At: 7 * time.Millisecond, Kind: event.Send, Text: "{}\n"}}, `{"scenario":"01","at_ms":7,"kind":"send","text":"{}\n"}`},
		{event.Event{Scenario: "01", Record: event.Record{Kind: event.Note, Text: "no answer within 2s"}}, `{"scenario":"01","at_ms":0,"kind":"note","text":"no answer within 2s"}`},
		{event.Event{Scenario: "h", Record: event.Record{At: 9 * time.Millisecond, Kind: event.Post, Server: "copy-a", Conn: 1, Header: http.Header{"Mcp-Method": {"ping"}}, Text: "{}"}},
			`{"scenario":"h","at_ms":9,"kind":"post","text":"{}","record":{"server":"copy-a","conn":1,"header":{"Mcp-Method":["ping"]}}}`},
	} {
		b, err := json.Marshal(c.ev)
		if err != nil || string(b) != c.file {
			t.Errorf("the file's line:\n got %s, %v\nwant %s", b, err, c.file)
		}
		var back event.Event
		if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back, c.ev) {
			t.Errorf("read back: %+v, %v\nwant %+v", back, err, c.ev)
		}
	}
}

// TestOlderRigEventsReadBack reads the events the rig saw as versions
// before event.Record wrote them, words alone, back into fields (the MCP
// headers, which were all they wrote of a request's), and writes them
// again with the same words.
func TestOlderRigEventsReadBack(t *testing.T) {
	for _, c := range []struct {
		old  string
		want event.Event
	}{
		{`{"scenario":"s","at_ms":1,"kind":"to-server","text":"notes#1 {\"id\":1}"}`,
			event.Event{Scenario: "s", Record: event.Record{At: 1 * time.Millisecond, Kind: event.Send, Server: "notes", Conn: 1, Played: true, Text: `{"id":1}`}}},
		{`{"scenario":"s","at_ms":1,"kind":"to-server","text":"notes#1 [{\"id\":1}]"}`,
			event.Event{Scenario: "s", Record: event.Record{At: 1 * time.Millisecond, Kind: event.Send, Server: "notes", Conn: 1, Played: true, Text: `[{"id":1}]`}}},
		{`{"scenario":"s","at_ms":2,"kind":"to-server","text":"tickets#3 [Mcp-Protocol-Version: 2026-07-28; Mcp-Method missing] {\"id\":2}"}`,
			event.Event{Scenario: "s", Record: event.Record{At: 2 * time.Millisecond, Kind: event.Post, Server: "tickets", Conn: 3, Played: true, Text: `{"id":2}`,
				Header: http.Header{"Mcp-Protocol-Version": {"2026-07-28"}}}}},
		{`{"scenario":"s","at_ms":3,"kind":"from-server","text":"tickets#3 HTTP 200 application/json"}`,
			event.Event{Scenario: "s", Record: event.Record{At: 3 * time.Millisecond, Kind: event.Status, Server: "tickets", Conn: 3, Played: true, Status: 200, Text: "application/json"}}},
		{`{"scenario":"s","at_ms":4,"kind":"from-server","text":"tickets#3 {\"id\":2,\"result\":{}}"}`,
			event.Event{Scenario: "s", Record: event.Record{At: 4 * time.Millisecond, Kind: event.Answer, Server: "tickets", Conn: 3, Played: true, Text: `{"id":2,"result":{}}`}}},
		{`{"scenario":"s","at_ms":5,"kind":"rig","text":"notes#1 gone"}`,
			event.Event{Scenario: "s", Record: event.Record{At: 5 * time.Millisecond, Kind: event.Exit, Server: "notes", Conn: 1, Played: true}}},
		{`{"scenario":"s","at_ms":6,"kind":"rig","text":"notes#1 held the rig holds this call"}`,
			event.Event{Scenario: "s", Record: event.Record{At: 6 * time.Millisecond, Kind: event.Held, Server: "notes", Conn: 1, Played: true, Text: "the rig holds this call"}}},
		// Words that do not read as the rig's are kept as they are.
		{`{"scenario":"s","at_ms":7,"kind":"rig","text":"no server here"}`,
			event.Event{Scenario: "s", Record: event.Record{At: 7 * time.Millisecond, Kind: event.Rig, Text: "no server here"}}},
		{`{"scenario":"s","at_ms":8,"kind":"answer","text":"notes#1 {}"}`,
			event.Event{Scenario: "s", Record: event.Record{At: 8 * time.Millisecond, Kind: event.Answer, Text: "notes#1 {}"}}},
	} {
		var got event.Event
		if err := json.Unmarshal([]byte(c.old), &got); err != nil {
			t.Fatalf("%s: %v", c.old, err)
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s read back as\n %+v\nwant %+v", c.old, got, c.want)
			continue
		}
		var old, again map[string]any
		b, _ := json.Marshal(got)
		_ = json.Unmarshal([]byte(c.old), &old)
		_ = json.Unmarshal(b, &again)
		if old["kind"] != again["kind"] || old["text"] != again["text"] {
			t.Errorf("%s written again as %s: its words changed", c.old, b)
		}
	}
	if got := event.FromOlder([]event.Event{{Record: event.Record{Kind: event.Send, Text: "x"}}}); got[0].Played {
		t.Errorf("FromOlder read a chunk of the grader's as the rig's: %+v", got)
	}
}

// TestRigWords: a transcript says "eof" and "gone" where the rig always
// has, and names every other kind of the rig's as the kind itself.
func TestRigWords(t *testing.T) {
	for k, want := range map[event.Kind]string{event.Start: "start", event.Send: "send", event.Answer: "answer", event.Close: "eof", event.Exit: "gone",
		event.Post: "post", event.Status: "status", event.Held: "held", event.Cut: "cut", event.Refused: "refused", event.NotKept: "not-kept"} {
		if got := event.RigWord(k); got != want {
			t.Errorf("RigWord(%q) = %q, want %q", k, got, want)
		}
	}
}

// TestEveryRecordFieldInAFile: an event with every field of its Record
// set is read back from its file as it was, so a field a transport adds to
// Record is one a file keeps (see recordFile): a field left zero here fails
// until the test, and the file, hold it.
func TestEveryRecordFieldInAFile(t *testing.T) {
	r := event.Record{At: 3 * time.Millisecond, Kind: event.Post, Text: "{}", Server: "s", Conn: 2,
		Header: http.Header{"Mcp-Method": {"ping"}}, Status: 202, Played: true, Deadline: true}
	v := reflect.ValueOf(r)
	for i := range v.NumField() {
		if v.Field(i).IsZero() {
			t.Errorf("Record.%s is not set here: set it, and keep it in a file", v.Type().Field(i).Name)
		}
	}
	if n := reflect.TypeFor[event.Event]().NumField(); n != 2 {
		t.Errorf("Event has %d fields, want 2: Scenario and the Record it embeds", n)
	}
	b, err := json.Marshal(r.In("sc"))
	if err != nil {
		t.Fatal(err)
	}
	var back event.Event
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if want := r.In("sc"); !reflect.DeepEqual(back, want) {
		t.Errorf("read back from %s:\n got %+v\nwant %+v", b, back, want)
	}
}

// TestRecordInAndBack: a Record becomes a scenario's event, its time in
// whole milliseconds, with every field, and back.
func TestRecordInAndBack(t *testing.T) {
	r := event.Record{At: 1500 * time.Microsecond, Kind: event.Status, Text: "application/json", Server: "t", Conn: 4, Status: 500, Played: true}
	e := r.In("sc")
	want := event.Event{Scenario: "sc", Record: event.Record{At: 1 * time.Millisecond, Kind: event.Status, Text: "application/json", Server: "t", Conn: 4, Status: 500, Played: true}}
	if !reflect.DeepEqual(e, want) {
		t.Errorf("In: %+v\nwant %+v", e, want)
	}
	r.At = time.Millisecond
	if !reflect.DeepEqual(e.Record, r) {
		t.Errorf("Record: %+v\nwant %+v", e.Record, r)
	}
	// Before the start, the time is cut toward zero too, as
	// Duration.Milliseconds cuts it.
	if at := (event.Record{At: -1500 * time.Microsecond}).In("sc").At; at != -time.Millisecond {
		t.Errorf("In at -1.5ms: %s, want -1ms", at)
	}
	if line := r.Line(true); line != "     1ms -- t#4 HTTP 500 application/json" {
		t.Errorf("Line: %q", line)
	}
}

// TestFileEscapes: an event leaves HTML escapes to the encoder that
// writes it, as a struct's fields would: json.Marshal escapes <, > and &,
// an encoder told not to writes them as they are.
func TestFileEscapes(t *testing.T) {
	ev := event.Event{Scenario: "s", Record: event.Record{Kind: event.Answer, Server: "a&b", Conn: 1, Played: true, Text: "<b>"}}
	b, err := json.Marshal(ev)
	if err != nil || !strings.Contains(string(b), `"text":"a\u0026b#1 \u003cb\u003e"`) {
		t.Errorf("json.Marshal: %s, %v", b, err)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(ev); err != nil || !strings.Contains(buf.String(), `"text":"a&b#1 <b>"`) {
		t.Errorf("an encoder without HTML escapes: %s, %v", buf.String(), err)
	}
}
