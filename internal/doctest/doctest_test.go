package doctest

import (
	"strconv"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	doc, err := Parse("x.md", []byte(strings.Join([]string{
		"# Title",
		"",
		"```sh",
		"lab version   # a comment",
		"# only a comment",
		"",
		`lab grade \`,
		"  -- python3 server.py",
		"```",
		"",
		"<!-- doctest",
		"cd ../..",
		"setup cp a b",
		"skip docker # needs images from a registry",
		"exit 1 lab grade -- go run # the starter fails checks",
		"slow lab grade -- go # takes a while",
		"-->",
		"",
		"```bash",
		"docker compose up",
		"lab grade -- go run .",
		"```",
		"",
		"<!-- doctest: skip # runs this test -->",
		"```sh",
		"bash .ci/run",
		"```",
		"",
		"```yaml",
		"- run: go install -C mcplab ./cmd/lab   # the course's copy",
		"- name: grade",
		`  run: "lab grade -- python3 server.py"`,
		"- run: |",
		"    echo one",
		"    echo two",
		"```",
		"",
		"<!-- doctest: output lab run --no-model",
		"interleaved stderr # another pipe -->",
		"```",
		"-> a",
		"stderr log: ready",
		"```",
		"",
		"```json",
		`{"not":"a command"}`,
		"```",
	}, "\n")))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, b := range doc.Blocks {
		for _, c := range b.Commands {
			got = append(got, strings.Join([]string{itoa(c.Line), c.Text, itoa(c.Exit), c.Skip, c.Slow}, "|"))
		}
	}
	want := []string{
		"4|lab version   # a comment|0||",
		"7|lab grade  -- python3 server.py|0||",
		"20|docker compose up|0|needs images from a registry|",
		"21|lab grade -- go run .|1||takes a while",
		"26|bash .ci/run|0|runs this test|",
		"30|go install -C mcplab ./cmd/lab   # the course's copy|0||",
		"32|lab grade -- python3 server.py|0||",
		"34|echo one|0||",
		"35|echo two|0||",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("commands:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	b := doc.Blocks[1]
	if b.Dir != "../.." || len(b.Setup) != 1 || b.Setup[0].Text != "cp a b" {
		t.Errorf("directives of block 2: dir %q, setup %+v", b.Dir, b.Setup)
	}
	out := doc.Blocks[4]
	if out.Output == nil || out.Output.Text != "lab run --no-model" || len(out.Interleaved) != 1 || out.Text != "-> a\nstderr log: ready\n" {
		t.Errorf("output block: %+v", out)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestParseErrors: an annotation that cannot apply is an error, so it
// cannot go stale silently.
func TestParseErrors(t *testing.T) {
	tests := []struct{ doc, want string }{
		{"<!-- doctest: skip -->\n```sh\nx\n```\n", "needs a reason"},
		{"<!-- doctest: skip docker # no images -->\n```sh\nlab version\n```\n", `skip "docker" matches no command`},
		{"<!-- doctest: exit 1 lab # fails -->\n```sh\ngo version\n```\n", `exit 1 "lab" matches no command`},
		{"<!-- doctest: exit one lab # fails -->\n```sh\nlab\n```\n", "want \"exit N PREFIX # REASON\""},
		{"<!-- doctest: frobnicate -->\n```sh\nx\n```\n", "unknown doctest directive"},
		{"<!-- doctest: cd .. -->\ntext\n", "no code block after it"},
		{"```sh\nx\n", "never closed"},
		{"<!-- doctest: interleaved stderr # another pipe -->\n```\nx\n```\n", "only with output"},
		{"<!-- doctest: cd .. -->\n<!-- doctest: cd . -->\n```sh\nx\n```\n", "second doctest comment"},
	}
	for _, tc := range tests {
		_, err := Parse("x.md", []byte(tc.doc))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%q) = %v, want an error with %q", tc.doc, err, tc.want)
		}
	}
}

func TestCompareOutput(t *testing.T) {
	want := "-> a\nstderr log: ready\n<- b\nstderr log: got b\n-- end\n"
	moved := "stderr log: ready\n-> a\nstderr log: got b\n<- b\n-- end\n"
	if err := CompareOutput(want, moved, []string{"stderr "}); err != nil {
		t.Errorf("stderr lines that moved: %v", err)
	}
	if err := CompareOutput(want, moved, nil); err == nil {
		t.Error("without interleaved, moved lines compared equal")
	}
	swapped := "-> a\nstderr log: ready\n-- end\n<- b\nstderr log: got b\n"
	if err := CompareOutput(want, swapped, []string{"stderr "}); err == nil || !strings.Contains(err.Error(), `"<- b"`) {
		t.Errorf("swapped answer lines: %v", err)
	}
	if err := CompareOutput(want, strings.Replace(want, "got b", "got c", 1), []string{"stderr "}); err == nil {
		t.Error("a changed stderr line compared equal")
	}
}
