package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/mcplab/mcplab/grading"
)

// writeJSON writes our own format: the Result marshalled as it is, with a
// two-space indent and a final newline. The field names are those of
// grading.Result. Strings are the neutralised ones (see clean), so a program
// that decodes the file and prints a field cannot be driven by escape
// sequences; <, > and & are written as they are, not as \u003c.
func writeJSON(w io.Writer, r *grading.Result) error {
	b, err := marshal(r)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// marshal encodes v as indented JSON with a final newline, without HTML
// escaping (these files are read by programs and people, not embedded in
// pages).
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// fieldMax caps each per-test text of the platform formats before any
// fitting is needed.
const fieldMax = 16 << 10

// writeFitJSON writes to w what fitJSON makes of build: a platform's
// results file, within limit bytes.
func writeFitJSON(w io.Writer, limit int, long string, build func(long string, fieldCap int) any) error {
	b, err := fitJSON(limit, long, build)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// fitJSON marshals what build returns and, while the encoding is larger than
// limit bytes, cuts the text first from long (the run's output, given to
// build already clipped to its budget) and then from the per-test fields
// (build clips each to the field cap it is given). Every cut carries a
// visible marker (see clip).
func fitJSON(limit int, long string, build func(long string, fieldCap int) any) ([]byte, error) {
	budget, fieldCap := len(long), fieldMax
	for range 12 {
		b, err := marshal(build(clip(long, budget), fieldCap))
		if err != nil {
			return nil, err
		}
		if len(b) <= limit {
			return b, nil
		}
		over := len(b) - limit
		switch {
		case budget > 0:
			budget = max(0, min(budget, len(long))-over-512)
		case fieldCap > 256:
			fieldCap /= 4
		default:
			return nil, fmt.Errorf("the results are %d bytes, over the limit of %d even with every text cut", len(b), limit)
		}
	}
	return nil, fmt.Errorf("the results do not fit in %d bytes", limit)
}
