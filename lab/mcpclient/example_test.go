package mcpclient_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/mcplab/mcplab/lab/mcpclient"
	"github.com/mcplab/mcplab/lab/notes"
)

func ExampleHeaderValue() {
	fmt.Println(mcpclient.HeaderValue("search"))
	fmt.Println(mcpclient.HeaderValue("résumé"))
	fmt.Println(mcpclient.HeaderValue("=?base64?literal?="))
	// Output:
	// search
	// =?base64?csOpc3Vtw6k=?=
	// =?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=
}

// A client over two pipes to the notes library running in the same
// process; a server program would be reached with Command instead.
func ExampleConnect() {
	serverIn, clientOut, _ := os.Pipe()
	clientIn, serverOut, _ := os.Pipe()
	go func() {
		notes.Serve(context.Background(), serverIn, serverOut, io.Discard)
		serverOut.Close()
	}()
	ctx := context.Background()
	c, err := mcpclient.Connect(ctx, mcpclient.Stream{R: clientIn, W: clientOut}, mcpclient.Options{Timeout: 10 * time.Second})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	tools, err := c.ListTools(ctx) // both pages
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, t := range tools {
		fmt.Println(t.Name)
	}
	r, err := c.CallTool(ctx, "search", map[string]string{"query": "retry"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(r.Text())
	// Output:
	// search
	// read_note
	// add_note
	// 1 note(s) mention "retry":
	// retry-budget: Retry budget for the payment API
}
