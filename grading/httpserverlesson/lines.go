package httpserverlesson

import (
	"fmt"
	"strings"
	"time"

	"github.com/mcplab/mcplab/lab/event"
	"github.com/mcplab/mcplab/lab/textesc"
)

// recordLine is the line lab run prints for a record of an HTTP server
// lesson: the copy and exchange it is about ("a#3"), an arrow for what
// crossed (-> to the server, <- from it), and the request line and MCP
// headers of a request, the status of an answer, each message, a log
// line or a note; with withTime, the record's time first.
func recordLine(r event.Record, withTime bool) string {
	where := r.Server
	if r.Conn > 0 {
		where = fmt.Sprintf("%s#%d", r.Server, r.Conn)
	}
	text := textesc.Line(strings.TrimRight(r.Text, "\r\n"))
	var line string
	switch r.Kind {
	case event.Post:
		req := strings.TrimSpace(r.Header.Get(":method") + " " + r.Header.Get(":path"))
		line = fmt.Sprintf("%s -> %s [%s] %s", where, req, event.HeaderSummary(r.Header), text)
	case event.Status:
		line = fmt.Sprintf("%s <- %s %s", where, statusText(r.Status), text)
	case event.Answer:
		line = fmt.Sprintf("%s <- %s", where, text)
	case event.Stderr:
		line = fmt.Sprintf("%s stderr %s", where, text)
	default:
		line = fmt.Sprintf("%s -- %s", where, text)
	}
	line = strings.TrimRight(line, " ")
	if withTime {
		return fmt.Sprintf("%6dms %s", r.At.Round(time.Millisecond).Milliseconds(), line)
	}
	return line
}
