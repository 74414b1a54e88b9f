package serverlesson

import (
	"os"
	"strings"
	"testing"
)

// TestServerJudgesInReadme checks that the table of judges in
// lessons/README.md lists every judge of the server kind, each taking no
// parameters.
func TestServerJudgesInReadme(t *testing.T) {
	data, err := os.ReadFile("../../lessons/README.md")
	if err != nil {
		t.Fatal(err)
	}
	r := serverJudges()
	for _, name := range r.Names() {
		if j, _ := r.Lookup(name); len(j.Params) > 0 {
			t.Errorf("%s takes parameters: give its row in lessons/README.md its parameters, and this test a look", name)
		}
		if row := "| server | `" + name + "` | | "; !strings.Contains(string(data), row) {
			t.Errorf("lessons/README.md has no row %q...", row)
		}
	}
}
