package model

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

const (
	testQuestion = "In one sentence, why must a response carry the id of its request?"
	testSample   = "Answers may come back in any order, so the id is how the client pairs each answer with its request."
	testAnswer   = "Because a client may have several requests open and matches each reply to its request by id."
)

var testPrompt = Prompt{Question: testQuestion, Sample: testSample, MaxTokens: 80}

// seen is what a test server saw of one request.
type seen struct {
	method, path, auth, contentType string
	body                            string
}

// completion is a chat-completions reply carrying the given choices JSON.
func completion(choices string) string {
	return `{"id":"chatcmpl-1","object":"chat.completion","created":1700000000,"model":"lab",` +
		`"choices":` + choices + `,"usage":{"prompt_tokens":18,"completion_tokens":20,"total_tokens":38}}`
}

func choice(content string) string {
	return `[{"index":0,"message":{"role":"assistant","content":` + content + `},"finish_reason":"stop"}]`
}

// serve starts a test server that records each request on the returned
// channel and answers with status, content type and body.
func serve(t *testing.T, status int, contentType, body string) (*httptest.Server, <-chan seen) {
	t.Helper()
	got := make(chan seen, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		select {
		case got <- seen{r.Method, r.URL.Path, r.Header.Get("Authorization"), r.Header.Get("Content-Type"), string(b)}:
		default:
			t.Errorf("more than one request reached the server: %s %s", r.Method, r.URL.Path)
		}
		w.Header().Set("Content-Type", contentType)
		w.WriteHeader(status)
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv, got
}

func testConfig(url string) Config {
	return Config{URL: url, Model: "lab", Key: "lab", Timeout: 5 * time.Second}
}

func TestAskGoodAnswer(t *testing.T) {
	for _, suffix := range []string{"", "/", "/v1", "/v1/"} {
		t.Run("url"+suffix, func(t *testing.T) {
			srv, got := serve(t, http.StatusOK, "application/json", completion(choice(`"  `+testAnswer+`\n"`)))
			a := Ask(context.Background(), testConfig(srv.URL+suffix), testPrompt)
			if want := (Answer{Text: testAnswer}); a != want {
				t.Fatalf("Ask = %+v, want %+v", a, want)
			}
			r := <-got
			if r.method != http.MethodPost || r.path != "/v1/chat/completions" {
				t.Errorf("request = %s %s, want POST /v1/chat/completions", r.method, r.path)
			}
			if r.auth != "Bearer lab" {
				t.Errorf("Authorization = %q, want %q", r.auth, "Bearer lab")
			}
			if r.contentType != "application/json" {
				t.Errorf("Content-Type = %q, want application/json", r.contentType)
			}
			want := `{"model":"lab","messages":[{"role":"user","content":"` + testQuestion + `"}],"max_tokens":80,"stream":false}`
			if r.body != want {
				t.Errorf("request body:\n got %s\nwant %s", r.body, want)
			}
		})
	}
}

func TestAskEmptyKeySendsNoAuthorization(t *testing.T) {
	srv, got := serve(t, http.StatusOK, "application/json", completion(choice(`"`+testAnswer+`"`)))
	cfg := testConfig(srv.URL)
	cfg.Key = ""
	if a := Ask(context.Background(), cfg, testPrompt); a.Recorded {
		t.Fatalf("Ask fell back: %+v", a)
	}
	if r := <-got; r.auth != "" {
		t.Errorf("Authorization = %q, want no header", r.auth)
	}
}

// TestAskFallsBack covers every reply that must give the recorded sample.
func TestAskFallsBack(t *testing.T) {
	html := "<html>\n<head><title>502 Bad Gateway</title></head>\n<body>\n<h1>Bad Gateway</h1>\n</body>\n</html>\n"
	tests := []struct {
		name, contentType, body string
		status                  int
		reason                  string
	}{
		{"401 with JSON error", "application/json",
			`{"error":{"message":"invalid api key","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`,
			401, "status 401: invalid api key"},
		{"401 with multi-line JSON error", "application/json",
			`{"error":{"message":"Authentication Error,\nInvalid proxy server token passed.","type":"auth_error","param":"None","code":"401"}}`,
			401, "status 401: Authentication Error, Invalid proxy server token passed."},
		{"401 with a long message", "application/json",
			`{"error":{"message":"` + strings.Repeat("x", 500) + `","type":"auth_error"}}`,
			401, "status 401: " + strings.Repeat("x", maxReason-len("status 401: ")-3) + "..."},
		{"500 with JSON error and no message", "application/json", `{"error":{"message":"","type":"server_error"}}`,
			500, "status 500 from the model service"},
		{"502 with HTML body", "text/html", html, 502, "status 502 from the model service"},
		{"empty choices", "application/json", completion(`[]`), 200, "no answer in the reply"},
		{"null choices", "application/json", completion(`null`), 200, "no answer in the reply"},
		{"empty content", "application/json", completion(choice(`""`)), 200, "the model's answer was empty"},
		{"white-space content", "application/json", completion(choice(`" \n\t "`)), 200, "the model's answer was empty"},
		{"null content", "application/json", completion(choice(`null`)), 200, "the model's answer was empty"},
		{"200 with HTML body", "text/html", html, 200, "the model service's reply is not a chat completion"},
		{"200 with empty body", "application/json", "", 200, "the model service's reply is not a chat completion"},
		{"200 with wrong JSON shape", "application/json", `{"choices":"none"}`, 200, "the model service's reply is not a chat completion"},
		{"200 with cut JSON", "application/json", `{"choices":[{"message":{"content":"Bec`, 200, "the model service's reply is not a chat completion"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv, _ := serve(t, tc.status, tc.contentType, tc.body)
			a := Ask(context.Background(), testConfig(srv.URL), testPrompt)
			want := Answer{Text: testSample, Recorded: true, Reason: tc.reason}
			if a != want {
				t.Fatalf("Ask =\n%+v\nwant\n%+v", a, want)
			}
		})
	}
}

func TestAskReplyTooLarge(t *testing.T) {
	for _, status := range []int{200, 502} {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			big := `{"choices":[{"message":{"content":"` + strings.Repeat("a", MaxReplyBytes) + `"}}]}`
			srv, _ := serve(t, status, "application/json", big)
			a := Ask(context.Background(), testConfig(srv.URL), testPrompt)
			want := Answer{Text: testSample, Recorded: true, Reason: "the reply is larger than 1048576 bytes"}
			if a != want {
				t.Fatalf("Ask = %+v, want %+v", a, want)
			}
		})
	}
}

func TestAskReplyExactlyAtLimit(t *testing.T) {
	head := completion(choice(`"` + testAnswer + `"`))
	body := head + strings.Repeat(" ", MaxReplyBytes-len(head))
	srv, _ := serve(t, 200, "application/json", body)
	if a := Ask(context.Background(), testConfig(srv.URL), testPrompt); a != (Answer{Text: testAnswer}) {
		t.Fatalf("Ask = %+v, want the model's answer", a)
	}
}

// blockingServer never answers: each handler waits until the client gives up
// or the test ends. The cleanup order makes srv.Close return promptly.
func blockingServer(t *testing.T) *httptest.Server {
	t.Helper()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(srv.Close)                 // runs second
	t.Cleanup(func() { close(release) }) // runs first
	return srv
}

func TestAskTimeout(t *testing.T) {
	srv := blockingServer(t)
	cfg := testConfig(srv.URL)
	cfg.Timeout = 50 * time.Millisecond
	a := Ask(context.Background(), cfg, testPrompt)
	want := Answer{Text: testSample, Recorded: true, Reason: "timeout after 50ms"}
	if a != want {
		t.Fatalf("Ask = %+v, want %+v", a, want)
	}
}

func TestAskCallerCancels(t *testing.T) {
	srv := blockingServer(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	a := Ask(ctx, testConfig(srv.URL), testPrompt)
	want := Answer{Text: testSample, Recorded: true, Reason: "cancelled before the model answered"}
	if a != want {
		t.Fatalf("Ask = %+v, want %+v", a, want)
	}
}

func TestAskCallerDeadlinePassed(t *testing.T) {
	srv := blockingServer(t)
	ctx, cancel := context.WithDeadline(context.Background(), time.Unix(0, 0))
	defer cancel()
	a := Ask(ctx, testConfig(srv.URL), testPrompt)
	want := Answer{Text: testSample, Recorded: true, Reason: "ran out of time before the model answered"}
	if a != want {
		t.Fatalf("Ask = %+v, want %+v", a, want)
	}
}

func TestAskConnectionRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := "http://" + ln.Addr().String()
	ln.Close()
	a := Ask(context.Background(), testConfig(addr+"/"), testPrompt)
	want := Answer{Text: testSample, Recorded: true, Reason: "connection refused by " + addr}
	if a != want {
		t.Fatalf("Ask = %+v, want %+v", a, want)
	}
}

func TestAskNoSuchHost(t *testing.T) {
	for _, v := range []string{"HTTP_PROXY", "http_proxy"} {
		if os.Getenv(v) != "" {
			t.Skipf("%s is set, so the name would be looked up by the proxy", v)
		}
	}
	const addr = "http://lab-model-test.invalid:4000"
	a := Ask(context.Background(), testConfig(addr), testPrompt)
	want := Answer{Text: testSample, Recorded: true, Reason: "cannot reach " + addr + ": no such host"}
	if a != want {
		t.Fatalf("Ask = %+v, want %+v", a, want)
	}
}

// TestReason covers errors that a test server cannot produce on demand.
func TestReason(t *testing.T) {
	const where = "http://ai:4000"
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"name lookup failed",
			&url.Error{Op: "Post", URL: where, Err: &net.OpError{Op: "dial", Err: &net.DNSError{Err: "server misbehaving", Name: "ai"}}},
			"cannot reach http://ai:4000: name lookup failed (server misbehaving)"},
		{"connection reset",
			&url.Error{Op: "Post", URL: where, Err: &net.OpError{Op: "read", Err: os.NewSyscallError("read", syscall.ECONNRESET)}},
			"cannot reach http://ai:4000: connection reset by peer"},
		{"refused",
			&url.Error{Op: "Post", URL: where, Err: &net.OpError{Op: "dial", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}},
			"connection refused by http://ai:4000"},
		{"invalid model for the endpoint", openai.ErrChatCompletionInvalidModel, openai.ErrChatCompletionInvalidModel.Error()},
		{"other", errors.New("something odd"), "something odd"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := reason(tc.err, where); got != tc.want {
				t.Errorf("reason = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestAskRedactsPassword(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	host := ln.Addr().String()
	ln.Close()
	a := Ask(context.Background(), testConfig("http://user:secret@"+host), testPrompt)
	if want := "connection refused by http://user:xxxxx@" + host; a.Reason != want {
		t.Fatalf("Reason = %q, want %q", a.Reason, want)
	}
}

func TestShorten(t *testing.T) {
	long := strings.Repeat("é", 200)
	got := shorten(long)
	if want := strings.Repeat("é", maxReason-3) + "..."; got != want {
		t.Errorf("shorten(200 runes) = %q, want %q", got, want)
	}
	if got := shorten("a\r\nb\tc\x1b[31m  d\xff"); got != "a b c [31m d\uFFFD" {
		t.Errorf("shorten = %q", got)
	}
}

func TestLines(t *testing.T) {
	tests := []struct {
		name string
		a    Answer
		want []string
	}{
		{"model answered", Answer{Text: "Because answers\ncan arrive\r\nin any order."},
			[]string{"model: Because answers can arrive in any order."}},
		{"recorded", Answer{Text: testSample, Recorded: true, Reason: "timeout after 30s"},
			[]string{"Recorded sample: no model answered (timeout after 30s).", "model: " + testSample}},
		{"recorded, reason with lines", Answer{Text: "one\ntwo", Recorded: true, Reason: "status 401:\ninvalid api key"},
			[]string{"Recorded sample: no model answered (status 401: invalid api key).", "model: one two"}},
		{"recorded, no reason", Answer{Text: testSample, Recorded: true},
			[]string{"Recorded sample: no model answered.", "model: " + testSample}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Lines(tc.a)
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") || len(got) != len(tc.want) {
				t.Errorf("Lines =\n%q\nwant\n%q", got, tc.want)
			}
		})
	}
}
