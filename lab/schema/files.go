package schema

import (
	"bytes"
	"fmt"
	"path"
	"strings"

	"github.com/mcplab/mcplab/lab/capture"
)

// InvalidSuffix marks a wire file of deliberate mistakes: it passes only if
// every one of its messages fails the schema.
const InvalidSuffix = ".invalid.jsonl"

// LineReport is the verdict on one message of a file.
type LineReport struct {
	// Line is the line number in the file (1 for a .json file).
	Line int
	// From is who sent the message, in a recorded session.
	From Sender
	Verdict
	// Note explains a verdict that does not count, such as a mistake a
	// session's client made on purpose.
	Note string
}

// FileReport is the verdict on one file.
type FileReport struct {
	Path string
	// Kind is "wire file", "invalid wire file", "recorded session" or
	// "example of DEF".
	Kind  string
	Lines []LineReport
	// Err is set when the file could not be read as its kind at all.
	Err error
}

// OK reports whether the file passes: every message meets the schema, or
// for an invalid wire file, every message fails it.
func (r *FileReport) OK() bool {
	if r.Err != nil || len(r.Lines) == 0 {
		return false
	}
	for _, l := range r.Lines {
		if l.counts() {
			return false
		}
	}
	return true
}

// counts reports whether a line makes its file fail.
func (l LineReport) counts() bool {
	if l.Note != "" {
		return false
	}
	if l.Kind() == "must fail" {
		return l.Err == nil
	}
	return l.Err != nil
}

// Kind is "must fail" for a line of an invalid wire file.
func (l LineReport) Kind() string {
	if strings.HasPrefix(l.Def, mustFail) {
		return "must fail"
	}
	return ""
}

const mustFail = "must fail: "

// CheckFile checks the file at name (used for its suffix and folder) that
// holds data:
//   - NAME.invalid.jsonl: one message a line, each of which must fail;
//   - a .jsonl file of `lab capture` records: a recorded session, where
//     every message the server wrote must pass and the client's mistakes
//     (sent on purpose to show the answer) are noted;
//   - any other .jsonl: one message a line, each of which must pass;
//   - a .json file in a folder named after a schema definition (as the
//     official examples are kept): that definition; else one message.
func (v *Validator) CheckFile(name string, data []byte) *FileReport {
	r := &FileReport{Path: name}
	switch {
	case strings.HasSuffix(name, InvalidSuffix):
		r.Kind = "invalid wire file"
		r.wire(v, data, true)
	case strings.HasSuffix(name, ".jsonl") && capture.LooksLikeSession(data):
		r.Kind = "recorded session"
		r.session(v, data)
	case strings.HasSuffix(name, ".jsonl"):
		r.Kind = "wire file"
		r.wire(v, data, false)
	case strings.HasSuffix(name, ".json"):
		def := path.Base(path.Dir(strings.ReplaceAll(name, "\\", "/")))
		if v.HasDef(def) {
			r.Kind = "example of " + def
			r.Lines = []LineReport{{Line: 1, Verdict: Verdict{Def: def, Err: v.CheckDef(def, data)}}}
		} else {
			r.Kind = "message"
			r.Lines = []LineReport{{Line: 1, Verdict: v.NewSession().Check(FromUnknown, data)}}
		}
	default:
		r.Err = fmt.Errorf("not a file lab validate reads: it takes .jsonl wire files and sessions, and .json messages")
	}
	if r.Err == nil && len(r.Lines) == 0 {
		r.Err = fmt.Errorf("it holds no message")
	}
	return r
}

func (r *FileReport) wire(v *Validator, data []byte, invalid bool) {
	// Each line of an invalid file is checked on its own: one mistake must
	// not change how the next line is judged.
	s := v.NewSession()
	for i, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if invalid {
			s = v.NewSession()
		}
		vd := s.Check(FromUnknown, line)
		if invalid {
			vd.Def = mustFail + vd.Def
		}
		r.Lines = append(r.Lines, LineReport{Line: i + 1, Verdict: vd})
	}
}

func (r *FileReport) session(v *Validator, data []byte) {
	recs, err := capture.ReadJSONL(data)
	if err != nil {
		r.Err = err
		return
	}
	s := v.NewSession()
	line := 0
	for _, rec := range recs {
		line++
		if rec.From != capture.Client && rec.From != capture.Server {
			continue
		}
		from := FromClient
		if rec.From == capture.Server {
			from = FromServer
		}
		var vd Verdict
		if rec.Message != nil {
			vd = s.Check(from, rec.Message)
		} else {
			vd = Verdict{Def: "JSONRPCMessage", Err: fmt.Errorf("the line %q is not JSON", rec.Line())}
		}
		lr := LineReport{Line: line, From: from, Verdict: vd}
		if vd.Err != nil && rec.From == capture.Client {
			lr.Note = "the client sent this mistake on purpose, to record the server's answer"
		}
		r.Lines = append(r.Lines, lr)
	}
}
