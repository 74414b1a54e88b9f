package helpdesk_test

import (
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/mcplab/mcplab/lab/helpdesk"
)

// TestLoadDataBounds: a lesson folder's data files are read as plain files
// of at most MaxDataFile bytes; anything else is refused with its name.
func TestLoadDataBounds(t *testing.T) {
	customers := &fstest.MapFile{Data: []byte(`[{"id": "C-1", "name": "A", "business": "B", "city": "C", "plan": "club", "email": "a@b.example", "customer_since": "2025-01-01"}]`)}
	for _, tc := range []struct {
		name    string
		tickets *fstest.MapFile
		want    string
	}{
		{"too big", &fstest.MapFile{Data: []byte("[" + strings.Repeat(" ", helpdesk.MaxDataFile) + "]")}, "reading the helpdesk's data: tickets.json is over 8 MiB"},
		{"a pipe", &fstest.MapFile{Mode: fs.ModeNamedPipe}, "reading the helpdesk's data: tickets.json is not a plain file"},
		{"at the bound", &fstest.MapFile{Data: []byte("[" + strings.Repeat(" ", helpdesk.MaxDataFile-2) + "]")}, ""},
	} {
		_, err := helpdesk.LoadData(fstest.MapFS{helpdesk.TicketsFile: tc.tickets, helpdesk.CustomersFile: customers})
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("%s: error %q, want %q", tc.name, got, tc.want)
		}
	}
}
