package stdioprobe

import "github.com/mcplab/mcplab/lab/textesc"

// The scripted client's transcript is a list of event.Record, each
// rendered for `lab run` by event.Record.Line.

// Printable escapes what a terminal would act on, for one line of a
// transcript: control characters (other than tab, but newline and carriage
// return included) as \xNN or \u00NN, bytes that are not UTF-8 as \xNN,
// and invisible characters that reorder or hide text as \uNNNN (see
// textesc.Line).
func Printable(s string) string { return textesc.Line(s) }
