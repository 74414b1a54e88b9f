package interop_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcplab/mcplab/lab/helpdesk"

	mcpgoclient "github.com/mark3labs/mcp-go/client"
	mcpgotransport "github.com/mark3labs/mcp-go/client/transport"
	mcpgotypes "github.com/mark3labs/mcp-go/mcp"
	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The revisions the clients speak: the stateless one this lesson is about,
// and the newest one that still opens with initialize.
const (
	statelessRevision = "2026-07-28"
	legacyRevision    = "2025-11-25"
)

// requestTimeout is the deadline each client gets for each request, the
// connect-time probe and handshake included. The server answers in
// milliseconds; the deadline only ends a client that waits for an answer
// it will never recognise, and it must be generous enough that no healthy
// answer ever misses it on a busy machine.
const requestTimeout = 20 * time.Second

// helpdeskEnv names an environment variable that replaces the server under
// test: a command line split on spaces, such as a student's server.
const helpdeskEnv = "MCPLAB_HELPDESK"

// helpdeskTools are the helpdesk's tools, in the order tools/list gives
// them, one a page.
var helpdeskTools = []string{"get_ticket", "get_customer"}

// The tool every client calls, and the ticket it asks for.
const (
	ticketTool = "get_ticket"
	ticketID   = "2318"
)

// helpdeskArg, as the first argument of this package's test binary, turns
// the binary into the helpdesk server: see helpdeskMain.
const helpdeskArg = "mcplab-interop-helpdesk"

// helpdeskData is lesson 2's data folder, relative to this package.
const helpdeskData = "../lessons/02-json-rpc-on-the-wire/data"

// helpdeskMain runs the helpdesk server on stdin and stdout, reading its
// tickets and customers from the folder args[0]. It is what
// `lab serve helpdesk` runs (lab/helpdesk over the lesson's data), without
// building the lab binary: the test binary starts quickly and depends only
// on the server's own packages.
func helpdeskMain(args []string) int {
	if len(args) != 1 {
		fmt.Fprintf(os.Stderr, "helpdesk: usage: %s DATA-DIR\n", helpdeskArg)
		return 2
	}
	data, err := helpdesk.LoadData(os.DirFS(args[0]))
	if err != nil {
		fmt.Fprintf(os.Stderr, "helpdesk: %v\n", err)
		return 1
	}
	srv := helpdesk.New(data)
	srv.Log = os.Stderr
	if err := srv.ServeStdio(context.Background(), os.Stdin, os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "helpdesk: %v\n", err)
		return 1
	}
	return 0
}

// helpdeskServer returns the command line of the server the clients talk to:
// the helpdesk run by this test binary, or the command in $MCPLAB_HELPDESK,
// such as a built `lab serve helpdesk`.
func helpdeskServer(tb testing.TB) []string {
	tb.Helper()
	if s := strings.Fields(os.Getenv(helpdeskEnv)); len(s) > 0 {
		return s
	}
	self, err := os.Executable()
	if err != nil {
		tb.Fatalf("finding the test binary to run the helpdesk: %v", err)
	}
	data, err := filepath.Abs(helpdeskData)
	if err != nil {
		tb.Fatal(err)
	}
	return []string{self, helpdeskArg, data}
}

// clientRun is what one client did against one server: connected or not,
// what it listed and what the call returned, or where it failed.
type clientRun struct {
	connected bool
	tools     []string
	callError bool   // the tool result had isError set
	callText  string // the text content of the tool result
	// failedAt is the step that failed ("connect", "tools/list",
	// "tools/call"), and failure its error; both empty on success.
	failedAt string
	failure  string
	// timedOut is set when the failure is the client's own request timeout.
	timedOut bool
	// reported lists the errors the client reported on the side while it
	// ran (the TypeScript clients' onerror), such as a line it could not
	// parse.
	reported []string
	elapsed  time.Duration
}

// step records the failure of a Go client's step, if err is one, and
// reports whether the run may go on.
func (r *clientRun) step(name string, err error) bool {
	if err != nil {
		r.failedAt, r.failure = name, err.Error()
		r.timedOut = errors.Is(err, context.DeadlineExceeded)
		return false
	}
	return true
}

// interopClient is one real client in one configuration.
type interopClient struct {
	// name says which client and version, such as "go-sdk v1.8.0".
	name string
	// mode is how it is configured: "default", or the option that changes
	// which revision it speaks.
	mode string
	// path is the path it takes against a server that speaks both:
	// statelessRevision or legacyRevision.
	path string
	// probeProcesses is how many extra server processes it starts to
	// probe before its session: the v2 TypeScript client sends its
	// server/discover probe to a sibling process of its own, in both
	// negotiating modes, and then starts the session's process.
	probeProcesses int
	// skip, when set, says why this configuration cannot be tested.
	skip string
	// run connects to the server command, lists the tools and calls
	// get_ticket.
	run func(ctx context.Context, tb testing.TB, command string, args []string) clientRun
}

// label names the configuration in test names and tables.
func (c interopClient) label() string {
	if c.mode == "default" {
		return c.name
	}
	return c.name + " (" + c.mode + ")"
}

// interopClients lists the real clients and the configurations tested, each
// on the path it takes.
func interopClients() []interopClient {
	return []interopClient{
		{name: "go-sdk v1.8.0", mode: "default", path: statelessRevision, run: runGoSDK("")},
		{name: "go-sdk v1.8.0", mode: "ProtocolVersion " + legacyRevision, path: legacyRevision, run: runGoSDK(legacyRevision)},
		{name: "mcp-go v1.2.1", mode: "default", path: statelessRevision, run: runMCPGo("")},
		{name: "mcp-go v1.2.1", mode: "WithProtocolVersion " + legacyRevision, path: legacyRevision, run: runMCPGo(legacyRevision)},
		{name: "TypeScript client 2.3.1", mode: "default", path: legacyRevision, run: runTypeScript("v2", "legacy")},
		{name: "TypeScript client 2.3.1", mode: "versionNegotiation auto", path: statelessRevision, probeProcesses: 1, run: runTypeScript("v2", "auto")},
		{name: "TypeScript client 2.3.1", mode: "versionNegotiation pin " + statelessRevision, path: statelessRevision, probeProcesses: 1, run: runTypeScript("v2", "pin")},
		{name: "TypeScript sdk 1.32.1", mode: "default", path: legacyRevision, run: runTypeScript("v1", "")},
		{name: "TypeScript sdk 1.32.1", mode: "stateless", path: statelessRevision,
			skip: "@modelcontextprotocol/sdk 1.32.1 cannot speak 2026-07-28: its newest revision is 2025-11-25 " +
				"(LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS stops there), it has no server/discover and " +
				"no option to send _meta on each request, so it always opens with initialize"},
	}
}

// runGoSDK returns a run function for go-sdk's client. An empty version
// leaves the client's default, which probes with server/discover first.
func runGoSDK(version string) func(context.Context, testing.TB, string, []string) clientRun {
	return func(ctx context.Context, _ testing.TB, command string, args []string) (r clientRun) {
		start := time.Now()
		defer func() { r.elapsed = time.Since(start) }()
		client := gosdk.NewClient(&gosdk.Implementation{Name: "mcplab-interop", Version: "0.0.0"}, nil)
		step := r.step
		cctx, cancel := context.WithTimeout(ctx, requestTimeout)
		defer cancel()
		transport := &gosdk.CommandTransport{Command: exec.Command(command, args...)}
		cs, err := client.Connect(cctx, transport, &gosdk.ClientSessionOptions{ProtocolVersion: version})
		if !step("connect", err) {
			return r
		}
		defer cs.Close()
		r.connected = true
		lctx, cancel := context.WithTimeout(ctx, requestTimeout)
		defer cancel()
		// Tools follows nextCursor page by page; ListTools would read one.
		for tool, err := range cs.Tools(lctx, nil) {
			if !step("tools/list", err) {
				return r
			}
			r.tools = append(r.tools, tool.Name)
		}
		tctx, cancel := context.WithTimeout(ctx, requestTimeout)
		defer cancel()
		called, err := cs.CallTool(tctx, &gosdk.CallToolParams{Name: ticketTool, Arguments: map[string]any{"ticket_id": ticketID}})
		if !step("tools/call", err) {
			return r
		}
		r.callError = called.IsError
		var texts []string
		for _, c := range called.Content {
			if t, ok := c.(*gosdk.TextContent); ok {
				texts = append(texts, t.Text)
			}
		}
		r.callText = strings.Join(texts, "\n")
		return r
	}
}

// runMCPGo returns a run function for mcp-go's client. An empty version
// leaves the client's default, which probes with server/discover first.
func runMCPGo(version string) func(context.Context, testing.TB, string, []string) clientRun {
	return func(ctx context.Context, _ testing.TB, command string, args []string) (r clientRun) {
		start := time.Now()
		defer func() { r.elapsed = time.Since(start) }()
		step := r.step
		var opts []mcpgoclient.ClientOption
		if version != "" {
			opts = append(opts, mcpgoclient.WithProtocolVersion(version))
		}
		c := mcpgoclient.NewClient(mcpgotransport.NewStdio(command, nil, args...), opts...)
		if !step("connect", c.Start(ctx)) {
			return r
		}
		defer c.Close()
		cctx, cancel := context.WithTimeout(ctx, requestTimeout)
		defer cancel()
		init := mcpgotypes.InitializeRequest{}
		init.Params.ClientInfo = mcpgotypes.Implementation{Name: "mcplab-interop", Version: "0.0.0"}
		if _, err := c.Initialize(cctx, init); !step("connect", err) {
			return r
		}
		r.connected = true
		lctx, cancel := context.WithTimeout(ctx, requestTimeout)
		defer cancel()
		listed, err := c.ListTools(lctx, mcpgotypes.ListToolsRequest{}) // follows nextCursor
		if !step("tools/list", err) {
			return r
		}
		for _, t := range listed.Tools {
			r.tools = append(r.tools, t.Name)
		}
		tctx, cancel := context.WithTimeout(ctx, requestTimeout)
		defer cancel()
		call := mcpgotypes.CallToolRequest{}
		call.Params.Name = ticketTool
		call.Params.Arguments = map[string]any{"ticket_id": ticketID}
		called, err := c.CallTool(tctx, call)
		if !step("tools/call", err) {
			return r
		}
		r.callError = called.IsError
		var texts []string
		for _, content := range called.Content {
			if t, ok := mcpgotypes.AsTextContent(content); ok {
				texts = append(texts, t.Text)
			}
		}
		r.callText = strings.Join(texts, "\n")
		return r
	}
}

// nodeDir is the folder of the pinned TypeScript clients.
const nodeDir = "node"

// nodeClients makes sure the pinned TypeScript clients are installed, once
// per test binary: `npm ci` runs only when node_modules was not installed
// from the package-lock.json as it is now.
var nodeClients = sync.OnceValue(func() error { return npmInstall(nodeDir) })

// npmInstall installs the pinned packages of the folder dir (of interop):
// `npm ci` runs only when its node_modules was not installed from its
// package-lock.json as it is now, which a stamp in node_modules records.
func npmInstall(dir string) error {
	if _, err := exec.LookPath("node"); err != nil {
		return errNoNode
	}
	if _, err := exec.LookPath("npm"); err != nil {
		return errNoNode
	}
	lock, err := os.ReadFile(filepath.Join(dir, "package-lock.json"))
	if err != nil {
		return fmt.Errorf("reading the lock file of interop/%s: %w", dir, err)
	}
	sum := sha256.Sum256(lock)
	want := hex.EncodeToString(sum[:])
	stamp := filepath.Join(dir, "node_modules", ".mcplab-lock-sha256")
	if have, err := os.ReadFile(stamp); err == nil && strings.TrimSpace(string(have)) == want {
		return nil
	}
	cmd := exec.Command("npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("npm ci in interop/%s: %v\n%s", dir, err, out)
	}
	return os.WriteFile(stamp, []byte(want+"\n"), 0o644)
}

// errNoNode says why the TypeScript clients are skipped on a machine
// without Node.
var errNoNode = errors.New("node and npm are not on PATH: the TypeScript clients need Node 20 or newer")

// tsReport is the report line of node/client.mjs.
type tsReport struct {
	Package         string   `json:"package"`
	Version         string   `json:"version"`
	Connected       bool     `json:"connected"`
	ProtocolVersion string   `json:"protocolVersion"`
	ServerName      string   `json:"serverName"`
	Tools           []string `json:"tools"`
	Call            *struct {
		IsError bool   `json:"isError"`
		Text    string `json:"text"`
	} `json:"call"`
	Failure *tsError  `json:"failure"`
	Errors  []tsError `json:"errors"`
}

type tsError struct {
	Step    string          `json:"step"`
	Name    string          `json:"name"`
	Code    json.RawMessage `json:"code"`
	Message string          `json:"message"`
}

// isTimeout reports whether e is the client's own request timeout: v2's
// SdkError REQUEST_TIMEOUT, or v1's McpError -32001.
func (e tsError) isTimeout() bool {
	code := string(e.Code)
	return code == `"REQUEST_TIMEOUT"` || (code == "-32001" && strings.Contains(e.Message, "timed out"))
}

// runTypeScript returns a run function for one of the TypeScript clients,
// driven by node/client.mjs.
func runTypeScript(sdk, negotiation string) func(context.Context, testing.TB, string, []string) clientRun {
	return func(ctx context.Context, tb testing.TB, command string, args []string) clientRun {
		tb.Helper()
		if err := nodeClients(); errors.Is(err, errNoNode) {
			tb.Skip(err)
		} else if err != nil {
			tb.Fatal(err)
		}
		env := map[string]string{}
		for _, kv := range os.Environ() {
			if k, v, ok := strings.Cut(kv, "="); ok {
				env[k] = v
			}
		}
		config, err := json.Marshal(map[string]any{
			"sdk": sdk, "negotiation": negotiation,
			"command": command, "args": args, "env": env,
			"timeoutMs": requestTimeout.Milliseconds(),
			"tool":      ticketTool, "arguments": map[string]any{"ticket_id": ticketID},
		})
		if err != nil {
			tb.Fatal(err)
		}
		// The script ends by itself: each request has its deadline, and the
		// v2 client's probe and fallback make at most three in a row.
		ctx, cancel := context.WithTimeout(ctx, 4*requestTimeout+30*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, "node", "client.mjs", string(config))
		cmd.Dir = nodeDir
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		start := time.Now()
		if err := cmd.Run(); err != nil {
			tb.Fatalf("node client.mjs (%s, %s): %v\nstderr:\n%s", sdk, negotiation, err, stderr.String())
		}
		elapsed := time.Since(start)
		var rep tsReport
		sc := bufio.NewScanner(&stdout)
		var last string
		for sc.Scan() {
			last = sc.Text()
		}
		if err := json.Unmarshal([]byte(last), &rep); err != nil {
			tb.Fatalf("node client.mjs (%s, %s) printed no report: %v\nstdout:\n%s\nstderr:\n%s", sdk, negotiation, err, stdout.String(), stderr.String())
		}
		r := clientRun{connected: rep.Connected, tools: rep.Tools, elapsed: elapsed}
		if rep.Call != nil {
			r.callError, r.callText = rep.Call.IsError, rep.Call.Text
		}
		if rep.Failure != nil {
			r.failedAt = rep.Failure.Step
			r.failure = rep.Failure.Name + ": " + rep.Failure.Message
			r.timedOut = rep.Failure.isTimeout()
			if r.failedAt == "setup" {
				tb.Fatalf("node client.mjs (%s, %s) could not run: %s", sdk, negotiation, r.failure)
			}
		}
		for _, e := range rep.Errors {
			r.reported = append(r.reported, e.Name+": "+e.Message)
		}
		return r
	}
}

// TestClientsOnBothPaths connects each real client to the helpdesk server
// through the relay, on the path it takes, lists the tools and calls
// get_ticket, then checks from the relay's records that the client really
// spoke that revision on the wire.
func TestClientsOnBothPaths(t *testing.T) {
	server := helpdeskServer(t)
	for _, c := range interopClients() {
		t.Run(c.label()+" on "+c.path, func(t *testing.T) {
			if c.skip != "" {
				t.Skip(c.skip)
			}
			r, trs := connectInTime(t, c, "", server)
			if err := checkRun(r, os.Getenv(helpdeskEnv) == ""); err != nil {
				t.Fatalf("%s: %v\n%s", c.label(), err, describeTranscripts(trs))
			}
			if err := checkPath(trs, c.path, c.probeProcesses); err != nil {
				t.Fatalf("%s: %v\n%s", c.label(), err, describeTranscripts(trs))
			}
		})
	}
}

// connectThroughRelay runs client c against server behind a relay that
// writes stray first, and returns what the client did and what the relays
// recorded, once every server it started has exited.
func connectThroughRelay(t *testing.T, c interopClient, stray string, server []string) (clientRun, []transcript) {
	t.Helper()
	dir := t.TempDir()
	command, args := relayCommand(t, dir, stray, server)
	r := c.run(t.Context(), t, command, args)
	ctx, cancel := context.WithTimeout(t.Context(), requestTimeout)
	defer cancel()
	trs, err := transcripts(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	return r, trs
}

// checkRun checks that the client connected, found get_ticket and got the
// ticket back.
//
// The helpdesk's tools must be exactly helpdeskTools. Another server (one
// named in $MCPLAB_HELPDESK, such as a student's) need only have get_ticket.
func checkRun(r clientRun, helpdesk bool) error {
	switch {
	case r.failure != "":
		return fmt.Errorf("failed at %s: %s", r.failedAt, r.failure)
	case !slices.Contains(r.tools, ticketTool):
		return fmt.Errorf("listing the tools page by page gave %q, with no %s", r.tools, ticketTool)
	case helpdesk && !slices.Equal(r.tools, helpdeskTools):
		return fmt.Errorf("listing the tools page by page gave %q, want %q", r.tools, helpdeskTools)
	case r.callError:
		return fmt.Errorf("calling %s for %s gave a tool error: %q", ticketTool, ticketID, r.callText)
	case !strings.Contains(r.callText, ticketID):
		return fmt.Errorf("calling %s for %s gave %q, which does not mention the ticket", ticketTool, ticketID, r.callText)
	case len(r.reported) > 0:
		return fmt.Errorf("the client reported errors: %q", r.reported)
	}
	return nil
}

// checkPath checks from the relays' records that the client took path: the
// number of server processes it started, and in the session (the last
// process) the first request, the _meta on every request, and no error
// answers.
func checkPath(trs []transcript, path string, probes int) error {
	if len(trs) != probes+1 {
		return fmt.Errorf("the client started %d server processes, want %d", len(trs), probes+1)
	}
	for i, probe := range trs[:probes] {
		if m := probe.methods(); !slices.Equal(m, []string{"server/discover"}) {
			return fmt.Errorf("probe process %d got %q, want only server/discover", i+1, m)
		}
	}
	session := trs[probes]
	sent := session.sent()
	if len(sent) == 0 {
		return errors.New("the client sent nothing to its session's server")
	}
	methods := session.methods()
	for _, want := range []string{"tools/list", "tools/call"} {
		if !slices.Contains(methods, want) {
			return fmt.Errorf("the client sent %q, with no %s", methods, want)
		}
	}
	for _, m := range session.received() {
		if m.Unparsed != "" || m.Error != nil {
			return fmt.Errorf("the server answered %s, want only results", m.Raw)
		}
	}
	switch path {
	case statelessRevision:
		if slices.Contains(methods, "initialize") {
			return fmt.Errorf("the client sent %q: initialize on the stateless path", methods)
		}
		for _, m := range sent {
			if !m.isRequest() {
				continue
			}
			if v := m.metaVersion(); v != statelessRevision {
				return fmt.Errorf("request %s carries protocolVersion %q in _meta, want %s", m.Raw, v, statelessRevision)
			}
			if _, ok := m.Params.Meta["io.modelcontextprotocol/clientCapabilities"]; !ok {
				return fmt.Errorf("request %s has no clientCapabilities in _meta", m.Raw)
			}
		}
	case legacyRevision:
		if sent[0].Method != "initialize" {
			return fmt.Errorf("the client opened with %s, want initialize", sent[0].Raw)
		}
		if slices.Contains(methods, "server/discover") {
			return fmt.Errorf("the client sent %q: server/discover on the legacy path", methods)
		}
		received := session.received()
		if len(received) == 0 {
			return errors.New("the server answered nothing")
		}
		answer := received[0]
		var res struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		if err := json.Unmarshal(answer.Result, &res); err != nil || res.ProtocolVersion != legacyRevision {
			return fmt.Errorf("the server answered initialize with %s, want protocolVersion %s", answer.Raw, legacyRevision)
		}
	default:
		return fmt.Errorf("unknown path %q", path)
	}
	return nil
}
