package grading

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/mcplab/mcplab/lab/textesc"
	"github.com/mcplab/mcplab/lab/wire"
)

func DecodeJSON(raw json.RawMessage) (any, bool) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	return v, d.Decode(&v) == nil
}

func JSONEqual(a, b json.RawMessage) bool {
	va, ok1 := DecodeJSON(a)
	vb, ok2 := DecodeJSON(b)
	return ok1 && ok2 && reflect.DeepEqual(va, vb)
}

func IDType(id json.RawMessage) string {
	if b := bytes.TrimSpace(id); len(b) > 0 && b[0] == '"' {
		return "a string"
	}
	return "a number"
}

func ListSome(items []string, n int) string {
	if len(items) <= n {
		return strings.Join(items, "; ")
	}
	return fmt.Sprintf("%s; and %d more", strings.Join(items[:n], "; "), len(items)-n)
}

// CompactJSON is raw without insignificant white space, or raw itself
// when it is not valid JSON (see wire.Compact).
func CompactJSON(raw json.RawMessage) json.RawMessage { return wire.Compact(raw) }

func Clip(s string, n int) string {
	s = strings.TrimSpace(s)
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "..."
	}
	return s
}

// Pick is one or many, the form n needs, without the number (see
// textesc.Pick).
func Pick(n int, one, many string) string { return textesc.Pick(n, one, many) }
