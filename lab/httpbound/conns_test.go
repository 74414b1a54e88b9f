package httpbound

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

func (l *fakeListener) Close() error { return nil }

// Two listeners share one bound: each accepted connection takes a slot
// and its Close gives it back, once; a failed accept keeps none.
func TestConnsTakeAndGiveBackSlots(t *testing.T) {
	a, b := net.Pipe()
	defer b.Close()
	one := &fakeListener{conns: make(chan net.Conn, 1), err: errors.New("no more")}
	one.conns <- a
	two := &fakeListener{conns: make(chan net.Conn, 1), err: errors.New("none")}
	conns := NewConns(2)
	l1, l2 := conns.Listener(one, nil), conns.Listener(two, nil)

	c, err := l1.Accept()
	if err != nil {
		t.Fatalf("Accept = %v; want the queued connection", err)
	}
	if conns.Open() != 1 {
		t.Fatalf("after an accept, %d slots are taken; want 1", conns.Open())
	}
	c.Close()
	c.Close()
	if conns.Open() != 0 {
		t.Fatalf("after Close twice, %d slots are taken; want 0", conns.Open())
	}
	if _, err := l2.Accept(); err == nil || err.Error() != "none" {
		t.Fatalf("Accept on a failing listener = %v; want its error", err)
	}
	if conns.Open() != 0 {
		t.Fatalf("a failed accept kept its slot: %d taken", conns.Open())
	}
}

// With every slot taken, a wait for one ends when done is closed, or when
// the listener is closed.
func TestConnsWaitEnds(t *testing.T) {
	conns := NewConns(1)
	conns.slots <- struct{}{} // the bound is reached
	done := make(chan struct{})
	close(done)
	if _, err := conns.Listener(&fakeListener{}, done).Accept(); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("Accept with no free slot after done = %v; want net.ErrClosed", err)
	}
	l := conns.Listener(&fakeListener{}, nil)
	l.Close()
	if _, err := l.Accept(); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("Accept with no free slot on a closed listener = %v; want net.ErrClosed", err)
	}
}

// A connection keeps the half-close net/http uses.
func TestConnsCloseWrite(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	l := NewConns(1).Listener(ln, nil)
	d, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	c, err := l.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	cw, ok := c.(interface{ CloseWrite() error })
	if !ok {
		t.Fatalf("%T has no CloseWrite", c)
	}
	if err := cw.CloseWrite(); err != nil {
		t.Fatal(err)
	}
	if n, err := d.Read(make([]byte, 1)); n != 0 || err == nil {
		t.Fatalf("after CloseWrite the peer read %d bytes, %v; want the end", n, err)
	}
}
