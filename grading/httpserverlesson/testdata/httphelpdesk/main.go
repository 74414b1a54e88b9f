// Command httphelpdesk is lesson 4's reference help desk over HTTP
// (lab/helpdesk.Handler) with one mistake at a time, for the kind's
// tests: -mistake NAME breaks one rule the lesson grades, and the test
// asserts the exact set of checks each mistake fails. It listens on
// 127.0.0.1:$PORT, as the grader asks, and reads the help desk's data
// from -data.
package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mcplab/mcplab/lab/helpdesk"
)

func main() {
	mistake := flag.String("mistake", "", "the one mistake to make (none: the reference)")
	dataDir := flag.String("data", "", "the folder of tickets.json and customers.json")
	flag.Parse()
	data, err := helpdesk.LoadData(os.DirFS(*dataDir))
	if err != nil {
		fmt.Fprintln(os.Stderr, "httphelpdesk:", err)
		os.Exit(2)
	}
	h, ok := mistakes(helpdesk.Handler(data, nil))[*mistake]
	if !ok {
		fmt.Fprintf(os.Stderr, "httphelpdesk: no mistake %q\n", *mistake)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	if *mistake == "ignores-sigterm" {
		signal.Reset(syscall.SIGTERM)
		signal.Ignore(syscall.SIGTERM)
		ctx = context.Background() // never done
	}
	ln, err := net.Listen("tcp", "127.0.0.1:"+os.Getenv("PORT"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "httphelpdesk:", err)
		os.Exit(2)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	fmt.Fprintln(os.Stderr, "httphelpdesk: listening on", ln.Addr())
	<-ctx.Done()
	shutdown, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	srv.Shutdown(shutdown)
}

// mistakes is every handler by the mistake it makes.
func mistakes(ref http.Handler) map[string]http.Handler {
	return map[string]http.Handler{
		"":                ref,
		"ignores-sigterm": ref,
		// A notification's 202 becomes a 200 with a body.
		"notification-200": rewrite(ref, false, func(in map[string]any, status int, out []byte) (int, []byte) {
			if _, id := in["id"]; !id && status == http.StatusAccepted {
				return http.StatusOK, []byte("{}")
			}
			return status, out
		}),
		// Origin is never looked at.
		"no-origin-check": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			r.Header.Del("Origin")
			ref.ServeHTTP(w, r)
		}),
		// Mcp-Method is taken from the body, never compared.
		"no-method-check": withBody(ref, func(r *http.Request, msg map[string]any) {
			if m, ok := msg["method"].(string); ok {
				r.Header.Set("Mcp-Method", m)
			}
		}),
		// No header is compared with the body.
		"no-header-check": withBody(ref, func(r *http.Request, msg map[string]any) {
			if m, ok := msg["method"].(string); ok {
				r.Header.Set("Mcp-Method", m)
			}
			params, _ := msg["params"].(map[string]any)
			if name, ok := params["name"].(string); ok {
				r.Header.Set("Mcp-Name", name)
			}
			meta, _ := params["_meta"].(map[string]any)
			if v, ok := meta["io.modelcontextprotocol/protocolVersion"].(string); ok {
				r.Header.Set("MCP-Protocol-Version", v)
			}
		}),
		// GET is answered 200, as if there were a stream to open.
		"get-200": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodGet {
				w.Header().Set("Content-Type", "application/json")
				w.Write([]byte("{}"))
				return
			}
			ref.ServeHTTP(w, r)
		}),
		// A body past the bound is read and refused with 400, not 413.
		"large-body-400": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.ContentLength > helpdesk.MaxBody {
				io.Copy(io.Discard, r.Body)
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusBadRequest)
				w.Write([]byte(`{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request: too large"}}`))
				return
			}
			ref.ServeHTTP(w, r)
		}),
		// Answers go out as text/plain.
		"text-plain": rewrite(ref, true, func(_ map[string]any, status int, out []byte) (int, []byte) { return status, out }),
		// A body past the bound kills the server.
		"dies-on-large-body": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.ContentLength > helpdesk.MaxBody {
				fmt.Fprintln(os.Stderr, "httphelpdesk: out of memory (pretending)")
				os.Exit(1)
			}
			ref.ServeHTTP(w, r)
		}),
		// Every answer is an event stream, and a notification follows the
		// response before the stream ends.
		"stream-after-response": streamAfter(ref),
		// Cursors are tokens kept in this process's memory.
		"stateful-cursor": statefulCursors(ref),
	}
}

// withBody lets change edit the request's headers from its body, then
// serves it with ref.
func withBody(ref http.Handler, change func(r *http.Request, msg map[string]any)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, helpdesk.MaxBody))
		var msg map[string]any
		if json.Unmarshal(body, &msg) == nil {
			change(r, msg)
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		ref.ServeHTTP(w, r)
	})
}

// rewrite serves with ref and lets change rewrite the status and body;
// plain sends every answer as text/plain.
func rewrite(ref http.Handler, plain bool, change func(in map[string]any, status int, out []byte) (int, []byte)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, helpdesk.MaxBody))
		var msg map[string]any
		json.Unmarshal(body, &msg)
		r.Body = io.NopCloser(bytes.NewReader(body))
		rec := httptest.NewRecorder()
		ref.ServeHTTP(rec, r)
		status, out := change(msg, rec.Code, rec.Body.Bytes())
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		if plain {
			w.Header().Set("Content-Type", "text/plain")
		}
		if len(out) > 0 && w.Header().Get("Content-Type") == "" {
			w.Header().Set("Content-Type", "application/json")
		}
		w.WriteHeader(status)
		w.Write(out)
	})
}

// streamAfter answers every request whose client takes event streams
// with one: the response, then a notification.
func streamAfter(ref http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		ref.ServeHTTP(rec, r)
		streams := strings.Contains(r.Header.Get("Accept"), "text/event-stream")
		if !streams || rec.Code != http.StatusOK || !strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") {
			for k, v := range rec.Header() {
				w.Header()[k] = v
			}
			w.WriteHeader(rec.Code)
			w.Write(rec.Body.Bytes())
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "data: %s\n\n", bytes.TrimSpace(rec.Body.Bytes()))
		fmt.Fprintf(w, "data: %s\n\n", `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"done"}}`)
	})
}

// statefulCursors hands out tools/list cursors that are random tokens
// remembered in this process: another copy does not know them.
func statefulCursors(ref http.Handler) http.Handler {
	var mu sync.Mutex
	tokens := map[string]string{}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > helpdesk.MaxBody {
			ref.ServeHTTP(w, r)
			return
		}
		body, _ := io.ReadAll(io.LimitReader(r.Body, helpdesk.MaxBody))
		var msg map[string]any
		if json.Unmarshal(body, &msg) == nil && msg["method"] == "tools/list" {
			params, _ := msg["params"].(map[string]any)
			if c, ok := params["cursor"].(string); ok {
				mu.Lock()
				real, known := tokens[c]
				mu.Unlock()
				if known {
					params["cursor"] = real
					body, _ = json.Marshal(msg)
				}
			}
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		rec := httptest.NewRecorder()
		ref.ServeHTTP(rec, r)
		out := rec.Body.Bytes()
		var resp map[string]any
		if json.Unmarshal(out, &resp) == nil {
			if result, ok := resp["result"].(map[string]any); ok {
				if next, ok := result["nextCursor"].(string); ok {
					b := make([]byte, 8)
					rand.Read(b)
					token := hex.EncodeToString(b)
					mu.Lock()
					tokens[token] = next
					mu.Unlock()
					result["nextCursor"] = token
					out, _ = json.Marshal(resp)
				}
			}
		}
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.Header().Del("Content-Length")
		w.WriteHeader(rec.Code)
		w.Write(out)
	})
}
