// Package interop holds tests only: they send the same bytes to the lab's
// hand-written servers and to servers built on the official SDKs (go-sdk,
// mcp-go, the TypeScript SDK), run the SDKs' real clients against the
// lab's servers, run the official conformance suite, and benchmark the
// lab against those peers, printing ratios measured in the same run. The
// SDKs are peers here and nowhere else: no server or client of the lab
// imports them. README.md says how to run each part.
package interop
