package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// This file builds response lines by appending to a byte slice, for servers
// that answer many small requests and for the one shape that Response cannot
// express: an error response with no "id" member at all, which MCP revision
// 2026-07-28 requires where plain JSON-RPC 2.0 writes "id": null.

// AppendResultLine appends the line of a result response: the request's id,
// the result already encoded as JSON, and a newline. id must be a JSON
// string or integer as ParseRequest returns it.
func AppendResultLine(dst []byte, id, result json.RawMessage) []byte {
	dst = append(dst, `{"jsonrpc":"2.0","id":`...)
	dst = append(dst, id...)
	dst = append(dst, `,"result":`...)
	dst = append(dst, result...)
	return append(dst, "}\n"...)
}

// AppendErrorLine appends the line of an error response and a newline. A nil
// or empty id leaves the "id" member out, as MCP 2026-07-28 does when the
// id could not be read; it never writes "id": null.
func AppendErrorLine(dst []byte, id json.RawMessage, e *Error) ([]byte, error) {
	body, err := MarshalCompact(e)
	if err != nil {
		return dst, fmt.Errorf("encoding the error %d: %w", e.Code, err)
	}
	dst = append(dst, `{"jsonrpc":"2.0",`...)
	if len(id) > 0 {
		dst = append(dst, `"id":`...)
		dst = append(dst, id...)
		dst = append(dst, ',')
	}
	dst = append(dst, `"error":`...)
	dst = append(dst, body...)
	return append(dst, "}\n"...), nil
}

// MarshalCompact encodes v as compact JSON with no newline and without
// escaping <, > and &, so text comes back with the characters it was given.
func MarshalCompact(v any) (json.RawMessage, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// HasLine reports, without reading, whether the framer already holds a
// whole line that is not blank, so that Next will return without waiting for
// input. A server that answers a pipelined stream uses it to write its
// answers in one batch, and to flush them before it would wait.
func (f *Framer) HasLine() bool {
	b, _ := f.r.Peek(f.r.Buffered())
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			return false
		}
		if !isBlank(b[:i]) {
			return true
		}
		b = b[i+1:]
	}
	return false
}
