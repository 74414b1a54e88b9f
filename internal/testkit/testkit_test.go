package testkit

import (
	"reflect"
	"sync"
	"testing"
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
