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
// a time, of a kind, with a text and, for what the rig saw, the fields of
// its server. Draw groups it by scenario (Groups) and reads these kinds
// and fields:
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
//   - the events the rig saw, of a client lesson: each names the server
//     the lab played (event.Event.Server) and the connection (Conn), and
//     its Text is the line or body that crossed; an HTTP request's
//     headers and an answer's status are fields of their own. The
//     timeline draws each in its server's lane, files it under the kind
//     its transcript shows (ToServer, FromServer, Rig: see
//     event.Event.TranscriptKind) and draws the words its transcript
//     shows (TranscriptText). A transcript that holds any of them is a
//     client's (ClientTranscript). A transcript an older version kept,
//     with the server only in the words, is read back first (see
//     event.FromOlder).
//   - event.Note: the grader's notes; one its recorder marked as a wait
//     that ran out (event.Record.Deadline) is drawn as a deadline. A note
//     is never read for its words.
//   - event.Stderr, and every other kind (close, exit, …), are drawn and
//     listed as they are.
//
// A graded run adds what the grader judged (Judged): failed checks, with
// the scenarios their evidence came from (Check.Scenarios), the line of
// the scenario's input a failure is about (Check.Line), and an actual
// answer that is matched against the events to find the marks that are
// their evidence; and the orders of answers a scenario asserts, marked as
// kept or broken. A check's message is drawn, never read.
//
// # Files
//
//   - page.go: the way in. Page, what a grader judged (Check, Order,
//     Judged), Draw (events to a Page) and WriteRun (the page of lab run).
//   - events.go: the one place an event is read: the kind and words its
//     transcript shows, the server of an event the rig saw (a field), the
//     JSON-RPC message a line or body holds, a note that a deadline ran
//     out (a field), and the lines the chunks on stdin make.
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
//     from the check's fields: the scenarios its evidence came from, the
//     line it is about and its actual answer (a result file keeps all
//     three). Its message is never read.
//   - layout.go: the time axis, the lanes stacked and each mark placed in
//     its lane, and the sizes of it all.
//   - draw.go: the output: the page's CSS, the HTML and SVG templates
//     (NewTemplate, Render) and the paths of the joins.
//   - text.go: the transcript as text: Groups, Clean, EventLine,
//     TranscriptBlock, and the clipping of text to one short line.
package timeline
