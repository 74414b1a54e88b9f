package timeline

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/mcplab/mcplab/lab/event"
)

// This file places a timeline's parts: the time axis (drawn to scale, with
// quiet stretches folded), the lanes stacked top to bottom, and each mark
// in the first row of its lane it does not overlap.

// Layout of the timeline, in SVG user units (pixels at 100 % zoom).
const (
	plotLeft      = 150.0 // room for the lane names
	plotWidth     = 860.0 // width of the plotted time
	plotRight     = 20.0
	plotTop       = 26.0 // room for the time axis
	rowHeight     = 18.0 // one row of marks inside a lane
	lanePad       = 8.0
	markHeight    = 12.0
	markMinWidth  = 6.0  // the narrowest mark
	sendMaxWidth  = 90.0 // the widest send mark
	sendPxPerByte = 0.5  // a send mark's width grows with its bytes
	maxPxPerMS    = 4.0  // the most pixels one millisecond may get
	foldAfterMS   = 1000 // a quiet stretch longer than this is folded
	foldWidth     = 34.0 // the width a fold is drawn with
	laneRowsMax   = 6    // rows per lane before marks overlap
)

// timeMap places a time on the x axis, folding quiet stretches.
type timeMap struct {
	folds  [][2]int64 // start and end of each folded stretch
	pxPerM float64
}

// newTimeMap folds each gap between times longer than foldAfterMS and
// gives the rest of the plot's width to the time left, up to maxPxPerMS.
func newTimeMap(times []int64) timeMap {
	var tm timeMap
	span := int64(0)
	for i := 1; i < len(times); i++ {
		gap := times[i] - times[i-1]
		if gap > foldAfterMS {
			tm.folds = append(tm.folds, [2]int64{times[i-1], times[i]})
		} else {
			span += gap
		}
	}
	room := plotWidth - sendMaxWidth - float64(len(tm.folds))*foldWidth
	tm.pxPerM = maxPxPerMS
	if span > 0 {
		tm.pxPerM = math.Min(maxPxPerMS, math.Max(room, 100)/float64(span))
	}
	return tm
}

// x is the position of time t (ms since the scenario's start).
func (tm timeMap) x(t int64) float64 {
	shift := float64(0)
	folded := int64(0)
	for _, f := range tm.folds {
		if t >= f[1] {
			folded += f[1] - f[0]
			shift += foldWidth
		} else if t > f[0] {
			folded += t - f[0]
			shift += foldWidth * float64(t-f[0]) / float64(f[1]-f[0])
		}
	}
	return plotLeft + float64(t-folded)*tm.pxPerM + shift
}

// markTimes is the time each event is drawn at, after a leading 0: its
// recorded time, never earlier than the event before it.
func markTimes(events []event.Event) []int64 {
	times := make([]int64, 0, len(events)+1)
	times = append(times, 0)
	for _, e := range events {
		at := max(e.At.Milliseconds(), times[len(times)-1]) // never backwards
		times = append(times, at)
	}
	return times
}

// laneSet is the lanes of one timeline, by name and in the order they
// are drawn.
type laneSet struct {
	byName map[string]*lane
	order  []string
}

// newLaneSet makes the lanes, in a fixed order: what the program is sent,
// what it answers, each rig server, stderr, and the grader's own events.
func newLaneSet(events []event.Event, client bool) *laneSet {
	ls := &laneSet{byName: map[string]*lane{}}
	if !client && slices.ContainsFunc(events, func(e event.Event) bool { return httpCopy(e) != "" }) {
		// An HTTP server lesson: each copy's requests, answers and logs,
		// in the order the copies first appear, then the grader's notes.
		for _, e := range events {
			if copy := httpCopy(e); copy != "" {
				for _, k := range []event.Kind{event.Post, event.Answer, event.Stderr} {
					ls.want(laneOf(event.Event{Record: event.Record{Kind: k, Server: copy}}, client))
				}
			}
		}
		ls.want(laneOf(event.Event{Record: event.Record{Kind: event.Note}}, client))
		return ls
	}
	ls.want(laneOf(event.Event{Record: event.Record{Kind: event.Send}}, client))
	ls.want(laneOf(event.Event{Record: event.Record{Kind: event.Answer}}, client))
	for _, e := range events {
		if l := laneOf(e, client); strings.HasPrefix(l, "server") {
			ls.want(l)
		}
	}
	ls.want(laneOf(event.Event{Record: event.Record{Kind: event.Stderr}}, client))
	ls.want(laneOf(event.Event{Record: event.Record{Kind: event.Note}}, client))
	return ls
}

// want adds the lane name unless it is there already.
func (ls *laneSet) want(name string) {
	if ls.byName[name] == nil {
		short, _, _ := strings.Cut(name, " (")
		ls.byName[name] = &lane{Name: name, Short: short}
		ls.order = append(ls.order, name)
	}
}

// place draws mark m at x, in the first row of its lane it does not
// overlap (the last row when the lane has all its rows); m.Y is the row
// until stack makes it absolute.
func (ls *laneSet) place(m *mark, e event.Event, x float64) {
	m.Drawn = true
	m.X = x
	m.W = markMinWidth
	if kindOf(e) == event.Send {
		m.W = math.Min(sendMaxWidth, math.Max(markMinWidth, float64(len(e.Text))*sendPxPerByte))
	}
	l := ls.byName[m.Lane]
	row := -1
	for i, right := range l.rows {
		if m.X >= right+1 {
			row = i
			break
		}
	}
	if row < 0 {
		if len(l.rows) < laneRowsMax {
			l.rows = append(l.rows, 0)
			row = len(l.rows) - 1
		} else {
			row = len(l.rows) - 1 // overlap the last row rather than grow
		}
	}
	l.rows[row] = m.X + m.W
	m.Y = float64(row) // a row for now; made absolute by stack
}

// stack piles the lanes top to bottom, each as tall as its rows, sizes the
// timeline, and turns each drawn mark's row into its y.
func (ls *laneSet) stack(t *scenarioTimeline, marks []*mark) {
	y := plotTop
	for _, name := range ls.order {
		l := ls.byName[name]
		l.Y = y
		l.H = float64(max(1, len(l.rows)))*rowHeight + 2*lanePad
		y += l.H
		t.Lanes = append(t.Lanes, l)
	}
	t.Height = y + 30 // room for the brackets of split lines and the folds' labels
	t.Width = plotLeft + plotWidth + plotRight
	for _, m := range marks {
		if m.Drawn {
			l := ls.byName[m.Lane]
			m.Y = l.Y + lanePad + m.Y*rowHeight + (rowHeight-markHeight)/2
		}
	}
}

// axisTicks labels the time axis at a round step, skipping folded time.
func axisTicks(tm timeMap, end int64) []tick {
	step := axisStep(tm)
	var ticks []tick
	for at := int64(0); at <= end && len(ticks) < 200; at += step {
		inFold := false
		for _, f := range tm.folds {
			if at > f[0] && at < f[1] {
				inFold = true
			}
		}
		if !inFold {
			ticks = append(ticks, tick{X: tm.x(at), Label: humanMS(at)})
		}
	}
	// After a fold, time restarts at the fold's end: label it first.
	for _, f := range tm.folds {
		ticks = append(ticks, tick{X: tm.x(f[1]), Label: humanMS(f[1]), fold: true})
	}
	sort.SliceStable(ticks, func(i, j int) bool {
		if ticks[i].X != ticks[j].X {
			return ticks[i].X < ticks[j].X
		}
		return ticks[i].fold
	})
	var kept []tick
	for _, tk := range ticks {
		if n := len(kept); n > 0 && tk.X-kept[n-1].X < 55 {
			if !tk.fold || kept[n-1].fold {
				continue
			}
			kept = kept[:n-1] // a fold's end wins over a round number
		}
		kept = append(kept, tk)
	}
	return kept
}

// axisStep is the least round step of the time axis that leaves 70 pixels
// between labels, or the largest step.
func axisStep(tm timeMap) int64 {
	steps := []int64{1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 60000}
	for _, s := range steps {
		if float64(s)*tm.pxPerM >= 70 {
			return s
		}
	}
	return steps[len(steps)-1]
}

// humanMS is "12 ms" or "2.5 s".
func humanMS(ms int64) string {
	if ms < 1000 {
		return fmt.Sprintf("%d ms", ms)
	}
	return strings.TrimSuffix(strings.TrimSuffix(fmt.Sprintf("%.2f", float64(ms)/1000), "0"), ".0") + " s"
}
