// Package timeline draws the transcript of a lab run or a graded run as a
// page of timelines: per scenario, one lane per stream, a mark per event
// at its recorded time (drawn to scale, with quiet stretches folded), the
// joins of each answer to what asked for it, the deadlines that ran out,
// and a table of the same events in words; and the transcript as text
// lines, for the reports that show no picture.
//
// # Inputs
//
// The input is a transcript: a list of event.Event, each of a scenario, at
// a time, of a kind, with a text. Draw groups it by scenario (Groups) and
// reads these kinds and texts:
//
//   - event.Send: a chunk the grader wrote to the program's stdin (a
//     client lesson's command). The chunks of a scenario are joined and cut
//     at newlines into lines, and a line that is a JSON-RPC message is read
//     for its id and method.
//   - event.Answer: a line on the program's stdout, read as a JSON-RPC
//     message (its id, and whether it holds a result or an error). On a
//     server lesson's page it is joined to the line with its id, and judged
//     wrong when it is not a JSON object; on a client lesson's it is joined
//     to the commands in turn.
//   - event.ToServer, event.FromServer, event.Rig: the rig's events of a
//     client lesson; a text begins with the server's "name#connection "
//     and, for an HTTP request, "[headers] ", and the rest is the message.
//     A transcript that holds any of them is a client's (ClientTranscript).
//   - event.Note: the grader's notes; one whose words say a wait ran out
//     ("no answer", "timed out", "deadline", …) is drawn as a deadline.
//   - event.Stderr, and every other kind (close, exit, …), are drawn and
//     listed as they are.
//
// A graded run adds what the grader judged (Judged): failed checks, whose
// message names a scenario ("in scenario 03-errors") and may quote a line
// (line 3 `{…}`), and whose actual answer is matched against the events to
// find the marks that are their evidence; and the orders of answers a
// scenario asserts, marked as kept or broken.
//
// # Files
//
//   - page.go: the way in. Page, what a grader judged (Check, Order,
//     Judged), Draw (events to a Page) and WriteRun (the page of lab run).
//   - events.go: the one place an event's text is read: the server a rig
//     event names, the JSON-RPC message a text holds, a note that a
//     deadline ran out, and the lines the chunks on stdin make. When events
//     carry these facts as fields, this file is the one to replace.
//   - model.go: what a scenario's timeline holds (lanes, marks, joins,
//     folds, deadlines) and building it from the events: each mark's lane,
//     classes and verdict, and how many events a page draws.
//   - joins.go: the joins of a timeline: lines split over writes, answers
//     to the lines with their ids and answers that overtook a request (a
//     server lesson's), commands to answers and messages to servers to
//     their answers (a client lesson's).
//   - orders.go: the orders of answers a scenario asserts, and what
//     happened (Asserted, for a report without a timeline).
//   - evidence.go: each failed check tied to the events that show it,
//     from what the check's message and actual answer say.
//   - layout.go: the time axis, the lanes stacked and each mark placed in
//     its lane, and the sizes of it all.
//   - draw.go: the output: the page's CSS, the HTML and SVG templates
//     (NewTemplate, Render) and the paths of the joins.
//   - text.go: the transcript as text: Groups, Clean, EventLine,
//     TranscriptBlock, and the clipping of text to one short line.
package timeline
