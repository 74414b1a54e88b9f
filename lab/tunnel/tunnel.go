// Package tunnel carries TCP connections from the grader to a server that
// listens in a sandbox's own network (its loopback, which the grader's
// network does not reach), over a Unix socket the grader owns.
//
// The grader listens (Listen) on a socket in a folder of its own that the
// sandboxed program can reach but not change; the bridge in the sandbox
// (Open and Bridge.Serve, run by `lab relay --tunnel`) dials it, so the grader never
// connects to a path a sandboxed program made (a link there could lead it
// anywhere). The bridge's first connection is its control connection. For
// each connection the grader wants (Listener.Dial), it writes an ask
// there, numbered; the bridge then connects to the server inside the
// sandbox, dials the socket again, names the ask it answers, says in one
// line whether the server took the connection, and, if it did, forwards
// bytes both ways until either side closes. The number matches each
// answer to its ask: an answer that comes after its Dial gave up (a
// loaded machine) is closed, never handed to a later Dial.
//
// What crosses, with N an ask's number (8 bytes, big-endian):
//
//	C            the bridge's control connection (only the first is taken)
//	c N          on the control connection: the grader asks for connection N
//	D N          a data connection answering ask N, then its status line:
//	y\n          the server accepted the connection: bytes follow
//	n REASON\n   it did not (nothing listens there yet, say): closed
package tunnel

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"time"
)

// The tags and statuses of the protocol.
const (
	tagControl = 'C'
	tagData    = 'D'
	askByte    = 'c'
	statusOK   = 'y'
	statusNo   = 'n'
)

// maxReason bounds the status line of a connection the server refused.
const maxReason = 512

// helloWithin bounds how long a connection to the grader's socket may
// take to say what it is: one that says nothing is closed, so a stalled
// or hostile connection never holds a slot.
const helloWithin = 30 * time.Second

// maxPending bounds the connections to the grader's socket that have not
// yet said what they are, and the asks waiting for their connection; a
// data connection no ask waits for is closed at once: a program that
// floods the socket pins no memory.
const maxPending = 32

// idLen is the length of an ask's number on the wire.
const idLen = 8

// ErrRefused is wrapped by Dial's error when the bridge is there but the
// server in the sandbox did not take the connection.
var ErrRefused = errors.New("the server in the sandbox did not take the connection")

// ErrNoBridge is wrapped by Dial's error when no bridge has connected, or
// its control connection is gone.
var ErrNoBridge = errors.New("no bridge is connected")

// Listener is the grader's end of a tunnel.
type Listener struct {
	ln      *net.UnixListener
	path    string
	control chan net.Conn // holds the bridge's control connection once it came
	pending chan struct{} // a slot per connection that has not said what it is
	mu      sync.Mutex
	waiting map[uint64]chan net.Conn // the asks whose connection has not come
	next    uint64                   // the number of the next ask
	unsaid  map[net.Conn]bool        // connections that have not said what they are
	ctrl    net.Conn
	closed  chan struct{}
	once    sync.Once
	wg      sync.WaitGroup
}

// Listen makes the grader's socket at path (which must not exist), and
// takes connections there until Close.
func Listen(path string) (*Listener, error) {
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("making the tunnel's socket: %w", err)
	}
	ln.SetUnlinkOnClose(true)
	l := &Listener{ln: ln, path: path, control: make(chan net.Conn, 1), waiting: map[uint64]chan net.Conn{}, unsaid: map[net.Conn]bool{},
		pending: make(chan struct{}, maxPending), closed: make(chan struct{})}
	l.wg.Add(1)
	go l.accept()
	return l, nil
}

// Path is the socket's path, which the bridge is given.
func (l *Listener) Path() string { return l.path }

func (l *Listener) accept() {
	defer l.wg.Done()
	for {
		c, err := l.ln.Accept()
		if err != nil {
			return
		}
		select {
		case l.pending <- struct{}{}:
		default:
			c.Close() // too many that have not said what they are
			continue
		}
		l.mu.Lock()
		if l.isClosed() {
			l.mu.Unlock()
			c.Close()
			<-l.pending
			return
		}
		l.unsaid[c] = true
		l.mu.Unlock()
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			defer func() { <-l.pending }()
			l.hello(c)
		}()
	}
}

// hello reads what a new connection is and files it.
func (l *Listener) hello(c net.Conn) {
	c.SetReadDeadline(time.Now().Add(helloWithin))
	fail := func() {
		l.mu.Lock()
		delete(l.unsaid, c)
		l.mu.Unlock()
		c.Close()
	}
	var tag [1]byte
	if _, err := io.ReadFull(c, tag[:]); err != nil {
		fail()
		return
	}
	var id [idLen]byte
	if tag[0] == tagData {
		if _, err := io.ReadFull(c, id[:]); err != nil {
			fail()
			return
		}
	}
	c.SetReadDeadline(time.Time{})
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.unsaid, c)
	if l.isClosed() {
		c.Close()
		return
	}
	switch tag[0] {
	case tagControl:
		if l.ctrl == nil {
			l.ctrl = c
			l.control <- c
			return
		}
	case tagData:
		n := binary.BigEndian.Uint64(id[:])
		if ch := l.waiting[n]; ch != nil {
			delete(l.waiting, n)
			ch <- c // room: each ask's channel takes one
			return
		}
	}
	c.Close()
}

// Dial asks the bridge for a new connection to the server in the sandbox
// and returns it once the server has taken it. It waits for the bridge to
// connect, within ctx. The error wraps ErrRefused when the server did not
// take the connection, and ErrNoBridge when the bridge is gone.
func (l *Listener) Dial(ctx context.Context) (net.Conn, error) {
	var ctrl net.Conn
	select {
	case ctrl = <-l.control:
		l.control <- ctrl
	case <-ctx.Done():
		return nil, fmt.Errorf("%w: %w", ErrNoBridge, ctx.Err())
	case <-l.closed:
		return nil, fmt.Errorf("%w: the tunnel is closed", ErrNoBridge)
	}
	l.mu.Lock()
	if len(l.waiting) >= maxPending {
		l.mu.Unlock()
		return nil, fmt.Errorf("more than %d connections asked for at once", maxPending)
	}
	n := l.next
	l.next++
	ch := make(chan net.Conn, 1)
	l.waiting[n] = ch
	ask := make([]byte, 1+idLen)
	ask[0] = askByte
	binary.BigEndian.PutUint64(ask[1:], n)
	_, err := ctrl.Write(ask)
	l.mu.Unlock()
	// giveUp forgets the ask; a connection that came for it meanwhile is
	// closed, never handed to another Dial.
	giveUp := func() {
		l.mu.Lock()
		delete(l.waiting, n)
		l.mu.Unlock()
		select {
		case c := <-ch:
			c.Close()
		default:
		}
	}
	if err != nil {
		giveUp()
		return nil, fmt.Errorf("%w: %v", ErrNoBridge, err)
	}
	var c net.Conn
	select {
	case c = <-ch:
	case <-ctx.Done():
		giveUp()
		return nil, ctx.Err()
	case <-l.closed:
		giveUp()
		return nil, fmt.Errorf("%w: the tunnel is closed", ErrNoBridge)
	}
	stop := context.AfterFunc(ctx, func() { c.Close() })
	status, err := readStatus(c)
	if !stop() {
		c.Close()
		return nil, ctx.Err()
	}
	if err != nil {
		c.Close()
		return nil, err
	}
	if status != "" {
		c.Close()
		return nil, fmt.Errorf("%w: %s", ErrRefused, status)
	}
	return c, nil
}

// readStatus reads a data connection's status line a byte at a time (so
// nothing after it is taken from the connection): "" when the server took
// it, else the reason it did not.
func readStatus(c net.Conn) (string, error) {
	var b [1]byte
	if _, err := io.ReadFull(c, b[:]); err != nil {
		return "", fmt.Errorf("reading the bridge's status: %w", err)
	}
	switch b[0] {
	case statusOK:
		if _, err := io.ReadFull(c, b[:]); err != nil || b[0] != '\n' {
			return "", errors.New("the bridge sent a broken status")
		}
		return "", nil
	case statusNo:
		var reason strings.Builder
		for reason.Len() < maxReason {
			if _, err := io.ReadFull(c, b[:]); err != nil || b[0] == '\n' {
				break
			}
			reason.WriteByte(b[0])
		}
		return strings.TrimSpace(reason.String()), nil
	}
	return "", fmt.Errorf("the bridge sent status %q", b[0])
}

// isClosed reports whether Close has begun.
func (l *Listener) isClosed() bool {
	select {
	case <-l.closed:
		return true
	default:
		return false
	}
}

// Close stops taking connections and closes the control connection (the
// bridge then stops asking); connections already handed out are the
// caller's.
func (l *Listener) Close() error {
	var err error
	l.once.Do(func() {
		close(l.closed)
		err = l.ln.Close()
		l.mu.Lock()
		if l.ctrl != nil {
			l.ctrl.Close()
		}
		// A connection that has said nothing yet is closed, so a silent
		// stranger never holds Close up for its hello's deadline.
		for c := range l.unsaid {
			c.Close()
		}
		l.mu.Unlock()
		l.wg.Wait()
		l.mu.Lock()
		for n, ch := range l.waiting {
			delete(l.waiting, n)
			select {
			case c := <-ch:
				c.Close()
			default:
			}
		}
		l.mu.Unlock()
	})
	return err
}

// dialWithin bounds the bridge's connection to the server in the sandbox.
const dialWithin = 5 * time.Second

// Bridge is the bridge's end of a tunnel: its control connection to the
// grader's socket.
type Bridge struct {
	socket string
	ctrl   net.Conn
}

// Open connects to the grader's socket as the bridge. Open it before the
// program in the sandbox starts, so that the control connection is the
// first the grader takes.
func Open(ctx context.Context, socket string) (*Bridge, error) {
	var d net.Dialer
	ctrl, err := d.DialContext(ctx, "unix", socket)
	if err != nil {
		return nil, fmt.Errorf("reaching the grader's tunnel socket: %w", err)
	}
	if _, err := ctrl.Write([]byte{tagControl}); err != nil {
		ctrl.Close()
		return nil, fmt.Errorf("reaching the grader's tunnel socket: %w", err)
	}
	return &Bridge{socket: socket, ctrl: ctrl}, nil
}

// Serve forwards each connection the grader asks for to addr (the
// server's loopback address in the sandbox), over a new connection to the
// grader's socket. It returns when ctx ends or the grader closes the
// control connection; the connections it forwards end with it.
func (b *Bridge) Serve(ctx context.Context, addr string) error {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer func() {
		cancel()
		wg.Wait()
	}()
	context.AfterFunc(ctx, func() { b.ctrl.Close() })
	r := bufio.NewReader(b.ctrl)
	for {
		ask := make([]byte, 1+idLen)
		if _, err := io.ReadFull(r, ask); err != nil {
			if ctx.Err() != nil || errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) {
				return nil
			}
			return fmt.Errorf("reading the grader's tunnel socket: %w", err)
		}
		if ask[0] != askByte {
			return fmt.Errorf("the grader's tunnel socket sent %q", ask[0])
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			forwardOne(ctx, b.socket, addr, ask[1:])
		}()
	}
}

// forwardOne makes one data connection, answering the ask numbered id:
// to addr, then to the grader.
func forwardOne(ctx context.Context, socket, addr string, id []byte) {
	var d net.Dialer
	up, err := d.DialContext(ctx, "unix", socket)
	if err != nil {
		return
	}
	defer up.Close()
	dctx, cancel := context.WithTimeout(ctx, dialWithin)
	down, err := d.DialContext(dctx, "tcp", addr)
	cancel()
	if err != nil {
		reason := strings.ReplaceAll(err.Error(), "\n", " ")
		if len(reason) > maxReason-1 {
			reason = reason[:maxReason-1]
		}
		up.Write(append(append([]byte{tagData}, id...), []byte(string(statusNo)+" "+reason+"\n")...))
		return
	}
	defer down.Close()
	if _, err := up.Write(append(append([]byte{tagData}, id...), statusOK, '\n')); err != nil {
		return
	}
	stop := context.AfterFunc(ctx, func() { up.Close(); down.Close() })
	defer stop()
	done := make(chan struct{}, 2)
	pipe := func(dst, src net.Conn) {
		io.Copy(dst, src)
		closeWrite(dst)
		done <- struct{}{}
	}
	go pipe(down, up)
	go pipe(up, down)
	<-done
	<-done
}

// closeWrite half-closes c where it can, so the other side reads the end
// of what was sent and may still answer.
func closeWrite(c net.Conn) {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		cw.CloseWrite()
		return
	}
	c.Close()
}

// Chown gives the socket to the program's user (uid, gid), so that the
// bridge, which runs as that user, may connect; -1 leaves it as it is.
func (l *Listener) Chown(uid, gid int) error {
	if uid < 0 {
		return nil
	}
	if err := os.Lchown(l.path, uid, gid); err != nil {
		return fmt.Errorf("giving the tunnel's socket to uid %d: %w", uid, err)
	}
	return nil
}
