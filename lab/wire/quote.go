package wire

import "fmt"

// quoteLimit is how much of a line QuoteShort keeps.
const quoteLimit = 60

// QuoteShort quotes a line for a log message (Go syntax, so control bytes
// and invalid UTF-8 show as escapes), cut to its first 60 bytes and marked
// "..." when it is longer.
func QuoteShort(line []byte) string {
	if len(line) > quoteLimit {
		return fmt.Sprintf("%q...", line[:quoteLimit])
	}
	return fmt.Sprintf("%q", line)
}
