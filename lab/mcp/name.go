package mcp

// The methods whose request names what it is about, besides tools/call.
const (
	MethodPromptsGet    = "prompts/get"
	MethodResourcesRead = "resources/read"
)

// NameMember is the member of params that names what a request of the
// method is about, the value Streamable HTTP repeats in the Mcp-Name
// header: "name" for tools/call and prompts/get, "uri" for resources/read,
// and "" for every other method.
func NameMember(method string) string {
	switch method {
	case MethodToolsCall, MethodPromptsGet:
		return "name"
	case MethodResourcesRead:
		return "uri"
	}
	return ""
}
