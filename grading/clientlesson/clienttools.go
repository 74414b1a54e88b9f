package clientlesson

// offeredTools names every tool the server behind alias offers, over all
// of its tools/list pages, in the server's order; nil when the scenario
// has no such alias or its server's tools are not known ahead of a run
// (see clientplay.Server.Tools). A message that tells a student which
// names a server knows lists these, not only the pages the client
// happened to read.
func (r *clientRun) offeredTools(alias string) []string {
	return r.Tools[alias]
}
