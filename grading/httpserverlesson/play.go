package httpserverlesson

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sort"
	"sync"
	"time"

	"github.com/mcplab/mcplab/grading"
	"github.com/mcplab/mcplab/lab/event"
	"github.com/mcplab/mcplab/lab/httpbound"
	"github.com/mcplab/mcplab/lab/httpprobe"
	"github.com/mcplab/mcplab/lab/httpscenario"
	"github.com/mcplab/mcplab/lab/proc"
)

// played is what one exchange of a scenario gave.
type played struct {
	ex *httpscenario.Exchange
	// id is the request's JSON-RPC id, nil for none.
	id json.RawMessage
	// answer is the server's answer to a request; nil for a SIGTERM and
	// for an exchange not played.
	answer *httpprobe.Answer
	// notPlayed says why the exchange was not played ("" when it was):
	// its copy had ended, a template it needs could not be filled.
	notPlayed string
	// gone is set when the copy ended during the exchange, and says how.
	gone string
	// exit is how the copy ended after SIGTERM; exited is false when it
	// had not within the deadline (exitWait).
	exit     proc.Exit
	exited   bool
	exitWait time.Duration
}

// run is what playing one scenario gave.
type run struct {
	sc      *httpscenario.Scenario
	played  map[string]*played
	records []event.Record
	// startErr is set when a copy could not be started.
	startErr error
}

// timing is the kind's deadlines at one time scale.
type timing struct {
	ready, exit, gone, streamEnd time.Duration
	bound                        httpbound.Answer
}

func timingAt(scale float64) timing {
	s := func(d time.Duration) time.Duration { return grading.ScaleBy(d, scale) }
	return timing{ready: s(ReadyDeadline), exit: s(ExitDeadline), gone: s(GoneWait), streamEnd: s(StreamEnd),
		bound: httpbound.Answer{Idle: s(AnswerIdle), Total: s(AnswerTotal)}}
}

// recorder keeps a scenario's records, from the probe and from both
// copies' output, in one list, and hands each on as it comes.
type recorder struct {
	mu      sync.Mutex
	start   time.Time
	records []event.Record
	on      func(event.Record)
}

func (r *recorder) record(rec event.Record) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if rec.At == 0 {
		rec.At = time.Since(r.start)
	}
	r.records = append(r.records, rec)
	if r.on != nil {
		r.on(rec)
	}
}

// sorted is the records in order of time, equal times kept in the order
// they came.
func (r *recorder) sorted() []event.Record {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := append([]event.Record(nil), r.records...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].At < out[j].At })
	return out
}

// copies are the running copies of the student's server, kept from one
// scenario to the next: a scenario starts only the copies that are not
// running (at the first scenario, or after one ended), so a grade costs
// two starts, not two a scenario. Each start gets a new free port.
type copies struct {
	launch    *launch
	maxOutput int64
	ready     time.Duration
	mu        sync.Mutex
	rec       *recorder // the scenario being played, which copies' output goes to
	running   map[string]*serverCopy
}

func newCopies(l *launch, maxOutput int64, ready time.Duration) *copies {
	return &copies{launch: l, maxOutput: maxOutput, ready: ready, running: map[string]*serverCopy{}}
}

// dial connects to the running copy that listens at addr (host:port, as
// a request names it), however the copy is reached.
func (cs *copies) dial(ctx context.Context, addr string) (net.Conn, error) {
	for _, c := range cs.running {
		if c.addr() == addr {
			return c.dial(ctx)
		}
	}
	return nil, fmt.Errorf("no copy of the server listens at %s", addr)
}

// record hands a copy's record to the scenario being played.
func (cs *copies) record(r event.Record) {
	cs.mu.Lock()
	rec := cs.rec
	cs.mu.Unlock()
	if rec != nil {
		rec.record(r)
	}
}

// ensure makes both copies run for the scenario rec records, starting
// (at once) those that are not running.
func (cs *copies) ensure(ctx context.Context, rec *recorder) error {
	cs.mu.Lock()
	cs.rec = rec
	cs.mu.Unlock()
	var wg sync.WaitGroup
	errs := make([]error, len(httpscenario.Copies))
	started := make([]*serverCopy, len(httpscenario.Copies))
	ports, err := freePorts(len(httpscenario.Copies))
	if err != nil {
		return err
	}
	for i, name := range httpscenario.Copies {
		if c := cs.running[name]; c != nil {
			if _, gone := c.exited(); !gone {
				continue
			}
			c.kill()
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			started[i], errs[i] = startCopy(ctx, cs.launch, name, ports[i], cs.ready, cs.maxOutput, cs.record)
		}()
	}
	wg.Wait()
	for i, name := range httpscenario.Copies {
		if started[i] != nil {
			cs.running[name] = started[i]
		}
	}
	for i, err := range errs {
		if err != nil {
			var se *startError
			late := errors.As(err, &se) && se.late
			rec.record(event.Record{Kind: event.Note, Server: httpscenario.Copies[i], Text: err.Error(), Deadline: late})
			return err
		}
	}
	return nil
}

// close ends every copy.
func (cs *copies) close() {
	for _, c := range cs.running {
		c.kill()
	}
	cs.running = map[string]*serverCopy{}
}

// playScenario plays the scenario's exchanges, in order, one at a time,
// against the two copies.
func playScenario(ctx context.Context, sc *httpscenario.Scenario, cs *copies, t timing, on func(event.Record)) *run {
	rec := &recorder{start: time.Now(), on: on}
	r := &run{sc: sc, played: map[string]*played{}}
	defer func() { r.records = rec.sorted() }()
	if err := cs.ensure(ctx, rec); err != nil {
		r.startErr = err
		return r
	}
	probe := httpprobe.New(t.bound, t.streamEnd, rec.start, rec.record)
	probe.DialWith(cs.dial)
	defer probe.Close()
	filled := httpscenario.Filled{Ports: map[string]int{}, Responses: map[string]map[string]any{}}
	for name, c := range cs.running {
		filled.Ports[name] = c.port
	}
	for i, ex := range sc.Exchanges {
		p := &played{ex: ex}
		r.played[ex.Name] = p
		c := cs.running[ex.Copy]
		if exit, gone := c.exited(); gone {
			p.notPlayed = fmt.Sprintf("copy %s of the server had ended (it %s) before exchange %s", ex.Copy, exit, ex.Name)
			continue
		}
		if ex.Terminate {
			playTerminate(c, p, t, rec)
			continue
		}
		req, err := ex.Fill(filled)
		if err != nil {
			p.notPlayed = err.Error()
			rec.record(event.Record{Kind: event.Note, Server: ex.Copy, Conn: i + 1, Text: "exchange " + ex.Name + " not sent: " + err.Error()})
			continue
		}
		p.id = httpscenario.ID(req.Body)
		p.answer = probe.Do(ctx, ex.Copy, i+1, c.addr(), req, p.id)
		if m, at := p.answer.Response(p.id); at >= 0 && p.id != nil {
			filled.Responses[ex.Name] = m.Value
		}
		if p.answer.Status == 0 {
			p.gone = waitGone(c, t.gone)
			if p.gone != "" {
				rec.record(event.Record{Kind: event.Exit, Server: ex.Copy, Conn: i + 1, Text: p.gone})
			}
		}
		if ctx.Err() != nil {
			break
		}
	}
	return r
}

// playTerminate sends a copy SIGTERM and waits for it to exit.
func playTerminate(c *serverCopy, p *played, t timing, rec *recorder) {
	rec.record(event.Record{Kind: event.Note, Server: c.name, Text: "the grader sends SIGTERM"})
	exit, exited, err := c.terminate(t.exit)
	if err != nil {
		p.notPlayed = err.Error()
		rec.record(event.Record{Kind: event.Note, Server: c.name, Text: err.Error()})
		return
	}
	p.exit, p.exited, p.exitWait = exit, exited, t.exit
	if exited {
		rec.record(event.Record{Kind: event.Exit, Server: c.name, Text: exit.String()})
		return
	}
	rec.record(event.Record{Kind: event.Note, Server: c.name, Text: fmt.Sprintf("still running %v after SIGTERM", t.exit), Deadline: true})
}

// waitGone waits up to within for a copy that gave no answer to end, and
// says how it ended; "" when it is still running.
func waitGone(c *serverCopy, within time.Duration) string {
	timer := time.NewTimer(within)
	defer timer.Stop()
	select {
	case <-c.done():
		return "the copy " + c.p.Wait().String() + " during the exchange"
	case <-timer.C:
		return ""
	}
}

// statusText is a status as a student reads it: "404 Not Found".
func statusText(code int) string {
	if t := http.StatusText(code); t != "" {
		return fmt.Sprintf("%d %s", code, t)
	}
	return fmt.Sprint(code)
}
