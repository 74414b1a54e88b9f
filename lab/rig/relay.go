package rig

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net"

	"github.com/mcplab/mcplab/lab/pipe"
)

// Relay joins a client's pipes to a stdio server played by a rig: what
// comes in on stdin goes to the socket, and what comes back goes to stdout
// in pieces of at most a page, each written once the client has read the
// one before (see pipe.Pieces). When stdin ends the relay tells the rig,
// and goes on running, like a server that ignores the end of its input,
// until it is killed or the rig closes the connection: a client has to
// end the servers it started, and the rig sees whether it did by whether
// the connection is still there. It ends with ctx too.
//
// Towards the rig, stdin's bytes travel in frames: a 4-byte big-endian
// length, then that many bytes; a frame of length 0 says stdin ended.
func Relay(ctx context.Context, socket string, stdin io.Reader, stdout io.Writer) error {
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", socket)
	if err != nil {
		return fmt.Errorf("reaching the server: %w", err)
	}
	defer c.Close()
	stop := context.AfterFunc(ctx, func() { c.Close() })
	defer stop()
	go func() {
		buf := make([]byte, 64<<10)
		for {
			n, err := stdin.Read(buf[4:])
			if n > 0 {
				binary.BigEndian.PutUint32(buf, uint32(n))
				if _, werr := c.Write(buf[:4+n]); werr != nil {
					return
				}
			}
			if err != nil {
				c.Write([]byte{0, 0, 0, 0})
				return
			}
		}
	}()
	buf := make([]byte, 64<<10)
	if _, err := io.CopyBuffer(&pipe.Pieces{W: stdout}, onlyReader{c}, buf); err != nil && ctx.Err() == nil {
		return fmt.Errorf("passing the server's answers on: %w", err)
	}
	return nil
}

// onlyReader hides every method but Read, so that io.CopyBuffer uses the
// buffer instead of a WriterTo that would bypass the pieces.
type onlyReader struct{ r io.Reader }

func (o onlyReader) Read(p []byte) (int, error) { return o.r.Read(p) }
