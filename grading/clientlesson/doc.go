// Package clientlesson is the client lesson kind ("subject: client" in a
// lesson's manifest): the student writes an MCP client, and the lab plays
// the servers each scenario names (lab/rig, through lab/clientplay), gives
// the client its commands one at a time, and judges both the client's
// answers and every message it sent the servers against the scenario's
// expect lines (lab/clientscenario). It is one grading.Kind; the servers it
// plays are given to it (Kind.Servers), never named in it.
package clientlesson
