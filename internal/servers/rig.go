package servers

import (
	"context"
	"io"
	"io/fs"
	"net/http"

	"github.com/mcplab/mcplab/lab/clientplay"
)

// rigMaxLine is the longest message line a server the rig plays accepts.
const rigMaxLine = 1 << 20

// ForRig finds the server of a name as a client scenario's rig plays it
// (see clientplay.Servers): in the player's own process, serving the
// lesson's folder, its log discarded.
func ForRig(name string) (clientplay.Server, error) {
	ref, err := Lookup(name)
	if err != nil {
		return clientplay.Server{}, err
	}
	s := clientplay.Server{Path: ref.Path, Addr: ref.Addr}
	if ref.Tools != nil {
		s.Tools = ref.Tools()
	}
	if ref.HTTP != nil {
		handler := ref.HTTP
		s.HTTP = func(lesson fs.FS) http.Handler {
			return handler(io.Discard, Options{MaxLine: rigMaxLine, Lesson: lesson})
		}
	}
	if ref.Serve != nil {
		serve := ref.Serve
		s.Stdio = func(ctx context.Context, lesson fs.FS, in io.Reader, out, log io.Writer) error {
			return serve(ctx, Stdio{In: in, Out: out, Err: log}, Options{MaxLine: rigMaxLine, Lesson: lesson})
		}
	}
	return s, nil
}
