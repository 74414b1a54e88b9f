package tickets

import (
	"context"
	"errors"
	"net/http/httptest"
	"testing"

	"github.com/mcplab/mcplab/lab/mcpclient"
	"github.com/mcplab/mcplab/lab/wire"
)

// Through the reference client: the accented tool is reached through the
// Base64 sentinel, a call asking for progress and logs gets both around
// its response, and a call asking for neither gets none.
func TestThroughClient(t *testing.T) {
	srv := httptest.NewServer(Handler(nil))
	defer srv.Close()
	c, err := mcpclient.Connect(context.Background(), &mcpclient.HTTP{URL: srv.URL + Path}, mcpclient.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	tools, err := c.ListTools(ctx)
	if err != nil || len(tools) != 3 || tools[2].Name != "résumé" {
		t.Fatalf("tools %v, %v", tools, err)
	}
	r, err := c.CallTool(ctx, "résumé", nil, mcpclient.WithProgress(), mcpclient.WithLogLevel("info"))
	if err != nil {
		t.Fatal(err)
	}
	if r.Text() != "1 closed, 3 open" || r.Reply.NotificationCount != 2 {
		t.Errorf("got %q with %d notifications", r.Text(), r.Reply.NotificationCount)
	}
	r, err = c.CallTool(ctx, "get_ticket", map[string]string{"id": "T-104"})
	if err != nil || r.Reply.NotificationCount != 0 || r.Text() != "T-104 (open): Nightly queue stalls; workers stop heartbeating" {
		t.Errorf("got %+v, %v", r, err)
	}
	_, err = c.CallTool(ctx, "nope", nil)
	var we *wire.Error
	if !errors.As(err, &we) || we.Code != wire.CodeInvalidParams {
		t.Errorf("an unknown tool: %v", err)
	}
}
