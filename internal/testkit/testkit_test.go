package testkit

import (
	"maps"
	"reflect"
	"regexp"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"
)

func TestReadOddInputs(t *testing.T) {
	rows := ReadOddInputs(t, "../../lessons/01-reading-messages/odd-inputs.md")
	for i, r := range rows {
		if r.N != i+1 {
			t.Errorf("row %d is numbered %d; want the rows numbered from 1 in order", i+1, r.N)
		}
		if r.Answer == "" {
			t.Errorf("row %d has no answer", r.N)
		}
	}
}

func TestTableRows(t *testing.T) {
	doc := "# Title\n\n| a | b |\n|---|---|\n| `x` | 1 |\n|  y  |  |\n\nafter\n| z | 9 |\n"
	rows, err := TableRows(doc, "| a | b |")
	want := [][]string{{"`x`", "1"}, {"y", ""}}
	if err != nil || !reflect.DeepEqual(rows, want) {
		t.Errorf("TableRows = %q, %v; want %q", rows, err, want)
	}
	if _, err := TableRows(doc, "| c |"); err == nil || err.Error() != `no table with the header "| c |"` {
		t.Errorf("TableRows of a missing table: %v", err)
	}
}

func TestBufferTakesConcurrentWrites(t *testing.T) {
	var b Buffer
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				b.Write([]byte("x"))
				_ = b.String()
			}
		})
	}
	wg.Wait()
	if got := len(b.String()); got != 800 {
		t.Errorf("%d bytes written, want 800", got)
	}
}

// Concurrently runs every subtest, more of them at once than -parallel
// would (each waits until all width of them have started), and no more
// than width.
func TestConcurrently(t *testing.T) {
	const width = 3
	started := make(chan struct{}, 6)
	all := make(chan struct{})
	var mu sync.Mutex
	running, most, ran := 0, 0, 0
	names := []string{"a", "b", "c", "d", "e", "f"}
	go func() {
		for range width {
			<-started
		}
		close(all)
	}()
	Concurrently(t, width, names, func(t *testing.T, i int) {
		mu.Lock()
		running++
		most = max(most, running)
		ran++
		mu.Unlock()
		started <- struct{}{}
		<-all // the first width wait for each other: they run at once
		mu.Lock()
		running--
		mu.Unlock()
	})
	if ran != len(names) || most != width {
		t.Errorf("ran %d subtests, at most %d at once; want %d, at most %d", ran, most, len(names), width)
	}
}

// TestTODOFixes reads the Fixes lists of small sources: a named TODO, one
// in a Python comment, a part continued further down, and one that fixes
// nothing.
func TestTODOFixes(t *testing.T) {
	named := "\t// TODO(lesson 1): framing.\n\t// Keep a buffer.\n\t// Fixes a.b, c.d and e.f: because\n\t// of chunks.\n\tx := 1\n" +
		"# TODO(lesson 1): parse errors.\n# Fixes errors.parse.\n" +
		"// TODO(lesson 1): style.\n// Nothing to fix.\n"
	got := TODOFixes(named, regexp.MustCompile(`TODO\(lesson 1\): ([a-z][a-z ]*)\.`))
	want := map[string][]string{"framing": {"a.b", "c.d", "e.f"}, "parse errors": {"errors.parse"}, "style": {}}
	if !maps.EqualFunc(got, want, slices.Equal) {
		t.Errorf("named TODOs: %q, want %q", got, want)
	}
	parts := "// TODO(lesson 2), part 1: ids.\n// Fixes ids.exact (the id).\nx\n" +
		"// TODO(lesson 2), part 1, continued: a null id.\n// Fixes ids.null and ids.exact.\n"
	got = TODOFixes(parts, regexp.MustCompile(`TODO\(lesson 2\), part (\d+)\b`))
	if want := []string{"ids.exact", "ids.null"}; len(got) != 1 || !slices.Equal(got["1"], want) {
		t.Errorf("parts: %q, want part 1 %q", got, want)
	}
	if s := ListOrNone(nil); s != "none" {
		t.Errorf("ListOrNone(nil) = %q", s)
	}
}

// TestBusyCores measures the machine's load: a figure between none and
// every core.
func TestBusyCores(t *testing.T) {
	busy, err := busyCores(250 * time.Millisecond)
	if err != nil {
		t.Skipf("no /proc/stat here: %v", err)
	}
	t.Logf("%.2f of %d cores busy", busy, runtime.NumCPU())
	if busy < 0 || busy > float64(runtime.NumCPU())+0.01 {
		t.Errorf("busyCores = %.2f, want 0 to %d", busy, runtime.NumCPU())
	}
}
