package lessons

import "strings"

// KeyValue is one line of a "key: value" text (a manifest, an entry of a
// check catalogue): its number, counted from 1, the line with the spaces
// around it trimmed, and the key and value on either side of its first
// colon, trimmed too. OK is false for a line with no colon, whose Key and
// Value are then empty.
type KeyValue struct {
	Line       int
	Text       string
	Key, Value string
	OK         bool
}

// KeyValues splits data into its "key: value" lines, in order, leaving out
// blank lines and # comments. It judges nothing: what a key means, which
// keys are known and whether a value may be empty is the caller's to say,
// with the line's number in the message.
func KeyValues(data []byte) []KeyValue {
	var out []KeyValue
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		kv := KeyValue{Line: i + 1, Text: line}
		if key, val, ok := strings.Cut(line, ":"); ok {
			kv.Key, kv.Value, kv.OK = strings.TrimSpace(key), strings.TrimSpace(val), true
		}
		out = append(out, kv)
	}
	return out
}
