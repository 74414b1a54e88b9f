// Package capture records a session with a stdio server: it starts the
// server, sends it the lines of a file one at a time, and keeps every line
// that crosses the pipes, both ways, with who wrote it and when. A session
// is written as JSON Lines (one Record a line) and as Markdown to read.
//
// Each request waits for its answer (or a deadline) before the next line is
// sent, so a recording of a correct server has the same order every time;
// only the times change.
package capture

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/mcplab/mcplab/lab/event"
	"github.com/mcplab/mcplab/lab/proc"

	"github.com/mcplab/mcplab/lab/wire"
)

// Who says which stream a record comes from, as a kind of the lab's one
// set of event kinds. A session file names it by who wrote the line (see
// Word).
type Who = event.Kind

// The streams of a session, and the lab's own notes (stdin closed, the exit).
const (
	Client = event.Send   // a line written to the server's stdin: "client" in a file
	Server = event.Answer // a line the server wrote on stdout: "server"
	Stderr = event.Stderr // a line the server wrote on stderr: "stderr"
	Lab    = event.Note   // an event the recorder notes: "lab"
)

// Record is one line of a session.
type Record struct {
	// Seq numbers the records from 1 in the order they were seen.
	Seq int `json:"seq"`
	// Ms is the time since the server started, in milliseconds.
	Ms float64 `json:"ms"`
	// From is who wrote the line; a file spells it as Word does.
	From Who `json:"from"`
	// Message is the line when it is JSON (compacted).
	Message json.RawMessage `json:"message,omitempty"`
	// Text is the line when it is not JSON, a stderr line, or a lab note.
	Text *string `json:"text,omitempty"`
}

// Line returns the record's line as it crossed the pipe (a message is
// given compacted).
func (r Record) Line() string {
	if r.Message != nil {
		return string(r.Message)
	}
	if r.Text != nil {
		return *r.Text
	}
	return ""
}

// Options tune a recording.
type Options struct {
	// Wait bounds the wait for each answer and for the server's exit; 0
	// means 5 s.
	Wait time.Duration
	// Now returns the current time; nil means time.Now. Tests pass a fake.
	Now func() time.Time
}

// Session is a finished recording.
type Session struct {
	// Command is the server's command line, as given.
	Command []string
	// Input names the file whose lines were sent.
	Input   string
	Records []Record
	// Exit is how the server ended.
	Exit proc.Exit
	// Missing lists the requests that got no answer within the wait.
	Missing []string
}

// Run starts the server with starter, sends each non-blank line of input,
// waiting after each request for its answer, then closes stdin and waits
// for the server to exit. At each deadline it ends the server's whole
// process group, and it stops waiting for output that something the
// server started still holds open (a daemon that left the group): the
// read ends are closed. It returns an error when the server cannot be
// started, or when ctx ends (the server is then ended, and the session
// returned holds what was recorded until then); a server that misbehaves
// is recorded as it is.
func Run(ctx context.Context, starter proc.Starter, input []byte, opts Options) (*Session, error) {
	if opts.Wait <= 0 {
		opts.Wait = 5 * time.Second
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	p, err := starter.Start(ctx)
	if err != nil {
		return nil, fmt.Errorf("starting the server: %w", err)
	}
	rec := &recorder{start: opts.Now(), now: opts.Now, changed: make(chan struct{})}
	var readers sync.WaitGroup
	readers.Add(2)
	go func() { defer readers.Done(); rec.read(p.Stdout(), Server) }()
	go func() { defer readers.Done(); rec.read(p.Stderr(), Stderr) }()

	s := &Session{}
	for _, line := range bytes.Split(input, []byte("\n")) {
		if ctx.Err() != nil {
			break
		}
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		rec.add(Client, line)
		if err := writeWithin(p, append(bytes.Clone(line), '\n'), opts.Wait); err != nil && ctx.Err() != nil {
			break // interrupted: the server has been ended
		} else if err != nil {
			rec.note(fmt.Sprintf("writing to the server's stdin failed: %v", err))
			s.Missing = append(s.Missing, "the rest of the input: "+err.Error())
			break
		}
		want, ok := expectedAnswer(line)
		if !ok {
			continue // a notification: nothing comes back
		}
		if !rec.await(ctx, want, opts.Wait) && ctx.Err() == nil {
			s.Missing = append(s.Missing, fmt.Sprintf("no answer to %s within %s", want.describe(), opts.Wait))
			rec.note(s.Missing[len(s.Missing)-1])
		}
	}
	rec.endAnswers() // nobody awaits from here on
	p.Stdin().Close()
	rec.note("stdin closed")
	done := make(chan proc.Exit, 1)
	go func() { done <- p.Wait() }()
	deadline := time.NewTimer(opts.Wait)
	defer deadline.Stop()
	select {
	case s.Exit = <-done:
	case <-deadline.C:
		p.Kill()
		s.Exit = <-done
		rec.note(fmt.Sprintf("the server had not exited %s after stdin closed, so it and its process group were killed", opts.Wait))
	case <-ctx.Done():
		p.Kill()
		s.Exit = <-done
		rec.note("the recording was interrupted, so the server and its process group were killed")
	}
	drainOutput(ctx, p, rec, &readers, opts.Wait)
	rec.note("server " + s.Exit.String())
	s.Records = rec.records()
	if err := ctx.Err(); err != nil {
		return s, fmt.Errorf("the recording was interrupted: %w", err)
	}
	return s, nil
}

// drainOutput waits for the readers to reach the end of the server's
// output. Past wait (or once ctx ends), something the server started still
// holds the pipes open: the process group is killed and the read ends are
// closed, so a daemon that left the group cannot keep the recorder
// waiting. A Process that cannot close its output early is given one more
// wait, then left behind.
func drainOutput(ctx context.Context, p proc.Process, rec *recorder, readers *sync.WaitGroup, wait time.Duration) {
	outputDone := make(chan struct{})
	go func() { readers.Wait(); close(outputDone) }()
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-outputDone:
		return
	case <-t.C:
	case <-ctx.Done():
	}
	p.Kill()
	if oc, ok := p.(interface{ CloseOutput() }); ok {
		oc.CloseOutput()
	}
	t.Reset(wait)
	select {
	case <-outputDone:
		rec.note(fmt.Sprintf("something the server started still held its output open %s after it ended; "+
			"the recorder killed the server's process group and stopped reading", wait))
	case <-t.C:
		rec.note(fmt.Sprintf("the server's output was still open %s after the recorder stopped reading; it gave up on it", wait))
	}
}

// writeWithin writes b to the server's stdin, giving up after wait: a
// server that stops reading must not hang the recorder. On a timeout the
// server is killed, which ends the write.
func writeWithin(p proc.Process, b []byte, wait time.Duration) error {
	done := make(chan error, 1)
	go func() {
		_, err := p.Stdin().Write(b)
		done <- err
	}()
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case err := <-done:
		return err
	case <-t.C:
		p.Kill()
		<-done
		return fmt.Errorf("the server read none of it for %s, so it was killed", wait)
	}
}

// wantID is the answer a line should get: to an id, or (for a line whose id
// cannot be read) an error with no id or a null one.
type wantID struct {
	id json.RawMessage // nil: no usable id
}

func (w wantID) describe() string {
	if w.id == nil {
		return "the line (an error without an id)"
	}
	return "id " + string(w.id)
}

func (w wantID) matches(m *wire.Message) bool {
	if w.id == nil {
		return m.Error != nil && (len(m.ID) == 0 || bytes.Equal(m.ID, wire.Null))
	}
	return wire.SameID(m.ID, w.id)
}

// expectedAnswer says what answer a line should get, if any: a request's
// answer carries its id; a line that is not a request is answered with an
// error; a notification gets nothing.
func expectedAnswer(line []byte) (wantID, bool) {
	msg, problem := wire.ParseRequest(line)
	switch {
	case problem != nil && bytes.Equal(problem.ID, wire.Null):
		return wantID{}, true
	case problem != nil:
		return wantID{id: problem.ID}, true
	case msg.Kind == wire.KindNotification:
		return wantID{}, false
	}
	return wantID{id: msg.ID}, true
}

// MaxRecorded bounds the bytes of the lines a session keeps. Past it, the
// server's further output is counted, not kept, so a server that floods its
// output cannot exhaust the recorder's memory.
const MaxRecorded = 64 << 20

type recorder struct {
	start   time.Time
	now     func() time.Time
	mu      sync.Mutex
	recs    []Record
	kept    int   // bytes of the lines kept
	dropped int64 // lines left out past MaxRecorded
	// answers are the server's answers as read, for await: those before
	// taken were matched already. changed is closed and replaced at each
	// new one, and at the end of stdout (ended).
	answers   []*wire.Message
	taken     int
	heldBytes int
	ended     bool
	changed   chan struct{}
}

// answered hands await an answer read from stdout. The reader never
// waits for await: a server that writes more than it is asked for is
// read on, whatever the client is doing.
// Only what await looks at is held (the id, whether there is an error),
// and no more than awaitHeld answers or awaitHeldBytes of ids that no
// await took yet: past that, a flood's later answers are recorded but not
// awaited, and none is held once nobody awaits.
func (r *recorder) answered(m *wire.Message) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ended || len(r.answers)-r.taken >= awaitHeld || r.heldBytes+len(m.ID) > awaitHeldBytes {
		return
	}
	held := &wire.Message{ID: bytes.Clone(m.ID)}
	if m.Error != nil {
		held.Error = &wire.Error{}
	}
	r.answers = append(r.answers, held)
	r.heldBytes += len(m.ID)
	close(r.changed)
	r.changed = make(chan struct{})
}

// The bounds on the answers held for await (see answered).
const (
	awaitHeld      = 1 << 16
	awaitHeldBytes = 4 << 20
)

// endAnswers says no answer is awaited any more: stdout has ended, or
// the input is all sent.
func (r *recorder) endAnswers() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ended = true
	close(r.changed)
	r.changed = make(chan struct{})
}

// match takes the answers not yet matched up to the first that want
// matches, and reports whether there was one; when there was none, it
// gives a channel closed at the next answer, and whether stdout ended.
func (r *recorder) match(want wantID) (found, ended bool, changed <-chan struct{}) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.taken == len(r.answers) {
		r.answers, r.taken = r.answers[:0], 0 // all taken: the room is reused
	}
	for r.taken < len(r.answers) {
		m := r.answers[r.taken]
		r.answers[r.taken] = nil
		r.heldBytes -= len(m.ID)
		r.taken++
		if want.matches(m) {
			return true, false, nil
		}
	}
	return false, r.ended, r.changed
}

func (r *recorder) add(from Who, line []byte) {
	rec := Record{From: from}
	if from != Stderr && json.Valid(line) {
		var buf bytes.Buffer
		if json.Compact(&buf, line) == nil {
			rec.Message = buf.Bytes()
		}
	}
	if rec.Message == nil {
		t := strings.ToValidUTF8(string(line), "\uFFFD")
		rec.Text = &t
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if from != Lab && r.kept+len(line) > MaxRecorded {
		if r.dropped++; r.dropped == 1 {
			t := fmt.Sprintf("the session passed %d MiB; further lines are not kept", MaxRecorded>>20)
			r.recs = append(r.recs, Record{Seq: len(r.recs) + 1, Ms: r.ms(), From: Lab, Text: &t})
		}
		return
	}
	r.kept += len(line)
	rec.Ms = r.ms()
	rec.Seq = len(r.recs) + 1
	r.recs = append(r.recs, rec)
}

func (r *recorder) ms() float64 { return float64(r.now().Sub(r.start).Microseconds()) / 1000 }

func (r *recorder) note(text string) { r.add(Lab, []byte(text)) }

func (r *recorder) records() []Record {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Record(nil), r.recs...)
}

// read records every line of one output stream until it ends. Answers on
// stdout are also handed to await.
func (r *recorder) read(stream io.Reader, from Who) {
	if from == Server {
		defer r.endAnswers()
	}
	for line, err := range wire.Lines(stream, 0, wire.KeepBlankLines()) {
		if errors.Is(err, wire.ErrLineTooLong) {
			r.note(fmt.Sprintf("%s: %v", Word(from), err))
			continue
		}
		if err != nil {
			return
		}
		r.add(from, line)
		if from == Server {
			if m, why := wire.ParseResponse(line); why == "" {
				r.answered(m)
			} else if bytes.HasPrefix(bytes.TrimSpace(line), []byte("{")) {
				r.answered(lenientResponse(line))
			}
		}
	}
}

// lenientResponse reads the id and error of a line wire.ParseResponse
// refuses, such as a 2026-07-28 error with no id member, so that await can
// see the answer arrived.
func lenientResponse(line []byte) *wire.Message {
	var m struct {
		ID    json.RawMessage `json:"id"`
		Error *wire.Error     `json:"error"`
	}
	if json.Unmarshal(line, &m) != nil {
		return &wire.Message{}
	}
	return &wire.Message{Kind: wire.KindResponse, ID: m.ID, Error: m.Error}
}

// await waits for the answer want describes, up to wait.
func (r *recorder) await(ctx context.Context, want wantID, wait time.Duration) bool {
	t := time.NewTimer(wait)
	defer t.Stop()
	for {
		found, ended, changed := r.match(want)
		if found {
			return true
		}
		if ended {
			return false
		}
		select {
		case <-changed:
		case <-t.C:
			return false
		case <-ctx.Done():
			return false
		}
	}
}
