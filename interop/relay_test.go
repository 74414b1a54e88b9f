package interop_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// relayArg, as the first argument of this package's test binary, turns the
// binary into the relay instead of running tests: see relayMain.
const relayArg = "mcplab-interop-relay"

// TestMain lets the test binary double as the relay that the clients under
// test spawn in place of the server, and as the helpdesk server itself.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case relayArg:
			os.Exit(relayMain(os.Args[2:]))
		case helpdeskArg:
			os.Exit(helpdeskMain(os.Args[2:]))
		}
	}
	// This binary, run again as a relay or the helpdesk (by a Go client, or
	// by the grader), would sleep a second at every exit under the race
	// detector (GORACE's atexit_sleep_ms): not for these helpers.
	if !strings.Contains(os.Getenv("GORACE"), "atexit_sleep_ms") {
		os.Setenv("GORACE", strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
	}
	os.Exit(m.Run())
}

// relayCommand returns the command line a client spawns instead of server:
// this test binary as a relay that starts server, writes stray to its own
// stdout before anything else (the stray-output experiment; "" for none),
// copies both streams byte for byte, and records every line into a file of
// its own under dir.
func relayCommand(tb testing.TB, dir, stray string, server []string) (string, []string) {
	tb.Helper()
	self, err := os.Executable()
	if err != nil {
		tb.Fatalf("finding the test binary to use as the relay: %v", err)
	}
	args := append([]string{relayArg, dir, stray, "--"}, server...)
	return self, args
}

// record is one line of a relay's record file.
type record struct {
	// Dir is "c2s" for a line the client wrote, "s2c" for one the server
	// wrote, and "exit" for the last record, written once the server has
	// exited and both streams are copied.
	Dir string `json:"dir"`
	// Line is the line without its newline.
	Line string `json:"line,omitempty"`
	// Unterminated is set on a last line that ended without a newline.
	Unterminated bool `json:"unterminated,omitempty"`
	// Exit is the server's exit status, on the exit record.
	Exit string `json:"exit,omitempty"`
	// At is when the relay saw the line, in Unix nanoseconds: it orders
	// records across the relays a client started one after another.
	At int64 `json:"at"`
}

// relayMain runs the relay: relayMain(dir, stray, "--", server...). Its exit
// status is the server's, or 2 when the relay itself cannot run.
func relayMain(args []string) int {
	if len(args) < 4 || args[2] != "--" {
		fmt.Fprintf(os.Stderr, "relay: usage: %s DIR STRAY -- SERVER...\n", relayArg)
		return 2
	}
	dir, stray, server := args[0], args[1], args[3:]
	name := fmt.Sprintf("%020d-%d.jsonl", time.Now().UnixNano(), os.Getpid())
	f, err := os.OpenFile(filepath.Join(dir, name), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		fmt.Fprintf(os.Stderr, "relay: %v\n", err)
		return 2
	}
	defer f.Close()
	rec := &recorder{w: f}

	cmd := exec.Command(server[0], server[1:]...)
	cmd.Stderr = os.Stderr
	toServer, err := cmd.StdinPipe()
	if err != nil {
		fmt.Fprintf(os.Stderr, "relay: %v\n", err)
		return 2
	}
	fromServer, err := cmd.StdoutPipe()
	if err != nil {
		fmt.Fprintf(os.Stderr, "relay: %v\n", err)
		return 2
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "relay: starting %q: %v\n", server, err)
		return 2
	}
	// A client that gives up sends a signal; pass it on so the server stops
	// the way it would without the relay.
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		for s := range signals {
			_ = cmd.Process.Signal(s)
		}
	}()

	// The stray bytes go out before the server can have answered anything.
	if stray != "" {
		if _, err := io.WriteString(os.Stdout, stray); err != nil {
			fmt.Fprintf(os.Stderr, "relay: writing the stray output: %v\n", err)
		}
	}
	go func() {
		copyLines(os.Stdin, toServer, rec, "c2s")
		toServer.Close() // the client closed the server's stdin
	}()
	copyLines(fromServer, os.Stdout, rec, "s2c")
	err = cmd.Wait()
	status := "0"
	if err != nil {
		status = err.Error()
	}
	rec.add(record{Dir: "exit", Exit: status})
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) {
		return exitErr.ExitCode()
	}
	if err != nil {
		return 2
	}
	return 0
}

// recorder appends records to a file, one JSON object a line, from the two
// copying goroutines.
type recorder struct {
	mu sync.Mutex
	w  io.Writer
}

func (r *recorder) add(rec record) {
	rec.At = time.Now().UnixNano()
	b, err := json.Marshal(rec)
	if err != nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	_, _ = r.w.Write(append(b, '\n'))
}

// copyLines copies src to dst as it arrives, each read passed on at once so
// the relay keeps the chunking, and records every line it sees. A last line
// with no newline is recorded when src ends.
func copyLines(src io.Reader, dst io.Writer, rec *recorder, dir string) {
	var pending []byte
	buf := make([]byte, 64<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			// Record first, then pass on: a line is in the record before
			// the other side can have reacted to it, so the record's order
			// is causal.
			pending = append(pending, buf[:n]...)
			for {
				i := bytes.IndexByte(pending, '\n')
				if i < 0 {
					break
				}
				rec.add(record{Dir: dir, Line: string(pending[:i])})
				pending = pending[i+1:]
			}
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			if len(pending) > 0 {
				rec.add(record{Dir: dir, Line: string(pending), Unterminated: true})
			}
			return
		}
	}
}

// transcript is what one relay recorded: one server process as a client saw
// it.
type transcript struct {
	file    string
	records []record
}

// sent returns the requests and notifications the client wrote, decoded.
func (tr transcript) sent() []wireMessage { return tr.decoded("c2s") }

// received returns the messages the server wrote, decoded.
func (tr transcript) received() []wireMessage { return tr.decoded("s2c") }

func (tr transcript) decoded(dir string) []wireMessage {
	var out []wireMessage
	for _, r := range tr.records {
		if r.Dir != dir {
			continue
		}
		var m wireMessage
		if err := json.Unmarshal([]byte(r.Line), &m); err != nil {
			m = wireMessage{Unparsed: r.Line}
		}
		m.Raw = r.Line
		out = append(out, m)
	}
	return out
}

// methods lists the methods of the messages the client sent, in order.
func (tr transcript) methods() []string {
	var out []string
	for _, m := range tr.sent() {
		out = append(out, m.Method)
	}
	return out
}

// wireMessage is the part of a JSON-RPC message these tests look at.
type wireMessage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		Meta            map[string]json.RawMessage `json:"_meta"`
		ProtocolVersion string                     `json:"protocolVersion"`
	} `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	Raw      string `json:"-"` // the line as it travelled
	Unparsed string `json:"-"` // set when the line is not JSON
}

// isRequest reports whether m is a request: a method and an id.
func (m wireMessage) isRequest() bool { return m.Method != "" && len(m.ID) > 0 }

// metaVersion returns the protocol version in m's params._meta, or "".
func (m wireMessage) metaVersion() string {
	var v string
	_ = json.Unmarshal(m.Params.Meta["io.modelcontextprotocol/protocolVersion"], &v)
	return v
}

// transcripts waits until every relay that recorded into dir has written its
// exit record, then returns what they recorded, oldest process first. A
// client may return before the server it started has finished exiting, so
// this waits for the files, up to ctx's deadline.
func transcripts(ctx context.Context, dir string) ([]transcript, error) {
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		trs, done, err := readTranscripts(dir)
		if err != nil || done {
			return trs, err
		}
		select {
		case <-ctx.Done():
			return trs, fmt.Errorf("waiting for the relays in %s to record their server's exit: %w", dir, ctx.Err())
		case <-tick.C:
		}
	}
}

// readTranscripts reads every record file in dir and reports whether each one
// has its exit record.
func readTranscripts(dir string) ([]transcript, bool, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil {
		return nil, false, err
	}
	sort.Strings(names) // the names start with the start time
	done := true
	var out []transcript
	for _, name := range names {
		b, err := os.ReadFile(name)
		if err != nil {
			return nil, false, err
		}
		tr := transcript{file: filepath.Base(name)}
		sc := bufio.NewScanner(bytes.NewReader(b))
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			var r record
			if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
				return nil, false, fmt.Errorf("%s: %w", name, err)
			}
			tr.records = append(tr.records, r)
		}
		if n := len(tr.records); n == 0 || tr.records[n-1].Dir != "exit" {
			done = false
		}
		out = append(out, tr)
	}
	return out, done, nil
}

// describeTranscripts renders transcripts for a failure message.
func describeTranscripts(trs []transcript) string {
	var b strings.Builder
	for i, tr := range trs {
		fmt.Fprintf(&b, "server process %d (%s):\n", i+1, tr.file)
		for _, r := range tr.records {
			switch r.Dir {
			case "exit":
				fmt.Fprintf(&b, "  exit %s\n", r.Exit)
			default:
				arrow := "->"
				if r.Dir == "s2c" {
					arrow = "<-"
				}
				fmt.Fprintf(&b, "  %s %s\n", arrow, r.Line)
			}
		}
	}
	return b.String()
}
