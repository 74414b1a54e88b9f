package interop_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// helpdeskBenchRequests is how many requests one timed run pipes to a
// server: server/discover and tools/call of get_ticket, alternating.
const helpdeskBenchRequests = 20000

// BenchmarkHelpdeskThroughput pipes the same stream of 2026-07-28 requests
// (server/discover and tools/call get_ticket, every one with its _meta) to
// three stdio servers, each its own process: `lab serve helpdesk`, and
// helpdesk servers with the same two tools over the same data built on
// go-sdk and on mcp-go. It reports each one's requests per second (best of
// benchRounds runs, the servers taking turns), the lab's ratio to each SDK,
// and the peak resident memory of each process. The goal is at least twice
// both SDKs' throughput and under 32 MiB for the lab.
//
//	go test ./interop -run '^$' -bench HelpdeskThroughput -benchtime 1x
//
// $MCPLAB_HELPDESK replaces the lab's server by a command line of your own;
// by default the benchmark builds cmd/lab.
func BenchmarkHelpdeskThroughput(b *testing.B) {
	dir := b.TempDir()
	data, err := filepath.Abs(helpdeskData)
	if err != nil {
		b.Fatal(err)
	}
	servers := []benchServer{
		{name: "lab", cmd: labHelpdeskCommand(b, dir)},
		{name: "go-sdk", cmd: []string{buildPeerHelpdesk(b, dir), "go-sdk", data}},
		{name: "mcp-go", cmd: []string{buildPeerHelpdesk(b, dir), "mcp-go", data}},
	}
	payload := helpdeskPayload(helpdeskBenchRequests)
	best := map[string]time.Duration{}
	peak := map[string]int64{}
	for b.Loop() {
		for round := range benchRounds {
			for i := range servers {
				s := servers[(i+round)%len(servers)]
				took, rss, err := timeHelpdesk(b, s, payload, helpdeskBenchRequests)
				if err != nil {
					b.Fatalf("%s: %v", s.name, err)
				}
				if old, ok := best[s.name]; !ok || took < old {
					best[s.name] = took
				}
				peak[s.name] = max(peak[s.name], rss)
			}
		}
	}
	rate := func(name string) float64 { return helpdeskBenchRequests / best[name].Seconds() }
	b.ReportMetric(rate("lab"), "lab-req/s")
	b.ReportMetric(rate("go-sdk"), "gosdk-req/s")
	b.ReportMetric(rate("mcp-go"), "mcpgo-req/s")
	b.ReportMetric(rate("lab")/rate("go-sdk"), "lab-vs-gosdk-x")
	b.ReportMetric(rate("lab")/rate("mcp-go"), "lab-vs-mcpgo-x")
	b.ReportMetric(float64(peak["lab"])/(1<<20), "lab-MiB-rss")
	var table strings.Builder
	fmt.Fprintf(&table, "%d pipelined requests (server/discover and tools/call get_ticket), best of %d runs:\n", helpdeskBenchRequests, benchRounds)
	for _, s := range servers {
		fmt.Fprintf(&table, "  %-7s %9.0f req/s  the lab does %5.2fx its rate  peak RSS %5.1f MiB\n",
			s.name, rate(s.name), rate("lab")/rate(s.name), float64(peak[s.name])/(1<<20))
	}
	fmt.Fprintf(&table, "  goal: lab >= 2x both SDKs (%.2fx go-sdk, %.2fx mcp-go) and < 32 MiB RSS (%.1f MiB)",
		rate("lab")/rate("go-sdk"), rate("lab")/rate("mcp-go"), float64(peak["lab"])/(1<<20))
	b.Log(table.String())
}

// benchServer is one server process under the benchmark.
type benchServer struct {
	name string
	cmd  []string
}

const benchMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1.0.0"},"io.modelcontextprotocol/clientCapabilities":{}}`

// helpdeskPayload returns n requests with ids 1 to n, one a line:
// server/discover on odd ids, tools/call of get_ticket on even ones,
// cycling through the lesson's tickets.
func helpdeskPayload(n int) []byte {
	tickets := []string{"2316", "2317", "2318", "2319", "2320"}
	var buf []byte
	for id := 1; id <= n; id++ {
		buf = append(buf, `{"jsonrpc":"2.0","id":`...)
		buf = strconv.AppendInt(buf, int64(id), 10)
		if id%2 == 1 {
			buf = append(buf, `,"method":"server/discover","params":{`+benchMeta+`}}`+"\n"...)
			continue
		}
		buf = append(buf, `,"method":"tools/call","params":{"name":"get_ticket","arguments":{"ticket_id":"`...)
		buf = append(buf, tickets[(id/2)%len(tickets)]...)
		buf = append(buf, `"},`+benchMeta+`}}`+"\n"...)
	}
	return buf
}

// timeHelpdesk starts the server, waits for its answer to one discover (so
// start-up is not timed), then times how long it takes to answer the n
// requests of payload, written in 64 KiB pieces while the answers are read
// and checked. It returns the time and the process's peak RSS in bytes.
func timeHelpdesk(tb testing.TB, s benchServer, payload []byte, n int) (time.Duration, int64, error) {
	ctx, cancel := context.WithTimeout(tb.Context(), benchDeadline)
	defer cancel()
	cmd := exec.CommandContext(ctx, s.cmd[0], s.cmd[1:]...)
	cmd.Stderr = io.Discard
	in, err := cmd.StdinPipe()
	if err != nil {
		return 0, 0, err
	}
	outPipe, err := cmd.StdoutPipe()
	if err != nil {
		return 0, 0, err
	}
	if err := cmd.Start(); err != nil {
		return 0, 0, fmt.Errorf("starting %v: %w", s.cmd, err)
	}
	defer cmd.Wait()
	defer cmd.Process.Kill()
	out := bufio.NewReaderSize(outPipe, 64<<10)

	warm := `{"jsonrpc":"2.0","id":"warm-up","method":"server/discover","params":{` + benchMeta + `}}` + "\n"
	if _, err := io.WriteString(in, warm); err != nil {
		return 0, 0, fmt.Errorf("sending the warm-up: %w", err)
	}
	if line, err := out.ReadSlice('\n'); err != nil || !bytes.Contains(line, []byte(`"result"`)) {
		return 0, 0, fmt.Errorf("the warm-up discover got %q (%v)", line, err)
	}

	began := time.Now()
	wrote := make(chan error, 1)
	go func() {
		for rest := payload; len(rest) > 0; {
			chunk := rest[:min(len(rest), 64<<10)]
			if _, err := in.Write(chunk); err != nil {
				wrote <- fmt.Errorf("writing the requests: %w", err)
				return
			}
			rest = rest[len(chunk):]
		}
		wrote <- nil
	}()
	for got := range n {
		line, err := out.ReadSlice('\n')
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return 0, 0, fmt.Errorf("after %d of %d answers: %w", got, n, err)
		}
		if !bytes.Contains(line, []byte(`"result":{`)) || bytes.Contains(line, []byte(`"isError":true`)) {
			return 0, 0, fmt.Errorf("answer %d is not a successful result: %.300s", got+1, line)
		}
	}
	took := time.Since(began)
	if err := <-wrote; err != nil {
		return 0, 0, err
	}
	rss, err := peakRSS(cmd.Process.Pid)
	if err != nil {
		return 0, 0, err
	}
	in.Close()
	io.Copy(io.Discard, out)
	if err := cmd.Wait(); err != nil {
		return 0, 0, fmt.Errorf("the server did not exit cleanly after its input ended: %w", err)
	}
	return took, rss, nil
}

// peakRSS reads a process's high-water mark of resident memory (VmHWM)
// from /proc.
func peakRSS(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, fmt.Errorf("reading the server's memory use: %w", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err != nil {
				return 0, fmt.Errorf("reading VmHWM %q: %w", rest, err)
			}
			return kb << 10, nil
		}
	}
	return 0, errors.New("no VmHWM in /proc status")
}

// labHelpdeskCommand returns `lab serve helpdesk` from a lab binary built
// for the benchmark, or the command in $MCPLAB_HELPDESK.
func labHelpdeskCommand(tb testing.TB, dir string) []string {
	if env := os.Getenv(helpdeskEnv); env != "" {
		return strings.Fields(env)
	}
	bin := filepath.Join(dir, "lab")
	goBuild(tb, moduleRoot(tb), nil, "-o", bin, "./cmd/lab")
	return []string{bin, "serve", "helpdesk"}
}

func moduleRoot(tb testing.TB) string {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil || len(bytes.TrimSpace(out)) == 0 {
		tb.Fatalf("finding the module root: %v", err)
	}
	return filepath.Dir(string(bytes.TrimSpace(out)))
}

func goBuild(tb testing.TB, dir string, env []string, args ...string) {
	tb.Helper()
	cmd := exec.Command("go", append([]string{"build"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("go build %v in %s: %v\n%s", args, dir, err, out)
	}
}

// buildPeerHelpdesk builds, once per benchmark, a program that runs the
// helpdesk on go-sdk or on mcp-go (its first argument), each SDK at the
// version this module pins, in a module of its own under dir.
func buildPeerHelpdesk(tb testing.TB, dir string) string {
	bin := filepath.Join(dir, "peer-helpdesk")
	if _, err := os.Stat(bin); err == nil {
		return bin
	}
	root := moduleRoot(tb)
	src := filepath.Join(dir, "peer")
	if err := os.MkdirAll(src, 0o755); err != nil {
		tb.Fatal(err)
	}
	mod := fmt.Sprintf("module peerhelpdesk\n\ngo 1.26\n\nrequire (\n\tgithub.com/modelcontextprotocol/go-sdk %s\n\tgithub.com/mark3labs/mcp-go %s\n)\n",
		requiredVersion(tb, root, "github.com/modelcontextprotocol/go-sdk"), requiredVersion(tb, root, "github.com/mark3labs/mcp-go"))
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		tb.Fatal(err)
	}
	for name, body := range map[string][]byte{"go.mod": []byte(mod), "go.sum": sum, "main.go": []byte(peerHelpdeskSource)} {
		if err := os.WriteFile(filepath.Join(src, name), body, 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	goBuild(tb, src, []string{"GOFLAGS=-mod=mod", "GOWORK=off"}, "-o", bin, ".")
	return bin
}

// requiredVersion returns the version of a module that go.mod requires.
func requiredVersion(tb testing.TB, root, module string) string {
	cmd := exec.Command("go", "list", "-m", "-f", "{{.Version}}", module)
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		tb.Fatalf("finding the version of %s: %v", module, err)
	}
	return strings.TrimSpace(string(out))
}

// peerHelpdeskSource is the helpdesk written with each SDK the way its
// documentation shows: the same two tools, instructions and data as
// lab/helpdesk, on the SDK's own stdio transport ("go-sdk", "mcp-go") or
// its own Streamable HTTP handler in its stateless mode ("go-sdk-http",
// "mcp-go-http"), listening where lesson 4's grader says ($PORT on
// 127.0.0.1, path /mcp) and served by net/http as each SDK's examples do
// (ListenAndServe, no signal handling of its own).
const peerHelpdeskSource = `package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"

	mcpgotypes "github.com/mark3labs/mcp-go/mcp"
	mcpgo "github.com/mark3labs/mcp-go/server"
	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

const instructions = "Support desk for gym and studio booking software: look up a ticket by its number, or a customer by their id."

type ticket struct {
	ID         string ` + "`json:\"id\"`" + `
	CustomerID string ` + "`json:\"customer_id\"`" + `
	Subject    string ` + "`json:\"subject\"`" + `
	Status     string ` + "`json:\"status\"`" + `
	Priority   string ` + "`json:\"priority\"`" + `
	Opened     string ` + "`json:\"opened\"`" + `
	Updated    string ` + "`json:\"updated\"`" + `
	Summary    string ` + "`json:\"summary\"`" + `
}

type customer struct {
	ID            string ` + "`json:\"id\"`" + `
	Name          string ` + "`json:\"name\"`" + `
	Business      string ` + "`json:\"business\"`" + `
	City          string ` + "`json:\"city\"`" + `
	Plan          string ` + "`json:\"plan\"`" + `
	Email         string ` + "`json:\"email\"`" + `
	CustomerSince string ` + "`json:\"customer_since\"`" + `
}

var (
	tickets   = map[string]ticket{}
	customers = map[string]customer{}
)

func load(dir string) {
	var ts []ticket
	var cs []customer
	for name, v := range map[string]any{"tickets.json": &ts, "customers.json": &cs} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			panic(err)
		}
		if err := json.Unmarshal(b, v); err != nil {
			panic(err)
		}
	}
	for _, t := range ts {
		tickets[t.ID] = t
	}
	for _, c := range cs {
		customers[c.ID] = c
	}
}

type ticketView struct {
	ticket
	Customer customer ` + "`json:\"customer\"`" + `
}

func describe(t ticket) (string, ticketView) {
	c := customers[t.CustomerID]
	return fmt.Sprintf("Ticket %s (%s, %s priority): %s\nCustomer: %s, %s (%s), %s plan\nOpened %s, last update %s\n%s",
		t.ID, t.Status, t.Priority, t.Subject, c.Name, c.Business, c.ID, c.Plan, t.Opened, t.Updated, t.Summary), ticketView{t, c}
}

func describeCustomer(c customer) string {
	return fmt.Sprintf("Customer %s: %s, %s in %s, %s plan since %s, %s", c.ID, c.Name, c.Business, c.City, c.Plan, c.CustomerSince, c.Email)
}

type ticketArgs struct {
	TicketID string ` + "`json:\"ticket_id\" jsonschema:\"the ticket's number, such as 2318\"`" + `
}

type customerArgs struct {
	CustomerID string ` + "`json:\"customer_id\" jsonschema:\"the customer's id, such as C-104\"`" + `
}

func goSDK() error {
	return goSDKServer().Run(context.Background(), &gosdk.StdioTransport{})
}

// address is where the HTTP modes listen: the loopback port lesson 4's
// grader gives in $PORT.
func address() string { return "127.0.0.1:" + os.Getenv("PORT") }

func goSDKHTTP() error {
	s := goSDKServer()
	h := gosdk.NewStreamableHTTPHandler(func(*http.Request) *gosdk.Server { return s }, &gosdk.StreamableHTTPOptions{Stateless: true})
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	return http.ListenAndServe(address(), mux)
}

func goSDKServer() *gosdk.Server {
	s := gosdk.NewServer(&gosdk.Implementation{Name: "helpdesk", Version: "0.1.0"}, &gosdk.ServerOptions{Instructions: instructions})
	gosdk.AddTool(s, &gosdk.Tool{Name: "get_ticket", Description: "Returns one support ticket by its number."},
		func(_ context.Context, _ *gosdk.CallToolRequest, a ticketArgs) (*gosdk.CallToolResult, any, error) {
			t, ok := tickets[a.TicketID]
			if !ok {
				r := &gosdk.CallToolResult{Content: []gosdk.Content{&gosdk.TextContent{Text: "There is no ticket " + a.TicketID}}}
				r.IsError = true
				return r, nil, nil
			}
			text, view := describe(t)
			return &gosdk.CallToolResult{Content: []gosdk.Content{&gosdk.TextContent{Text: text}}, StructuredContent: view}, nil, nil
		})
	gosdk.AddTool(s, &gosdk.Tool{Name: "get_customer", Description: "Returns one customer by their id."},
		func(_ context.Context, _ *gosdk.CallToolRequest, a customerArgs) (*gosdk.CallToolResult, any, error) {
			c, ok := customers[a.CustomerID]
			if !ok {
				r := &gosdk.CallToolResult{Content: []gosdk.Content{&gosdk.TextContent{Text: "There is no customer " + a.CustomerID}}}
				r.IsError = true
				return r, nil, nil
			}
			return &gosdk.CallToolResult{Content: []gosdk.Content{&gosdk.TextContent{Text: describeCustomer(c)}}, StructuredContent: c}, nil, nil
		})
	return s
}

func mcpGo() error { return mcpgo.ServeStdio(mcpGoServer()) }

func mcpGoHTTP() error {
	return mcpgo.NewStreamableHTTPServer(mcpGoServer(), mcpgo.WithStateLess(true)).Start(address())
}

func mcpGoServer() *mcpgo.MCPServer {
	s := mcpgo.NewMCPServer("helpdesk", "0.1.0", mcpgo.WithInstructions(instructions), mcpgo.WithToolCapabilities(false))
	s.AddTool(mcpgotypes.NewTool("get_ticket", mcpgotypes.WithDescription("Returns one support ticket by its number."),
		mcpgotypes.WithString("ticket_id", mcpgotypes.Required(), mcpgotypes.Description("the ticket's number, such as 2318"))),
		func(_ context.Context, req mcpgotypes.CallToolRequest) (*mcpgotypes.CallToolResult, error) {
			id, err := req.RequireString("ticket_id")
			if err != nil {
				return mcpgotypes.NewToolResultError(err.Error()), nil
			}
			t, ok := tickets[id]
			if !ok {
				return mcpgotypes.NewToolResultError("There is no ticket " + id), nil
			}
			text, view := describe(t)
			return mcpgotypes.NewToolResultStructured(view, text), nil
		})
	s.AddTool(mcpgotypes.NewTool("get_customer", mcpgotypes.WithDescription("Returns one customer by their id."),
		mcpgotypes.WithString("customer_id", mcpgotypes.Required(), mcpgotypes.Description("the customer's id, such as C-104"))),
		func(_ context.Context, req mcpgotypes.CallToolRequest) (*mcpgotypes.CallToolResult, error) {
			id, err := req.RequireString("customer_id")
			if err != nil {
				return mcpgotypes.NewToolResultError(err.Error()), nil
			}
			c, ok := customers[id]
			if !ok {
				return mcpgotypes.NewToolResultError("There is no customer " + id), nil
			}
			return mcpgotypes.NewToolResultStructured(c, describeCustomer(c)), nil
		})
	return s
}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: peer-helpdesk go-sdk|mcp-go|go-sdk-http|mcp-go-http DATA-DIR")
		os.Exit(2)
	}
	load(os.Args[2])
	var err error
	switch os.Args[1] {
	case "go-sdk":
		err = goSDK()
	case "mcp-go":
		err = mcpGo()
	case "go-sdk-http":
		err = goSDKHTTP()
	case "mcp-go-http":
		err = mcpGoHTTP()
	default:
		err = fmt.Errorf("no SDK called %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "peer-helpdesk:", err)
		os.Exit(1)
	}
}
`
