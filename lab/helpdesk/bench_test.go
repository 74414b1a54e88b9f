package helpdesk_test

import (
	"context"
	"io"
	"os"
	"strconv"
	"testing"

	"github.com/mcplab/mcplab/lab/helpdesk"
)

// BenchmarkPipelined answers a pipelined stream of server/discover and
// tools/call get_ticket requests in-process, the stream the interop
// benchmark sends to each server's process. It is for profiling the
// helpdesk's own path; the comparison with the SDKs lives in interop.
func BenchmarkPipelined(b *testing.B) {
	data, err := helpdesk.LoadData(os.DirFS(lessonData))
	if err != nil {
		b.Fatal(err)
	}
	const n = 10000
	var payload []byte
	for id := 1; id <= n; id++ {
		payload = append(payload, `{"jsonrpc":"2.0","id":`...)
		payload = strconv.AppendInt(payload, int64(id), 10)
		if id%2 == 1 {
			payload = append(payload, `,"method":"server/discover","params":{`+meta+`}}`+"\n"...)
		} else {
			payload = append(payload, `,"method":"tools/call","params":{"name":"get_ticket","arguments":{"ticket_id":"2318"},`+meta+`}}`+"\n"...)
		}
	}
	srv := helpdesk.New(data)
	b.SetBytes(int64(len(payload)))
	b.ReportAllocs()
	for b.Loop() {
		if err := srv.ServeStdio(context.Background(), bytesReader(payload), io.Discard); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "req/s")
}

type sliceReader struct{ b []byte }

func bytesReader(b []byte) *sliceReader { return &sliceReader{b} }

func (r *sliceReader) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		return 0, io.EOF
	}
	n := copy(p, r.b)
	r.b = r.b[n:]
	return n, nil
}
