package httpbound

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// generous bounds a wait that only a broken reader would reach.
const generous = time.Minute

// answerServer serves h and returns a client whose transport keeps the
// header bound of a.
func answerServer(t *testing.T, a Answer, h http.HandlerFunc) (*httptest.Server, *http.Client) {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	tr := a.Transport(nil)
	t.Cleanup(tr.CloseIdleConnections)
	return srv, &http.Client{Transport: tr}
}

// get sends a GET to srv within a and fails the test if it cannot.
func get(t *testing.T, a Answer, srv *httptest.Server, c *http.Client) *Reading {
	t.Helper()
	req, err := http.NewRequest("GET", srv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err := a.Do(context.Background(), c, req)
	if err != nil {
		t.Fatalf("Do: %v", err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// wantBound fails the test unless err is an *AnswerError for which.
func wantBound(t *testing.T, err error, which Which) *AnswerError {
	t.Helper()
	var ae *AnswerError
	if !errors.As(err, &ae) || ae.Which != which {
		t.Fatalf("error %v (%T); want an AnswerError for the %s", err, err, which)
	}
	return ae
}

// endless writes chunk until the client goes.
func endless(w http.ResponseWriter, chunk string) {
	f := w.(http.Flusher)
	for {
		if _, err := io.WriteString(w, chunk); err != nil {
			return
		}
		f.Flush()
	}
}

func TestBodyWithinBound(t *testing.T) {
	a := Answer{MaxBody: 16}
	srv, c := answerServer(t, a, func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"jsonrpc":"2.0"}`[:16])
	})
	b, err := get(t, a, srv, c).Body()
	if err != nil || string(b) != `{"jsonrpc":"2.0"` {
		t.Fatalf("Body = %q, %v; want the 16 bytes sent", b, err)
	}
}

// A body that never ends stops one byte past the bound, whether it is
// chunked or announced by its Content-Length.
func TestBodyThatNeverEnds(t *testing.T) {
	a := Answer{MaxBody: 1000, Idle: generous, Total: generous}
	srv, c := answerServer(t, a, func(w http.ResponseWriter, r *http.Request) {
		endless(w, strings.Repeat("x", 300))
	})
	_, err := get(t, a, srv, c).Body()
	ae := wantBound(t, err, BodyBytes)
	if ae.Read > a.MaxBody+4096 {
		t.Errorf("read %d bytes of an endless body; want at most the bound and one buffer", ae.Read)
	}
	if want := "the answer's body goes on past the 1000 bytes the lab reads of one answer"; err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}

	srv, c = answerServer(t, a, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "5000")
		endless(w, strings.Repeat("x", 300))
	})
	_, err = get(t, a, srv, c).Body()
	ae = wantBound(t, err, BodyBytes)
	if ae.Read != 0 || ae.Length != 5000 {
		t.Errorf("a Content-Length past the bound: read %d, length %d; want 0 read, 5000", ae.Read, ae.Length)
	}
	if want := "the answer's Content-Length of 5000 bytes is more than the 1000 bytes the lab reads of one answer"; err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
}

// An event that never reaches its blank line stops past MaxEvent; the
// events before it come whole.
func TestEventThatNeverEnds(t *testing.T) {
	a := Answer{MaxEvent: 2000, Idle: generous, Total: generous}
	srv, c := answerServer(t, a, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "\nevent: message\r\nid: 7\r\ndata: {\"a\":\r\ndata: 1}\r\n\r\ndata: ")
		endless(w, strings.Repeat("y", 500))
	})
	r := get(t, a, srv, c)
	ev, err := r.Event()
	want := Event{Type: "message", ID: "7", Data: "{\"a\":\n1}", Raw: []byte("event: message\r\nid: 7\r\ndata: {\"a\":\r\ndata: 1}\r\n\r\n")}
	if err != nil || ev.Type != want.Type || ev.ID != want.ID || ev.Data != want.Data || string(ev.Raw) != string(want.Raw) {
		t.Fatalf("first event %+v, %v; want %+v", ev, err, want)
	}
	_, err = r.Event()
	ae := wantBound(t, err, EventBytes)
	if ae.Read > a.MaxEvent+4096 {
		t.Errorf("held %d bytes of one event; want at most the bound and one buffer", ae.Read)
	}
}

// A long line is one line, however the reader's buffer cuts it: a "\n"
// that ends a long line is not a blank line.
func TestEventLongLines(t *testing.T) {
	a := Answer{}
	long := strings.Repeat("z", 4095) // with "data: ", the buffer ends just before the "\n"
	srv, c := answerServer(t, a, func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "data: "+long+"\ndata: b\n\n")
	})
	r := get(t, a, srv, c)
	ev, err := r.Event()
	if err != nil || ev.Data != long+"\nb" {
		t.Fatalf("event of %d data bytes, %v; want %d", len(ev.Data), err, len(long)+2)
	}
	if _, err := r.Event(); err != io.EOF {
		t.Fatalf("after the last event: %v, want io.EOF", err)
	}
}

func TestEventCutOff(t *testing.T) {
	a := Answer{}
	srv, c := answerServer(t, a, func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "data: 1\n")
	})
	_, err := get(t, a, srv, c).Event()
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("a stream ending mid-event: %v, want io.ErrUnexpectedEOF", err)
	}
}

// A server that sends one byte and then nothing more (a byte a minute)
// breaks the idle bound, in a body and in an event stream, and the bytes
// that came are counted.
func TestByteAMinute(t *testing.T) {
	a := Answer{Idle: 200 * time.Millisecond, Total: generous}
	for _, first := range []string{"{", "data: 1\n"} {
		srv, c := answerServer(t, a, func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, first)
			w.(http.Flusher).Flush()
			<-r.Context().Done() // the next byte would come in a minute
		})
		r := get(t, a, srv, c)
		var err error
		if first == "{" {
			_, err = r.Body()
		} else {
			_, err = r.Event()
		}
		ae := wantBound(t, err, IdleTime)
		if ae.Read != int64(len(first)) || ae.InHeaders {
			t.Errorf("after %q: read %d, in headers %v; want %d, false", first, ae.Read, ae.InHeaders, len(first))
		}
		want := "no byte of the answer came for 200ms (" + map[string]string{"{": "1", "data: 1\n": "8"}[first] + " bytes of its body had come)"
		if err.Error() != want {
			t.Errorf("error %q, want %q", err, want)
		}
	}
}

// Headers that never come break the idle bound too, from Do.
func TestHeadersThatNeverCome(t *testing.T) {
	a := Answer{Idle: 200 * time.Millisecond, Total: generous}
	srv, c := answerServer(t, a, func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
	})
	req, _ := http.NewRequest("GET", srv.URL, nil)
	_, err := a.Do(context.Background(), c, req)
	ae := wantBound(t, err, IdleTime)
	if !ae.InHeaders {
		t.Errorf("InHeaders = false for headers that never came")
	}
}

// A stream that keeps sending small events, so never idle, breaks the
// total bound.
func TestStreamThatNeverEnds(t *testing.T) {
	a := Answer{Idle: generous, Total: 300 * time.Millisecond}
	srv, c := answerServer(t, a, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		endless(w, ": ping\n\n")
	})
	r := get(t, a, srv, c)
	var err error
	for err == nil {
		_, err = r.Event()
	}
	wantBound(t, err, TotalTime)
}

func TestHeadersTooLong(t *testing.T) {
	a := Answer{MaxHeaderBytes: 4096}
	srv, c := answerServer(t, a, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Long", strings.Repeat("h", 64<<10))
	})
	req, _ := http.NewRequest("GET", srv.URL, nil)
	_, err := a.Do(context.Background(), c, req)
	wantBound(t, err, HeaderBytes)
	if want := "the answer's status line and headers are longer than the 4096 bytes the lab reads of them"; err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
}

// An error that no bound caused keeps its cause.
func TestUnreachable(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	req, _ := http.NewRequest("GET", url, nil)
	_, err := Answer{}.Do(context.Background(), http.DefaultClient, req)
	var ae *AnswerError
	if err == nil || errors.As(err, &ae) {
		t.Fatalf("Do to a closed port: %v; want the dial error", err)
	}
}
