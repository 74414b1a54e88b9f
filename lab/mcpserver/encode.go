package mcpserver

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/mcplab/mcplab/lab/mcp"
	"github.com/mcplab/mcplab/lab/wire"
)

// appendToolResult encodes a tool's result as wire.MarshalCompact would
// encode the struct toolResult builds, byte for byte, without reflection on
// the hot path. meta is the result's _meta (nil on a legacy request, which
// also leaves out resultType). A structuredContent that is already JSON
// (json.RawMessage) is copied after a validity check; any other value goes
// through encoding/json.
func appendToolResult(dst []byte, res *mcp.CallToolResult, meta json.RawMessage) ([]byte, error) {
	dst = append(dst, '{')
	if meta != nil {
		dst = append(dst, `"resultType":"complete",`...)
	}
	dst = append(dst, `"content":`...)
	if res.Content == nil {
		dst = append(dst, "null"...)
	} else {
		dst = append(dst, '[')
		for i, c := range res.Content {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, `{"type":`...)
			dst = appendString(dst, c.Type)
			dst = append(dst, `,"text":`...)
			dst = appendString(dst, c.Text)
			dst = append(dst, '}')
		}
		dst = append(dst, ']')
	}
	if res.StructuredContent != nil {
		dst = append(dst, `,"structuredContent":`...)
		switch v := res.StructuredContent.(type) {
		case json.RawMessage:
			if scanValue(v, 0, 0) == len(v) {
				dst = append(dst, v...) // valid and already compact: encoding/json would copy it as is
				break
			}
			if !json.Valid(v) {
				return nil, fmt.Errorf("structuredContent is not valid JSON")
			}
			b, err := wire.MarshalCompact(v) // compacts, as encoding/json does
			if err != nil {
				return nil, err
			}
			dst = append(dst, b...)
		default:
			b, err := wire.MarshalCompact(v)
			if err != nil {
				return nil, fmt.Errorf("encoding structuredContent: %w", err)
			}
			dst = append(dst, b...)
		}
	}
	if res.IsError {
		dst = append(dst, `,"isError":true`...)
	}
	if meta != nil {
		dst = append(dst, `,"_meta":`...)
		dst = append(dst, meta...)
	}
	return append(dst, '}'), nil
}

const hexDigits = "0123456789abcdef"

// appendString quotes s as encoding/json does with HTML escaping off:
// control characters escaped, invalid UTF-8 replaced by \ufffd, and U+2028
// and U+2029 escaped for the JavaScript that may read it.
func appendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
