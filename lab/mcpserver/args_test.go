package mcpserver

import (
	"encoding/json"
	"slices"
	"testing"
)

// TestStringArgs pins what StringArgs accepts, and that it reads the
// arguments exactly as the struct of *string fields the lesson servers
// declared for each tool did (so their answers do not change).
func TestStringArgs(t *testing.T) {
	cases := []struct {
		args string
		want []string // nil: not accepted
	}{
		{`{"title":"a","text":"b"}`, []string{"a", "b"}},
		{` {"text":"b","title":"a","extra":[1,{"x":null}]} `, []string{"a", "b"}},
		{`{"TITLE":"a","Text":"b"}`, []string{"a", "b"}},
		{`{"title":"a","title":"c","text":"b"}`, []string{"c", "b"}},
		{`{"Title":"a","title":"c","text":"b"}`, []string{"c", "b"}},
		{`{"title":"c","Title":"a","text":"b"}`, []string{"a", "b"}},
		{`{"title":"\u00e9\n","text":""}`, []string{"é\n", ""}},
		{`{"title":"a"}`, nil},
		{`{"title":"a","text":null}`, nil},
		{`{"title":"a","text":"b","text":null}`, nil},
		{`{"title":"a","text":5}`, nil},
		{`{"title":"a","text":5,"text":"b"}`, nil},
		{`{"title":"a","text":"b"} x`, nil},
		{`{"title":"a","text":"b"`, nil},
		{`["a","b"]`, nil},
		{`"a"`, nil},
		{`null`, nil},
		{``, nil},
	}
	for _, c := range cases {
		got, ok := StringArgs(json.RawMessage(c.args), "title", "text")
		if ok != (c.want != nil) || !slices.Equal(got, c.want) {
			t.Errorf("StringArgs(%s) = %q, %v; want %q", c.args, got, ok, c.want)
		}
		var a struct {
			Title *string `json:"title"`
			Text  *string `json:"text"`
		}
		structOK := json.Unmarshal([]byte(c.args), &a) == nil && a.Title != nil && a.Text != nil
		if structOK != ok || (ok && (*a.Title != got[0] || *a.Text != got[1])) {
			t.Errorf("StringArgs(%s) = %q, %v, but a struct of *string fields reads it as ok=%v", c.args, got, ok, structOK)
		}
	}
	if got, ok := StringArgs(json.RawMessage(`{"query":"division by zero"}`), "query"); !ok || !slices.Equal(got, []string{"division by zero"}) {
		t.Errorf("one argument: got %q, %v", got, ok)
	}
	if got, ok := StringArgs(json.RawMessage(`{}`)); !ok || len(got) != 0 {
		t.Errorf("no arguments named: got %q, %v; want an empty list, true", got, ok)
	}
}
