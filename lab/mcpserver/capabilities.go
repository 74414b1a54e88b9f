package mcpserver

import "strings"

// capabilityOf names the server capability a registered method belongs
// to, and reports whether it belongs to one: resources/* to resources,
// prompts/* to prompts, completion/complete to completions and
// logging/setLevel to logging. A method of no family (x/empty) advertises
// nothing.
func capabilityOf(method string) (string, bool) {
	switch {
	case strings.HasPrefix(method, "resources/"):
		return "resources", true
	case strings.HasPrefix(method, "prompts/"):
		return "prompts", true
	case method == "completion/complete":
		return "completions", true
	case method == "logging/setLevel":
		return "logging", true
	}
	return "", false
}

// capabilities is what server/discover and initialize advertise: one
// member for each family of methods the server answers. Tools are
// advertised when a tool is registered; a family of registered methods
// when one of its methods is (resources/read gives "resources"), with
// "subscribe": true when resources/subscribe is among them. A server with
// nothing gets {}. The caller holds nameMu.
func (s *Server) capabilities() map[string]any {
	caps := map[string]any{}
	if len(s.tools) > 0 {
		caps["tools"] = struct{}{}
	}
	for method := range s.methods {
		if name, ok := capabilityOf(method); ok && caps[name] == nil {
			caps[name] = struct{}{}
		}
	}
	if _, ok := s.methods["resources/subscribe"]; ok {
		caps["resources"] = struct {
			Subscribe bool `json:"subscribe"`
		}{true}
	}
	return caps
}
