package report

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcplab/mcplab/grading"
	"github.com/mcplab/mcplab/lab/event"
)

// assertedResult is a lesson-1 run of three scenarios that each assert the
// answer to 2 before the answer to 1 (id 1 waits 150 ms, id 2 none): kept,
// broken (1 answered first), broken with no answer to 2, and kept with no
// answer to 1 (as lesson 1 stops the server once 2 is answered).
func assertedResult() *grading.Result {
	r := &grading.Result{Lesson: 1, Gradable: true, MaxScore: 2,
		Outcome: grading.Outcome{Kind: grading.OutcomeWrongAnswers, Detail: "id 1 was answered before id 2"},
		Checks: []grading.CheckResult{{ID: "order.concurrent", Title: "a short wait is answered first", Status: grading.StatusFail, MaxPoints: 2,
			Message: "In scenario broken, id 1 was answered at 150ms, before id 2 at 151ms."}}}
	slow := `{"jsonrpc":"2.0","id":1,"method":"wait","params":{"ms":150}}` + "\n"
	fast := `{"jsonrpc":"2.0","id":2,"method":"wait","params":{"ms":0}}` + "\n"
	answer := func(id, ms int) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"waited":%d}}`, id, ms)
	}
	for _, sc := range []struct {
		name    string
		answers []grading.Event
	}{
		{"kept", []grading.Event{{Record: event.Record{At: 3 * time.Millisecond, Text: answer(2, 0)}}, {Record: event.Record{At: 152 * time.Millisecond, Text: answer(1, 150)}}}},
		{"broken", []grading.Event{{Record: event.Record{At: 150 * time.Millisecond, Text: answer(1, 150)}}, {Record: event.Record{At: 151 * time.Millisecond, Text: answer(2, 0)}}}},
		{"missing", []grading.Event{{Record: event.Record{At: 150 * time.Millisecond, Text: answer(1, 150)}}}},
		{"stopped", []grading.Event{{Record: event.Record{At: 3 * time.Millisecond, Text: answer(2, 0)}}}},
	} {
		r.Transcript = append(r.Transcript,
			grading.Event{Scenario: sc.name, Record: event.Record{At: 0, Kind: event.Send, Text: slow}},
			grading.Event{Scenario: sc.name, Record: event.Record{At: 1 * time.Millisecond, Kind: event.Send, Text: fast}})
		for _, a := range sc.answers {
			a.Scenario, a.Kind = sc.name, event.Answer
			r.Transcript = append(r.Transcript, a)
		}
		r.Transcript = append(r.Transcript, grading.Event{Scenario: sc.name, Record: event.Record{At: 160 * time.Millisecond, Kind: event.Close}})
		r.Orders = append(r.Orders, grading.AssertedOrder{Scenario: sc.name, First: "2", Then: "1", Checks: []string{"order.concurrent"}})
	}
	return r
}

// TestHTMLAssertedOrder: each order a scenario asserts is stated in words
// with what happened, and drawn as an arc from the answer that must come
// first to the one that must come after (green when kept, dashed red when
// not), or as a tag beside the one answer that came.
func TestHTMLAssertedOrder(t *testing.T) {
	page := renderHTML(t, assertedResult())
	ask := "The lesson asserts the answer to id 2 before the answer to id 1 (order.concurrent): "
	items := regexp.MustCompile(`<li class="(kept|broken)" data-first="2" data-then="1">([^<]*)</li>`).FindAllStringSubmatch(page, -1)
	want := [][2]string{
		{"kept", ask + "id 2 was answered at 3 ms (event 3), and id 1 was answered at 152 ms (event 4), after it, as asserted."},
		{"broken", ask + "id 1 was answered at 150 ms (event 3), before id 2 was answered at 151 ms (event 4): the asserted order is broken."},
		{"broken", ask + "id 2 was not answered before the scenario ended, while id 1 was answered at 150 ms (event 3): the asserted order is broken."},
		{"kept", ask + "id 2 was answered at 3 ms (event 3), and id 1 was not answered before the scenario ended: id 2 came first, as asserted."},
	}
	if len(items) != len(want) {
		t.Fatalf("%d asserted orders listed, want %d: %q", len(items), len(want), items)
	}
	for i, w := range want {
		if items[i][1] != w[0] || items[i][2] != w[1] {
			t.Errorf("asserted order %d: %s %q\nwant %s %q", i, items[i][1], items[i][2], w[0], w[1])
		}
	}
	if n := strings.Count(page, "<strong>Order the lesson asserts:</strong>"); n != 4 {
		t.Errorf("%d lists of asserted orders, want one per scenario (4)", n)
	}

	// The drawing: an arc between the two answers' marks, or a tag.
	groups := regexp.MustCompile(`<g class="asserted (kept|broken)" data-first="2" data-then="1"><title>[^<]*</title>(<path d="M([0-9.]+) ([0-9.]+) C[^"]* ([0-9.]+) ([0-9.]+)" fill="none" stroke="(#[0-9a-f]+)" stroke-width="1.5"( stroke-dasharray="4 2")?/>)?<text [^>]*>([^<]*)</text></g>`).FindAllStringSubmatch(page, -1)
	if len(groups) != 4 {
		t.Fatalf("%d asserted orders drawn, want 4", len(groups))
	}
	rects := map[string][2]float64{} // mark id: x and width
	for _, m := range regexp.MustCompile(`id="(m-[0-9]+-[0-9]+)"[^>]*><title>[^<]*</title><rect x="([0-9.]+)" y="[0-9.]+" width="([0-9.]+)"`).FindAllStringSubmatch(page, -1) {
		x, _ := strconv.ParseFloat(m[2], 64)
		w, _ := strconv.ParseFloat(m[3], 64)
		rects[m[1]] = [2]float64{x, w}
	}
	centre := func(id string) string { r := rects[id]; return fmt.Sprintf("%.1f", r[0]+r[1]/2) }
	for i, c := range []struct {
		state, from, to, colour, dash, tag string
	}{
		{"kept", "m-0-2", "m-0-3", "#1a7f37", "", "asserted: 2 before 1"},
		{"broken", "m-1-3", "m-1-2", "#c62828", ` stroke-dasharray="4 2"`, "asserted: 2 before 1"},
		{"broken", "", "", "", "", "asserted: 2 before 1 (no answer to 2)"},
		{"kept", "", "", "", "", "asserted: 2 before 1 (no answer to 1)"},
	} {
		g := groups[i]
		if g[1] != c.state || g[9] != c.tag {
			t.Errorf("asserted order %d is drawn %s with the tag %q, want %s with %q", i, g[1], g[9], c.state, c.tag)
		}
		if c.from == "" {
			if g[2] != "" {
				t.Errorf("asserted order %d with one answer is drawn as an arc: %s", i, g[2])
			}
			continue
		}
		if g[3] != centre(c.from) || g[5] != centre(c.to) || g[7] != c.colour || g[8] != c.dash {
			t.Errorf("asserted order %d: arc from x %s to x %s in %s%s; want from %s (the answer to 2, x %s) to %s (x %s) in %s%s",
				i, g[3], g[5], g[7], g[8], c.from, centre(c.from), c.to, centre(c.to), c.colour, c.dash)
		}
	}
}

// TestMarkdownAssertedOrder: the Markdown report lists each order a
// scenario asserts after that scenario's transcript, in the HTML page's
// words, marked kept or broken.
func TestMarkdownAssertedOrder(t *testing.T) {
	out, _ := render(t, FormatMarkdown, assertedResult(), Options{})
	md := string(out)
	ask := "The lesson asserts the answer to id 2 before the answer to id 1 (order.concurrent): "
	want := []string{
		"### Scenario kept", "**Order the lesson asserts:**\n\n- ✅ " + ask + "id 2 was answered at 3 ms (event 3), and id 1 was answered at 152 ms (event 4), after it, as asserted.\n\n",
		"### Scenario broken", "**Order the lesson asserts:**\n\n- ❌ " + ask + "id 1 was answered at 150 ms (event 3), before id 2 was answered at 151 ms (event 4): the asserted order is broken.\n\n",
		"### Scenario missing", "**Order the lesson asserts:**\n\n- ❌ " + ask + "id 2 was not answered before the scenario ended, while id 1 was answered at 150 ms (event 3): the asserted order is broken.\n\n",
		"### Scenario stopped", "**Order the lesson asserts:**\n\n- ✅ " + ask + "id 2 was answered at 3 ms (event 3), and id 1 was not answered before the scenario ended: id 2 came first, as asserted.\n\n",
	}
	rest := md
	for _, w := range want {
		i := strings.Index(rest, w)
		if i < 0 {
			t.Fatalf("the report lacks, in order, %q:\n%s", w, md)
		}
		rest = rest[i+len(w):]
	}
	if n := strings.Count(md, "**Order the lesson asserts:**"); n != 4 {
		t.Errorf("%d lists of asserted orders, want 4", n)
	}
	plain := assertedResult()
	plain.Orders = nil
	if out, _ := render(t, FormatMarkdown, plain, Options{}); strings.Contains(string(out), "Order the lesson asserts") {
		t.Error("a result with no asserted orders lists some")
	}
}
