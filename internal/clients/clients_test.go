package clients

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mcplab/mcplab/internal/testkit"
	"github.com/mcplab/mcplab/lab/mcphost"
	"github.com/mcplab/mcplab/lessons"
)

// TestLookup finds a client by name and names them all when it cannot.
func TestLookup(t *testing.T) {
	if c, err := Lookup("host"); err != nil || c.Name != "host" || c.Serve == nil || c.Approve == nil {
		t.Errorf("Lookup(host) = %+v, %v", c, err)
	}
	_, err := Lookup("claude")
	if want := `no reference client named "claude"; the clients are: host`; err == nil || err.Error() != want {
		t.Errorf("Lookup(claude): %v, want %s", err, want)
	}
}

// TestEveryLessonsClientIsListed: the reference client a client lesson's
// manifest names is one lab client can run.
func TestEveryLessonsClientIsListed(t *testing.T) {
	all, err := lessons.All()
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range all {
		if m.Client == "" {
			continue
		}
		if _, err := Lookup(m.Client); err != nil {
			t.Errorf("lesson %d: %v", m.Number, err)
		}
	}
}

// TestHostServesTheContract answers list_tools over a host whose one
// server cannot be reached, and approves every call.
func TestHostServesTheContract(t *testing.T) {
	c, err := Lookup("host")
	if err != nil {
		t.Fatal(err)
	}
	if !c.Approve(&mcphost.Tool{Name: "mcp__a__t", NeedsApproval: true}, nil) {
		t.Error("the host refused a call: under the contract a command is the user's approval")
	}
	dead := "http://" + testkit.DeadAddr(t, "127.0.0.1") + "/mcp"
	cfg := &mcphost.Config{Servers: []mcphost.ServerConfig{{Alias: "gone", URL: dead}}}
	h, err := mcphost.Start(context.Background(), cfg, mcphost.Options{Timeout: 10 * time.Second, Approve: c.Approve})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	var out bytes.Buffer
	if err := c.Serve(context.Background(), h, strings.NewReader(`{"command":"list_tools"}`+"\n"), &out); err != nil {
		t.Fatal(err)
	}
	prefix := `{"tools":[],"failedServers":[{"server":"gone","error":"`
	if got := out.String(); !strings.HasPrefix(got, prefix) || !strings.Contains(got, "connection refused") || !strings.HasSuffix(got, "\"}]}\n") {
		t.Errorf("got %s, want %s...connection refused...\"}]}", got, prefix)
	}
}
