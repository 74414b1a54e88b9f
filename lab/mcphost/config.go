package mcphost

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/mcplab/mcplab/lab/safefile"
)

// Config names the servers a host mounts, in order. Each alias is ours,
// chosen in this file: it, not any name a server gives itself, prefixes the
// server's tools.
type Config struct {
	Servers []ServerConfig
}

// ServerConfig is one server: a command to start (stdio) or a URL (HTTP).
type ServerConfig struct {
	// Alias is the server's key in the configuration.
	Alias string
	// Command and Args start a stdio server.
	Command string
	Args    []string
	// URL is a Streamable HTTP endpoint.
	URL string
	// Timeout bounds each request to this server; 0 means the host's.
	Timeout time.Duration
}

// Transport says how the host reaches the server: "stdio" or "http".
func (s ServerConfig) Transport() string {
	if s.URL != "" {
		return "http"
	}
	return "stdio"
}

// maxConfigBytes bounds a configuration file.
const maxConfigBytes = 1 << 20

// LoadConfig reads a configuration file; see ParseConfig.
func LoadConfig(path string) (*Config, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading the configuration: %w", err)
	}
	defer f.Close()
	b, over, err := safefile.ReadAtMost(f, maxConfigBytes)
	if err != nil {
		return nil, fmt.Errorf("reading the configuration %s: %w", path, err)
	}
	if over {
		return nil, fmt.Errorf("the configuration %s is larger than %d bytes", path, maxConfigBytes)
	}
	cfg, err := ParseConfig(b)
	if err != nil {
		return nil, fmt.Errorf("the configuration %s: %w", path, err)
	}
	return cfg, nil
}

// ParseConfig reads a configuration such as
//
//	{"servers": {
//	  "notes":   {"command": "lab", "args": ["serve", "notes"]},
//	  "tickets": {"url": "http://127.0.0.1:3115/mcp", "timeoutMs": 5000}
//	}}
//
// The servers keep the file's order. An alias that appears twice is an
// error, as is an alias that could not prefix a tool name cleanly (it must
// be letters, digits, "_" and "-", with no "__" and no "_" at either end),
// an unknown member, or a server with both or neither of command and url.
func ParseConfig(b []byte) (*Config, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := expectDelim(dec, '{', "the configuration must be a JSON object"); err != nil {
		return nil, err
	}
	cfg := &Config{}
	sawServers := false
	for dec.More() {
		key, err := stringToken(dec)
		if err != nil {
			return nil, err
		}
		if key != "servers" {
			return nil, fmt.Errorf("unknown member %q; the configuration has only \"servers\"", key)
		}
		if sawServers {
			return nil, errors.New(`"servers" appears twice`)
		}
		sawServers = true
		if err := expectDelim(dec, '{', `"servers" must be an object from alias to server`); err != nil {
			return nil, err
		}
		seen := map[string]bool{}
		for dec.More() {
			alias, err := stringToken(dec)
			if err != nil {
				return nil, err
			}
			if seen[alias] {
				return nil, fmt.Errorf("the alias %q is used twice; each server needs its own alias, since it prefixes the server's tool names", alias)
			}
			seen[alias] = true
			if err := checkAlias(alias); err != nil {
				return nil, err
			}
			s, err := serverEntry(dec, alias)
			if err != nil {
				return nil, err
			}
			cfg.Servers = append(cfg.Servers, s)
		}
		if _, err := dec.Token(); err != nil {
			return nil, fmt.Errorf("reading \"servers\": %w", err)
		}
	}
	if _, err := dec.Token(); err != nil {
		return nil, fmt.Errorf("reading the configuration: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("the configuration has more after its closing brace")
	}
	if len(cfg.Servers) == 0 {
		return nil, errors.New(`the configuration names no servers; add them under "servers"`)
	}
	return cfg, nil
}

func expectDelim(dec *json.Decoder, d json.Delim, msg string) error {
	tok, err := dec.Token()
	if err != nil {
		return fmt.Errorf("%s: %w", msg, err)
	}
	if tok != d {
		return errors.New(msg)
	}
	return nil
}

func stringToken(dec *json.Decoder) (string, error) {
	tok, err := dec.Token()
	if err != nil {
		return "", fmt.Errorf("reading the configuration: %w", err)
	}
	s, ok := tok.(string)
	if !ok {
		return "", fmt.Errorf("reading the configuration: expected a member name, found %v", tok)
	}
	return s, nil
}

// serverEntry reads one server's object, refusing members it does not know
// and members given twice.
func serverEntry(dec *json.Decoder, alias string) (ServerConfig, error) {
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return ServerConfig{}, fmt.Errorf("server %q: %w", alias, err)
	}
	inner := json.NewDecoder(bytes.NewReader(raw))
	if err := expectDelim(inner, '{', fmt.Sprintf("server %q must be an object", alias)); err != nil {
		return ServerConfig{}, err
	}
	s := ServerConfig{Alias: alias}
	seen := map[string]bool{}
	for inner.More() {
		key, err := stringToken(inner)
		if err != nil {
			return s, fmt.Errorf("server %q: %w", alias, err)
		}
		if seen[key] {
			return s, fmt.Errorf("server %q: %q appears twice", alias, key)
		}
		seen[key] = true
		var target any
		var ms int64
		switch key {
		case "command":
			target = &s.Command
		case "args":
			target = &s.Args
		case "url":
			target = &s.URL
		case "timeoutMs":
			target = &ms
		default:
			return s, fmt.Errorf("server %q: unknown member %q; a server has \"command\" and \"args\", or \"url\", and may have \"timeoutMs\"", alias, key)
		}
		if err := inner.Decode(target); err != nil {
			return s, fmt.Errorf("server %q: %q: %w", alias, key, err)
		}
		if key == "timeoutMs" {
			if ms <= 0 {
				return s, fmt.Errorf("server %q: timeoutMs must be a positive number of milliseconds", alias)
			}
			s.Timeout = time.Duration(ms) * time.Millisecond
		}
	}
	switch {
	case s.Command == "" && s.URL == "":
		return s, fmt.Errorf("server %q has neither \"command\" (stdio) nor \"url\" (HTTP)", alias)
	case s.Command != "" && s.URL != "":
		return s, fmt.Errorf("server %q has both \"command\" and \"url\"; give one", alias)
	case s.URL == "" && len(s.Args) > 0 && s.Command == "":
		return s, fmt.Errorf("server %q has \"args\" but no \"command\"", alias)
	case s.URL != "" && len(s.Args) > 0:
		return s, fmt.Errorf("server %q: \"args\" belong to a command, not to a url", alias)
	}
	if s.URL != "" {
		u, err := url.Parse(s.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return s, fmt.Errorf("server %q: %q is not an http:// or https:// URL", alias, s.URL)
		}
	}
	return s, nil
}

// checkAlias refuses an alias that would make names ambiguous or be
// rewritten when it prefixes a tool name.
func checkAlias(alias string) error {
	if alias == "" {
		return errors.New("an alias is empty; name each server")
	}
	for _, r := range alias {
		if !nameChar(r) {
			return fmt.Errorf("the alias %q has %q; an alias is letters, digits, \"_\" and \"-\" only", alias, r)
		}
	}
	if strings.Contains(alias, "__") || strings.HasPrefix(alias, "_") || strings.HasSuffix(alias, "_") {
		return fmt.Errorf("the alias %q would blur the \"__\" that separates it from tool names; use no \"__\" and no \"_\" at either end", alias)
	}
	return nil
}
