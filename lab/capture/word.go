package capture

import (
	"encoding/json"
	"fmt"

	"github.com/mcplab/mcplab/lab/wire"
)

// Word is how a session file and a session's notes name a record's kind:
// "client", "server", "stderr" or "lab". A kind a session never holds is
// named as it is.
func Word(k Who) string {
	switch k {
	case Client:
		return "client"
	case Server:
		return "server"
	case Stderr:
		return "stderr"
	case Lab:
		return "lab"
	}
	return string(k)
}

// kindOf is the kind a session file's word names, and whether it names
// one.
func kindOf(word string) (Who, bool) {
	for _, k := range []Who{Client, Server, Stderr, Lab} {
		if Word(k) == word {
			return k, true
		}
	}
	return "", false
}

// fileRecord is a Record as a session file holds it: From is the word.
type fileRecord struct {
	Seq     int             `json:"seq"`
	Ms      float64         `json:"ms"`
	From    string          `json:"from"`
	Message json.RawMessage `json:"message,omitempty"`
	Text    *string         `json:"text,omitempty"`
}

// MarshalJSON writes the record as a session file holds it, with "from"
// the word for who wrote the line ("client", not "send").
func (r Record) MarshalJSON() ([]byte, error) {
	return wire.MarshalCompact(fileRecord{r.Seq, r.Ms, Word(r.From), r.Message, r.Text})
}

// UnmarshalJSON reads a record as a session file holds it; a "from" that
// names no one of a session is an error.
func (r *Record) UnmarshalJSON(b []byte) error {
	var f fileRecord
	if err := json.Unmarshal(b, &f); err != nil {
		return err
	}
	from, ok := kindOf(f.From)
	if !ok {
		return fmt.Errorf("unknown sender %q", f.From)
	}
	*r = Record{Seq: f.Seq, Ms: f.Ms, From: from, Message: f.Message, Text: f.Text}
	return nil
}
