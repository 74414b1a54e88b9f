package mcpserver

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"

	"github.com/mcplab/mcplab/lab/wire"
)

// This file is the core's fast path for the lines almost every client
// sends: compact JSON objects with plain keys. It reads a line in one pass,
// without allocating for the members it skips. Whenever a line is anything
// else (white space between tokens, escaped keys, duplicate members, a
// malformed value), the fast path steps aside and the general code (wire.
// ParseRequest, mcp.ReadRequestMeta) decides, so both paths always give the
// same answer: a fuzz test holds them to it.

// member is one member of a JSON object: its key (without quotes, as
// written: the fast path takes only keys without escapes) and its value.
type member struct {
	key, value []byte
}

// objectMembers splits a compact JSON object into its members, or reports
// false for anything it does not take: not an object, white space between
// tokens, a key with an escape, a key that appears twice, invalid JSON.
// At most max members are taken; more is a false.
func objectMembers(b []byte, into []member) ([]member, bool) {
	if len(b) < 2 || b[0] != '{' || b[len(b)-1] != '}' {
		return nil, false
	}
	out := into[:0]
	i := 1
	if b[i] == '}' {
		return out, i == len(b)-1
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return nil, false
		}
		end, plain := scanString(b, i)
		if end < 0 || !plain {
			return nil, false
		}
		key := b[i+1 : end-1]
		for _, m := range out {
			if bytes.Equal(m.key, key) {
				return nil, false
			}
		}
		if end >= len(b) || b[end] != ':' {
			return nil, false
		}
		vstart := end + 1
		vend := scanValue(b, vstart, 0)
		if vend < 0 {
			return nil, false
		}
		if len(out) == cap(out) {
			return nil, false
		}
		out = append(out, member{key: key, value: b[vstart:vend]})
		if vend >= len(b) {
			return nil, false
		}
		switch b[vend] {
		case ',':
			i = vend + 1
		case '}':
			return out, vend == len(b)-1
		default:
			return nil, false
		}
	}
}

func get(ms []member, key string) ([]byte, bool) {
	for _, m := range ms {
		if string(m.key) == key {
			return m.value, true
		}
	}
	return nil, false
}

// maxDepth bounds the nesting the fast path follows; deeper values go to
// the general path.
const maxDepth = 64

// scanValue returns the end of the compact JSON value that starts at i, or
// -1 when there is none.
func scanValue(b []byte, i, depth int) int {
	if i >= len(b) || depth > maxDepth {
		return -1
	}
	switch c := b[i]; {
	case c == '"':
		end, _ := scanString(b, i)
		return end
	case c == '{':
		i++
		if i < len(b) && b[i] == '}' {
			return i + 1
		}
		for {
			if i >= len(b) || b[i] != '"' {
				return -1
			}
			end, _ := scanString(b, i)
			if end < 0 || end >= len(b) || b[end] != ':' {
				return -1
			}
			if i = scanValue(b, end+1, depth+1); i < 0 || i >= len(b) {
				return -1
			}
			switch b[i] {
			case ',':
				i++
			case '}':
				return i + 1
			default:
				return -1
			}
		}
	case c == '[':
		i++
		if i < len(b) && b[i] == ']' {
			return i + 1
		}
		for {
			if i = scanValue(b, i, depth+1); i < 0 || i >= len(b) {
				return -1
			}
			switch b[i] {
			case ',':
				i++
			case ']':
				return i + 1
			default:
				return -1
			}
		}
	case c == 't':
		return literal(b, i, "true")
	case c == 'f':
		return literal(b, i, "false")
	case c == 'n':
		return literal(b, i, "null")
	case c == '-' || (c >= '0' && c <= '9'):
		return scanNumber(b, i)
	}
	return -1
}

func literal(b []byte, i int, word string) int {
	if len(b)-i >= len(word) && string(b[i:i+len(word)]) == word {
		return i + len(word)
	}
	return -1
}

// scanNumber follows the JSON number grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func scanNumber(b []byte, i int) int {
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		i = scanDigits(b, i)
	default:
		return -1
	}
	if i < len(b) && b[i] == '.' {
		if i = scanDigits(b, i+1); i < 0 {
			return -1
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i = scanDigits(b, i); i < 0 {
			return -1
		}
	}
	return i
}

// scanDigits returns the end of the run of digits that starts at i, or -1
// when no digit stands there.
func scanDigits(b []byte, i int) int {
	start := i
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	if i == start {
		return -1
	}
	return i
}

// scanString returns the end of the string that starts at i (just past its
// closing quote), or -1, and whether it has no escapes. The caller has
// checked that the whole line is valid UTF-8.
func scanString(b []byte, i int) (int, bool) {
	plain := true
	for i++; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			return i + 1, plain
		case c < 0x20:
			return -1, false
		case c == '\\':
			plain = false
			i++
			if i >= len(b) {
				return -1, false
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if len(b)-i < 5 {
					return -1, false
				}
				for _, h := range b[i+1 : i+5] {
					if !isHex(h) {
						return -1, false
					}
				}
				i += 4
			default:
				return -1, false
			}
		}
	}
	return -1, false
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// plainString returns the contents of a JSON string value without escapes.
func plainString(v []byte) (string, bool) {
	if len(v) < 2 || v[0] != '"' {
		return "", false
	}
	end, plain := scanString(v, 0)
	if end != len(v) || !plain {
		return "", false
	}
	return string(v[1 : len(v)-1]), true
}

// fastRequest reads a line that is a compact request or notification. It
// returns false for every line it leaves to wire.ParseRequest, and
// otherwise the message ParseRequest would return, with the line's
// members.
//
// The message's slices point into a copy of the line, never into the line
// itself, which the framer reuses while a tool call may still be running.
func fastRequest(line []byte, into []member) (*wire.Message, []member, bool) {
	if !utf8.Valid(line) {
		return nil, nil, false
	}
	line = bytes.Clone(line)
	ms, ok := objectMembers(line, into)
	if !ok {
		return nil, nil, false
	}
	if v, _ := get(ms, "jsonrpc"); string(v) != `"2.0"` {
		return nil, nil, false
	}
	rawMethod, ok := get(ms, "method")
	if !ok {
		return nil, nil, false
	}
	method, ok := plainString(rawMethod)
	if !ok {
		return nil, nil, false
	}
	m := &wire.Message{Kind: wire.KindNotification, Method: method}
	if id, ok := get(ms, "id"); ok {
		if !wire.UsableID(id) {
			return nil, nil, false
		}
		m.Kind, m.ID = wire.KindRequest, id
	}
	if p, ok := get(ms, "params"); ok {
		if p[0] != '{' {
			return nil, nil, false
		}
		m.Params = p
	}
	return m, ms, true
}

// fields are the members of a request's params the core reads.
type fields struct {
	meta, name, arguments, cursor []byte
	hasMeta, hasName, hasCursor   bool
}

// paramFields reads the members of params the core needs. ok is false when
// params are not a compact object the fast path takes.
func paramFields(params []byte) (f fields, ok bool) {
	if len(params) == 0 {
		return f, true
	}
	var buf [8]member
	ms, ok := objectMembers(params, buf[:])
	if !ok {
		return f, false
	}
	f.meta, f.hasMeta = get(ms, "_meta")
	f.name, f.hasName = get(ms, "name")
	f.arguments, _ = get(ms, "arguments")
	f.cursor, f.hasCursor = get(ms, "cursor")
	return f, true
}

// slowFields reads the same members with encoding/json, for params the
// fast path does not take.
func slowFields(params []byte) (fields, bool) {
	var f fields
	if len(params) == 0 {
		return f, true
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(params, &obj) != nil {
		return f, false
	}
	f.meta, f.hasMeta = obj["_meta"]
	f.name, f.hasName = obj["name"]
	f.arguments = obj["arguments"]
	f.cursor, f.hasCursor = obj["cursor"]
	return f, true
}

// Argument returns the member name of a tool's arguments object (as the
// core hands it to a ToolHandler), matching the key exactly, and whether it
// is there. Arguments that are absent or null have no members.
func Argument(arguments json.RawMessage, name string) (json.RawMessage, bool) {
	var buf [16]member
	if ms, ok := objectMembers(arguments, buf[:]); ok {
		v, ok := get(ms, name)
		return v, ok
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(arguments, &obj) != nil {
		return nil, false
	}
	v, ok := obj[name]
	return v, ok
}
