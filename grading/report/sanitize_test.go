package report

import (
	"regexp"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/mcplab/mcplab/grading"
	"github.com/mcplab/mcplab/lab/event"
)

func TestClean(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain {\"id\":1}\n\tok", "plain {\"id\":1}\n\tok"},
		{"\x1b[31mred\x1b[0m", `\x1b[31mred\x1b[0m`},
		{"a\rb", `a\rb`},
		{"nul\x00 bell\x07 del\x7f", `nul\x00 bell\x07 del\x7f`},
		{"bad \xff\xfe utf8 \xe2\x82", `bad \xff\xfe utf8 \xe2\x82`},
		{"c1 \u009b31m \u0085", `c1 \u009b31m \u0085`},
		{"bidi \u202eevil\u202c \u2066x\u2069", `bidi \u202eevil\u202c \u2066x\u2069`},
		{"\ufeff{\"id\":1}", `\ufeff{"id":1}`},
		{"line\u2028sep", `line\u2028sep`},
		{"not xml \uffff", `not xml \uffff`},
		{"kept: é 日本 👩‍💻 \ufffd", "kept: é 日本 👩‍💻 \ufffd"},
	} {
		if got := clean(c.in); got != c.want {
			t.Errorf("clean(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestSanitizedCopiesEveryString(t *testing.T) {
	seed := int64(1)
	r := &grading.Result{
		Problem:    "\x1b",
		Outcome:    grading.Outcome{Kind: "\x1b", Detail: "\x1b"},
		Checks:     []grading.CheckResult{{ID: "\x1b", Title: "\x1b", Status: "\x1b", Message: "\x1b", Expected: "\x1b", Actual: "\x1b", Rule: "\x1b", Fix: "\x1b"}},
		Transcript: []grading.Event{{Scenario: "\x1b", Record: event.Record{Kind: "\x1b", Text: "\x1b"}}},
		Cuts:       &seed,
		Submission: &grading.Submission{Name: "\x1b", Commit: "\x1b", Hash: "\x1b"},
	}
	s := sanitized(r)
	out, err := marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(out), `\u001b`) {
		t.Errorf("a string was not cleaned: %s", out)
	}
	if r.Checks[0].ID != "\x1b" || r.Transcript[0].Text != "\x1b" || r.Submission.Name != "\x1b" || s.Cuts == r.Cuts {
		t.Error("sanitized changed or shared its input")
	}
}

func TestClip(t *testing.T) {
	if got := clip("short", 10); got != "short" {
		t.Errorf("clip short = %q", got)
	}
	if got := clip("héllo world", 2); got != "h… [cut: 11 more bytes not shown]" {
		t.Errorf("clip mid-rune = %q", got)
	}
	if got := clipRunes("日本語テキスト", 4); got != "日本語…" || utf8.RuneCountInString(got) != 4 {
		t.Errorf("clipRunes = %q", got)
	}
}

func TestMarkdownEscapes(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"a|b", `a\|b`},
		{"`code` and ```", "\\`code\\` and \\`\\`\\`"},
		{"<script>&", "&lt;script&gt;&amp;"},
		{"*b* _i_ ~s~ [l](x) #h \\", `\*b\* \_i\_ \~s\~ \[l\](x) \#h \\`},
		{"- item", `\- item`},
		{"12. item", `12\. item`},
		{"two\nlines", "two lines"},
		{"see https://x.example and www.y.example", "see https&#58;//x.example and www&#46;y.example"},
		{"mail a@evil.example", "mail a&#64;evil.example"},
	} {
		if got := mdInline(c.in); got != c.want {
			t.Errorf("mdInline(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if got := mdCell("a\nb|c"); got != `a<br>b\|c` {
		t.Errorf("mdCell = %q", got)
	}
	for _, c := range []struct{ in, want string }{
		{"no ticks", "```"},
		{"``", "```"},
		{"a ``` b", "````"},
		{"`````", "``````"},
	} {
		if got := fence(c.in); got != c.want {
			t.Errorf("fence(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if got := mdCodeText("<script>&"); got != `\u003cscript\u003e\u0026` {
		t.Errorf("mdCodeText = %q", got)
	}
}

func TestMermaidText(t *testing.T) {
	in := `a;b#c:d"e'f<g>h&i%j` + "`k{l}\nm"
	want := `a#59;b#35;c#58;d#quot;e#39;f#lt;g#gt;h#amp;i#37;j#96;k#123;l#125; ⏎ m`
	if got := mermaidText(in); got != want {
		t.Errorf("mermaidText = %q, want %q", got, want)
	}
}

func TestWorkflowEscapes(t *testing.T) {
	if got := ghData("50% done\r\n::error::x"); got != "50%25 done%0D%0A::error::x" {
		t.Errorf("ghData = %q", got)
	}
	if got := ghProperty("a:b,c%\n"); got != "a%3Ab%2Cc%25%0A" {
		t.Errorf("ghProperty = %q", got)
	}
	for _, c := range []struct{ in, want string }{
		{"plain line", "plain line"},
		{"::error::x", "| ::error::x"},
		{"  \u00a0 ::warning::x", "|   \u00a0 ::warning::x"},
		{"text ##[error]x", `text ##\[error]x`},
		{"a :: b", "a :: b"},
	} {
		if got := ghLogLine(c.in); got != c.want {
			t.Errorf("ghLogLine(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// FuzzNeutralisers checks the promises of the neutralisers on any input:
// what clean returns has no control character and is valid UTF-8, and each
// context escaper leaves nothing its context would act on.
func FuzzNeutralisers(f *testing.F) {
	for _, s := range []string{nasty, "::error::x", "  ::x::y\n##[set-env]", "| a | `b` |\n<script>", "#59; ; # : \" ' < > & % ` { }", "\xff\x1b\u009b\u202e\r\n"} {
		f.Add(s)
	}
	entity := regexp.MustCompile(`#[a-z0-9]+;`)
	unescapedPipe := regexp.MustCompile(`(^|[^\\])(\\\\)*[|` + "`" + `]`)
	f.Fuzz(func(t *testing.T, in string) {
		c := clean(in)
		if !utf8.ValidString(c) {
			t.Fatalf("clean(%q) is not valid UTF-8", in)
		}
		for _, r := range c {
			if (r < 0x20 && r != '\n' && r != '\t') || (r >= 0x7f && r <= 0x9f) || hidden(r) {
				t.Fatalf("clean(%q) keeps %U", in, r)
			}
		}
		if m := mdInline(c); strings.ContainsAny(m, "\n<>") || unescapedPipe.MatchString(m) {
			t.Fatalf("mdInline(%q) = %q", c, m)
		}
		if m := mermaidText(c); strings.ContainsAny(entity.ReplaceAllString(m, ""), "#;\n<>\"'`%:") {
			t.Fatalf("mermaidText(%q) = %q", c, m)
		}
		for _, line := range strings.Split(oneLine(c, " | "), "\n") {
			g := ghLogLine(line)
			if strings.HasPrefix(strings.TrimLeftFunc(g, unicode.IsSpace), "::") || strings.Contains(g, "##[") || strings.ContainsAny(g, "\r\n") {
				t.Fatalf("ghLogLine(%q) = %q", line, g)
			}
		}
		if d := ghData(c); strings.ContainsAny(d, "\r\n") {
			t.Fatalf("ghData(%q) = %q", c, d)
		}
		if fc := fence(c); strings.Contains(c, fc) {
			t.Fatalf("fence %q occurs in %q", fc, c)
		}
	})
}
