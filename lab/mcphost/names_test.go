package mcphost

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestLocalName(t *testing.T) {
	long := "a_tool_whose_name_is_far_too_long_for_the_sixty_four_limit"
	for _, tt := range []struct{ alias, tool, want string }{
		{"notes", "search", "mcp__notes__search"},
		{"tickets", "search", "mcp__tickets__search"},
		// one "_" for each character that is not allowed, accents included
		{"tickets", "créer_ticket", "mcp__tickets__cr_er_ticket"},
		{"notes", "search.v2", "mcp__notes__search_v2"},
		{"notes", "read note/2", "mcp__notes__read_note_2"},
		{"notes", "😀", "mcp__notes___"},
		// tool names may hold "__" themselves
		{"notes", "a__b", "mcp__notes__a__b"},
		// cut: 57 characters, "_", six hex digits of sha1("tickets::" + tool)
		{"tickets", long, "mcp__tickets__a_tool_whose_name_is_far_too_long_for_the_s_b561f8"},
		// exactly 64 is kept whole
		{"n", strings.Repeat("x", 64-len("mcp__n__")), "mcp__n__" + strings.Repeat("x", 56)},
	} {
		got := LocalName(tt.alias, tt.tool)
		if got != tt.want {
			t.Errorf("LocalName(%q, %q) = %q, want %q", tt.alias, tt.tool, got, tt.want)
		}
		if len(got) > MaxNameLength || strings.IndexFunc(got, func(r rune) bool { return !nameChar(r) }) >= 0 {
			t.Errorf("%q is not a name a model API accepts", got)
		}
	}
}

// Two long names that only differ after the cut stay apart.
func TestLocalNameCutKeepsNamesApart(t *testing.T) {
	a := LocalName("tickets", strings.Repeat("x", 60)+"_one")
	b := LocalName("tickets", strings.Repeat("x", 60)+"_two")
	if a == b || len(a) != 64 || len(b) != 64 || a[:57] != b[:57] {
		t.Errorf("%q and %q", a, b)
	}
}

func TestTruncate(t *testing.T) {
	for _, tt := range []struct {
		name    string
		text    string
		wantLen int
		wantCut int
	}{
		{"fits", strings.Repeat("a", 8000), 8000, 0},
		{"one over", strings.Repeat("a", 8001), 8000 + 47 + 1, 1},
		{"the long note", strings.Repeat("a", 24000), 8052, 16000},
		{"just five digits", strings.Repeat("a", 18000), 8052, 10000},
		{"accents count once", strings.Repeat("é", 9000), 8000 + 47 + 4, 1000},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, cut := Truncate(tt.text)
			if n := utf8.RuneCountInString(got); n != tt.wantLen || cut != tt.wantCut {
				t.Errorf("%d characters, cut %d; want %d, cut %d", n, cut, tt.wantLen, tt.wantCut)
			}
			if !utf8.ValidString(got) {
				t.Error("the cut split a character")
			}
			if cut > 0 && !strings.HasSuffix(got, "more characters were cut from this result.]") {
				t.Errorf("no sentence: %q", got[len(got)-60:])
			}
		})
	}
	got, _ := Truncate(strings.Repeat("a", 24000))
	if want := strings.Repeat("a", 8000) + "\n\n[16000 more characters were cut from this result.]"; got != want {
		t.Errorf("the long note ends %q", got[7990:])
	}
}
