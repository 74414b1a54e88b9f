package mcphost

import (
	"crypto/sha1"
	"encoding/hex"
	"strings"
)

// MaxNameLength is the longest tool name the host hands a model: the limit
// most model APIs set.
const MaxNameLength = 64

// hashedPrefix is how much of a cut name is kept before "_" and the six
// hex digits that make it unique again: 57 + 1 + 6 = 64.
const hashedPrefix = MaxNameLength - 7

// nameChar reports whether r may appear in a tool name a model sees.
func nameChar(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-'
}

// LocalName is the name under which the host shows tool of the server
// mounted as alias: "mcp__" + alias + "__" + tool, with every character
// that is not a letter, a digit, "_" or "-" replaced by "_" (one for each
// Unicode character), and, when that is longer than 64, its first 57
// characters, "_" and the first six hex digits of the SHA-1 of
// alias + "::" + tool (the original strings, in UTF-8). Cutting makes
// collisions; the digest undoes them.
//
// The name only goes one way: finding the server and the original tool
// name again is done through the host's table, never by taking the name
// apart (tool names may hold "__" themselves, and a cut name has lost
// part of its tool name).
func LocalName(alias, tool string) string {
	raw := sanitize("mcp__" + alias + "__" + tool)
	if len(raw) <= MaxNameLength {
		return raw
	}
	return hashedName(raw, alias, tool)
}

func sanitize(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		if nameChar(r) {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

// hashedName is raw cut to 57 characters (or kept whole when shorter),
// then "_" and six hex digits of the SHA-1 of alias::tool.
func hashedName(raw, alias, tool string) string {
	sum := sha1.Sum([]byte(alias + "::" + tool))
	return raw[:min(len(raw), hashedPrefix)] + "_" + hex.EncodeToString(sum[:])[:6]
}
