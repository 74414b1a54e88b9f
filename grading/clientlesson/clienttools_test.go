package clientlesson_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/mcplab/mcplab/lab/proc"
)

// TestUnknownToolMessageListsEveryPage grades lesson 3's Python starter as
// shipped: it reads only the first page of tools/list and calls tools by
// their namespaced names. The original-name failure must name all three
// tools the notes server offers, add_note from the second page included,
// not only the two the client saw.
func TestUnknownToolMessageListsEveryPage(t *testing.T) {
	t.Parallel()
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed; the Python starter cannot run")
	}
	res := gradeClient(t, proc.Command{Path: py, Args: []string{"client.py"}, Dir: "../../lessons/03-wiring-up-mcp/starter/python"})
	for _, c := range res.Checks {
		if c.ID != "original-name" {
			continue
		}
		want := `the client called the tool "mcp__notes__search" on the notes server, which has no tool of that name (its tools, every page: search, read_note, add_note)`
		if !strings.Contains(c.Message, want) {
			t.Errorf("the original-name message lacks %q:\n%s", want, c.Message)
		}
		return
	}
	t.Fatal("no original-name check in the result")
}
