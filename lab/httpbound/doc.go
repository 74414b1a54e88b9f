// Package httpbound holds the bounds the lab keeps on HTTP, on both sides
// it plays.
//
// As a server (lab/mcphttp's servers, lab/rig's played servers), it bounds
// what a client sends: the headers (Server), each request body and the
// bodies held at once (Bodies, reading within a Body bound from one shared
// Pool of room), the connections open at once (Conns), and the time a
// connection may sit idle (Server). The side using it phrases the refusal:
// a BodyError says which bound broke and by how much, not what to answer.
//
// As a client (a scripted client reading a student's server), it bounds
// what a server answers: the headers, a JSON body, one event of an event
// stream, the time between two bytes and the time in all (Answer, with
// its reader Reading). An AnswerError names the bound that broke.
//
// Whatever the peer sends, memory stays within the bounds and every wait
// ends at a deadline.
package httpbound
