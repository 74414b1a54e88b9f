package stdioprobe

// ReadinessOf is the Readiness a lesson's manifest names by its "ready:"
// line: kind "none" (start at once), "probe" with the request line probe,
// or "stderr" with the text pattern a stderr line holds once the server is
// ready (any other kind reads as "stderr").
func ReadinessOf(kind, pattern, probe string) Readiness {
	switch kind {
	case "none":
		return Readiness{None: true}
	case "probe":
		return Readiness{Probe: []byte(probe + "\n")}
	}
	return Readiness{Stderr: pattern}
}
