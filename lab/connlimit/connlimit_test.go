package connlimit

import (
	"errors"
	"net"
	"testing"
)

// fakeListener hands out the connections of conns, then the error err.
type fakeListener struct {
	net.Listener
	conns chan net.Conn
	err   error
}

func (l *fakeListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	default:
		return nil, l.err
	}
}

func TestAcceptTakesAndGivesBackSlots(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	ln := &fakeListener{conns: make(chan net.Conn, 1), err: errors.New("no more")}
	ln.conns <- a
	slots := make(chan struct{}, 1)
	done := make(chan struct{})

	c, free, err := Accept(ln, slots, done)
	if err != nil || c != a {
		t.Fatalf("Accept = %v, %v; want the queued connection", c, err)
	}
	if len(slots) != 1 {
		t.Fatalf("after an accept, %d slots are taken; want 1", len(slots))
	}
	free()
	if len(slots) != 0 {
		t.Fatalf("after free, %d slots are taken; want 0", len(slots))
	}

	if _, _, err := Accept(ln, slots, done); err == nil || err.Error() != "no more" {
		t.Fatalf("Accept on a failing listener = %v; want its error", err)
	}
	if len(slots) != 0 {
		t.Fatalf("a failed accept kept its slot: %d taken", len(slots))
	}

	slots <- struct{}{} // the bound is reached
	close(done)
	if _, _, err := Accept(ln, slots, done); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("Accept with no free slot after done = %v; want net.ErrClosed", err)
	}
}
