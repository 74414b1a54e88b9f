package lessons

import (
	"reflect"
	"testing"
)

func TestKeyValues(t *testing.T) {
	got := KeyValues([]byte("# a comment\n\n  title : Reading: messages \nno colon here\r\nempty:\n   # indented comment\n"))
	want := []KeyValue{
		{Line: 3, Text: "title : Reading: messages", Key: "title", Value: "Reading: messages", OK: true},
		{Line: 4, Text: "no colon here"},
		{Line: 5, Text: "empty:", Key: "empty", OK: true},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("KeyValues:\n got %+v\nwant %+v", got, want)
	}
	if got := KeyValues(nil); len(got) != 0 {
		t.Errorf("KeyValues(nil) = %+v, want none", got)
	}
}
