package report_test

import (
	"bytes"
	"path"
	"strings"
	"testing"

	"github.com/mcplab/mcplab/grading"
	"github.com/mcplab/mcplab/grading/report"
)

// TestFormatTable holds the one table of formats to what a results folder
// needs: every format found by its name, each kept in a file of its own
// named after it, and an unknown name refused, never taken for another
// format.
func TestFormatTable(t *testing.T) {
	files := map[string]string{}
	for _, name := range report.Formats() {
		f, err := report.Lookup(name)
		if err != nil {
			t.Fatalf("Lookup(%q): %v", name, err)
		}
		for _, file := range []string{f.File, f.Side} {
			if file == "" {
				continue
			}
			if other, ok := files[file]; ok {
				t.Errorf("%s and %s are both kept in %s", other, name, file)
			}
			files[file] = name
			if path.Base(file) != file || !strings.Contains(file, ".") {
				t.Errorf("%s's file %q is not a plain file name with an extension", name, file)
			}
		}
	}
	for _, bad := range []string{"", "JSON", "json ", "pdf"} {
		if _, err := report.Lookup(bad); err == nil || !strings.Contains(err.Error(), "unknown format") {
			t.Errorf("Lookup(%q): %v, want an unknown-format error", bad, err)
		}
		var b bytes.Buffer
		if err := report.Write(&b, bad, &grading.Result{}, report.Options{}); err == nil || b.Len() > 0 {
			t.Errorf("Write(%q): %v and %d bytes, want an error and nothing written", bad, err, b.Len())
		}
	}
}
