package scenario

import (
	"strings"
	"testing"
	"time"
)

const lesson = `A comment.
-- steps --
at 0ms    send wait1          # a comment
at 20ms   send ping[:12]
at 40ms   send ping[12:] bad
await "x" within 5s
at 200ms  close
-- wait1 --
{"id":1}
-- ping --
{"jsonrpc":"2.0","id":3,"method":"ping"}
-- bad --
not json
-- expect --
# comment
methods.wait,framing.x  {"jsonrpc":"2.0","id":1,"result":{"waited":80}}
errors.parse            {"jsonrpc":"2.0","id":null,"error":{"code":-32700}}
order.concurrent        2 before "a"
`

func TestParse(t *testing.T) {
	sc, err := Parse("lesson", []byte(lesson))
	if err != nil {
		t.Fatal(err)
	}
	if sc.Comment != "A comment." {
		t.Errorf("comment %q", sc.Comment)
	}
	// The five steps as written, and before the close the await of every
	// request sent so far: {"id":1} (a bad line answered with its id) and 3.
	if len(sc.Steps) != 6 {
		t.Fatalf("%d steps", len(sc.Steps))
	}
	if got := string(sc.Steps[1].Data); got != `{"jsonrpc":"` {
		t.Errorf("ping[:12] = %q", got)
	}
	if got := string(sc.Steps[2].Data); got != `2.0","id":3,"method":"ping"}`+"\nnot json\n" {
		t.Errorf("ping[12:] bad = %q", got)
	}
	if st := sc.Steps[3]; st.Kind != StepAwait || string(st.ID) != `"x"` || st.Within != 5*time.Second {
		t.Errorf("await step %+v", st)
	}
	if st := sc.Steps[4]; st.Kind != StepAwait || !st.Implicit || len(st.IDs) != 2 || string(st.IDs[0]) != "1" || string(st.IDs[1]) != "3" || st.Within != DefaultWait {
		t.Errorf("wait before the close %+v", st)
	}
	if st := sc.Steps[5]; st.Kind != StepClose || st.At != 200*time.Millisecond || st.Early {
		t.Errorf("close step %+v", st)
	}
	if len(sc.Expect) != 2 || strings.Join(sc.Expect[0].Checks, ",") != "methods.wait,framing.x" ||
		string(sc.Expect[0].Result) != `{"waited":80}` || sc.Expect[1].Code != -32700 || string(sc.Expect[1].ID) != "null" {
		t.Errorf("expect %+v", sc.Expect)
	}
	if len(sc.Orders) != 1 || string(sc.Orders[0].First) != "2" || string(sc.Orders[0].Then) != `"a"` {
		t.Errorf("orders %+v", sc.Orders)
	}
	if sc.Ends() != StepClose {
		t.Errorf("ends with %v", sc.Ends())
	}
}

// TestParseErrors checks that a teacher's mistake in a scenario file is
// reported with its line and what was wanted.
func TestParseErrors(t *testing.T) {
	tests := map[string]string{
		"no steps":          "-- a --\nx\n",
		"unknown step":      "-- steps --\njump 5\n",
		"unknown part":      "-- steps --\nat 0ms send nope\n",
		"bad time":          "-- steps --\nat soon send a\n-- a --\nx\n",
		"bad slice":         "-- steps --\nat 0ms send a[1:99]\n-- a --\nx\n",
		"reversed slice":    "-- steps --\nat 0ms send a[2:1]\n-- a --\nxyz\n",
		"bad await":         "-- steps --\nawait 1\n",
		"bad await id":      "-- steps --\nawait 1.5 within 1s\n",
		"bad check id":      "-- steps --\nkill\n-- expect --\nNotACheck {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n",
		"bad answer":        "-- steps --\nkill\n-- expect --\na.b {\"jsonrpc\":\"2.0\",\"id\":1}\n",
		"partial order":     "-- steps --\nkill\n-- expect --\na.b partial 1 before 2\n",
		"bad order":         "-- steps --\nkill\n-- expect --\na.b 1 after 2\n",
		"part twice":        "-- steps --\nkill\n-- a --\nx\n-- a --\ny\n",
		"empty steps":       "-- steps --\n# nothing\n",
		"send without part": "-- steps --\nat 0ms send\n",
		"close what":        "-- steps --\nat 0ms close late\n",
	}
	for name, text := range tests {
		if _, err := Parse(name, []byte(text)); err == nil {
			t.Errorf("%s: no error", name)
		} else if !strings.Contains(err.Error(), "scenario "+name) {
			t.Errorf("%s: error %q does not name the scenario", name, err)
		}
	}
	_, err := Parse("x", []byte("-- steps --\nat 0ms send nope\n"))
	if err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("error %v does not name line 2", err)
	}
}

func TestNegativeSlice(t *testing.T) {
	sc, err := Parse("x", []byte("-- steps --\nat 0ms send a[:-1]\n-- a --\nabc\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(sc.Steps[0].Data); got != "abc" {
		t.Errorf("a[:-1] = %q, want the part without its newline", got)
	}
}

// TestPartialAndNoID reads the two kinds of expected answer lesson 2 needs:
// one that may hold more members, and one with no id member at all.
func TestPartialAndNoID(t *testing.T) {
	sc, err := Parse("x", []byte("-- steps --\nkill\n-- expect --\n"+
		"a.b partial {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"tools\":[]}}\n"+
		"a.c {\"jsonrpc\":\"2.0\",\"error\":{\"code\":-32700}}\n"))
	if err != nil {
		t.Fatal(err)
	}
	p, n := sc.Expect[0], sc.Expect[1]
	if !p.Partial || p.NoID || string(p.ID) != "1" || string(p.Result) != `{"tools":[]}` {
		t.Errorf("partial answer read as %+v", p)
	}
	if n.Partial || !n.NoID || string(n.ID) != "null" || n.Code != -32700 || n.Text != `{"jsonrpc":"2.0","error":{"code":-32700}}` {
		t.Errorf("answer without id read as %+v", n)
	}
}

// TestWaitsBeforeClose checks where the parser adds the wait for answers: a
// close waits for every request sent before it (strings, integers, and bad
// lines whose id can be read), a scenario with no close waits at its end, a
// close early and a kill do not wait, and nothing is awaited twice when the
// waits are added again.
func TestWaitsBeforeClose(t *testing.T) {
	parts := "-- a --\n{\"jsonrpc\":\"2.0\",\"id\":\"x\",\"method\":\"ping\"}\n" +
		"{\"jsonrpc\":\"2.0\",\"method\":\"n\"}\nnot json\n{\"jsonrpc\":\"1.0\",\"id\":7,\"method\":\"ping\"}\n" +
		"{\"jsonrpc\":\"2.0\",\"id\":true,\"method\":\"ping\"}\n"
	tests := []struct {
		name, steps string
		want        []string // each step's kind, with an await's ids
	}{
		{"close", "at 0ms send a\nat 50ms close\n", []string{"send", `await "x",7`, "close"}},
		{"end", "at 0ms send a\n", []string{"send", `await "x",7`}},
		{"early", "at 0ms send a\nat 0ms close early\n", []string{"send", "close early"}},
		{"kill", "at 0ms send a\nkill\n", []string{"send", "kill"}},
		{"nothing sent", "at 0ms close\n", []string{"close"}},
	}
	for _, tt := range tests {
		sc, err := Parse(tt.name, []byte("-- steps --\n"+tt.steps+parts))
		if err != nil {
			t.Fatal(err)
		}
		sc.AddWaits(DefaultWait) // again: must change nothing
		var got []string
		for _, st := range sc.Steps {
			switch st.Kind {
			case StepSend:
				got = append(got, "send")
			case StepAwait:
				var ids []string
				for _, id := range st.IDs {
					ids = append(ids, string(id))
				}
				got = append(got, "await "+strings.Join(ids, ","))
			case StepClose:
				if st.Early {
					got = append(got, "close early")
				} else {
					got = append(got, "close")
				}
			case StepKill:
				got = append(got, "kill")
			}
		}
		if strings.Join(got, "; ") != strings.Join(tt.want, "; ") {
			t.Errorf("%s: steps %q, want %q", tt.name, got, tt.want)
		}
	}
}
