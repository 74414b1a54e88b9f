// Package wire is the JSON-RPC 2.0 wire format that mcplab's servers,
// clients and grader share: the kinds of message, the error codes, the line
// framer that cuts a byte stream into messages, and the rules that tell a
// request from a line that only looks like one.
package wire

import "fmt"

// Version is the only value the "jsonrpc" member of a message may have.
const Version = "2.0"

// The error codes of JSON-RPC 2.0 (section 5.1 of its specification).
const (
	CodeParseError     = -32700 // the line is not JSON (or not UTF-8)
	CodeInvalidRequest = -32600 // JSON, but not a request object
	CodeMethodNotFound = -32601 // no such method
	CodeInvalidParams  = -32602 // the method exists, its params are wrong
	CodeInternalError  = -32603 // the server failed while handling it
)

// The error codes that MCP revision 2026-07-28 reserves in the range
// -32020..-32099 for the protocol itself.
const (
	CodeHeaderMismatch               = -32020 // an HTTP header disagrees with the body
	CodeMissingClientCapabilities    = -32021 // the request needs a capability the client did not declare
	CodeUnsupportedProtocolVersion   = -32022 // the server does not speak the requested revision
	CodeURLElicitationRequired       = -32042 // the client must open a URL first
	codeImplementationDefinedLowest  = -32019
	codeImplementationDefinedHighest = -32000
)

// CodeName returns the name of a known error code, such as "Parse error"
// for -32700. For codes it does not know it says which range the code is in.
func CodeName(code int) string {
	switch code {
	case CodeParseError:
		return "Parse error"
	case CodeInvalidRequest:
		return "Invalid Request"
	case CodeMethodNotFound:
		return "Method not found"
	case CodeInvalidParams:
		return "Invalid params"
	case CodeInternalError:
		return "Internal error"
	case CodeHeaderMismatch:
		return "Header mismatch"
	case CodeMissingClientCapabilities:
		return "Missing required client capabilities"
	case CodeUnsupportedProtocolVersion:
		return "Unsupported protocol version"
	case CodeURLElicitationRequired:
		return "URL elicitation required"
	}
	switch {
	case code >= codeImplementationDefinedLowest && code <= codeImplementationDefinedHighest:
		return fmt.Sprintf("implementation-defined server error %d", code)
	case code >= -32099 && code < codeImplementationDefinedLowest:
		return fmt.Sprintf("code %d (reserved for MCP)", code)
	case code >= -32768 && code <= -32000:
		return fmt.Sprintf("code %d (reserved by JSON-RPC)", code)
	}
	return fmt.Sprintf("application error %d", code)
}
