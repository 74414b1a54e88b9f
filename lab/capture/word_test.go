package capture_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/mcplab/mcplab/lab/capture"
	"github.com/mcplab/mcplab/lab/event"
)

// A session file names who wrote each line ("client", "server", "stderr",
// "lab") while the records hold the lab's event kinds: the file's bytes are
// the words, reading them gives the kinds back, and a word of the event
// set that is no sender ("send") is refused as it always was.
func TestSessionFileWords(t *testing.T) {
	text := func(s string) *string { return &s }
	s := &capture.Session{Records: []capture.Record{
		{Seq: 1, Ms: 0.5, From: capture.Client, Message: json.RawMessage(`{"jsonrpc":"2.0","id":1,"method":"a<b"}`)},
		{Seq: 2, Ms: 1, From: capture.Server, Message: json.RawMessage(`{"jsonrpc":"2.0","id":1,"result":{}}`)},
		{Seq: 3, Ms: 1.25, From: capture.Stderr, Text: text("log: a & b")},
		{Seq: 4, Ms: 2, From: capture.Lab, Text: text("stdin closed")},
	}}
	var b bytes.Buffer
	if err := s.WriteJSONL(&b); err != nil {
		t.Fatal(err)
	}
	want := `{"seq":1,"ms":0.5,"from":"client","message":{"jsonrpc":"2.0","id":1,"method":"a<b"}}
{"seq":2,"ms":1,"from":"server","message":{"jsonrpc":"2.0","id":1,"result":{}}}
{"seq":3,"ms":1.25,"from":"stderr","text":"log: a & b"}
{"seq":4,"ms":2,"from":"lab","text":"stdin closed"}
`
	if b.String() != want {
		t.Errorf("WriteJSONL wrote\n%swant\n%s", b.String(), want)
	}
	back, err := capture.ReadJSONL(b.Bytes())
	if err != nil || !reflect.DeepEqual(back, s.Records) {
		t.Errorf("ReadJSONL gave %+v, %v; want the records written", back, err)
	}
	if back[0].From != event.Send || back[1].From != event.Answer || back[3].From != event.Note {
		t.Errorf("the kinds read are %q %q %q, want send, answer, note", back[0].From, back[1].From, back[3].From)
	}
	for _, word := range []string{"send", "answer", "note", "nobody"} {
		_, err := capture.ReadJSONL([]byte(`{"seq":1,"ms":0,"from":"` + word + `","text":"x"}`))
		if want := `line 1: unknown sender "` + word + `"`; err == nil || err.Error() != want {
			t.Errorf("from %q: %v, want %s", word, err, want)
		}
	}
	var r capture.Record
	if err := json.Unmarshal([]byte(`{"seq":7,"ms":3,"from":"server","text":"not json"}`), &r); err != nil || r.From != capture.Server || r.Seq != 7 {
		t.Errorf("json.Unmarshal of a record gave %+v, %v", r, err)
	}
	if err := json.Unmarshal([]byte(`{"seq":7,"ms":3,"from":"answer"}`), &r); err == nil {
		t.Errorf("json.Unmarshal took the kind word answer as a sender")
	}
}
