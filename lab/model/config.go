package model

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Defaults used when an environment variable is unset or empty. They match the
// `ai` service of the lab's docker-compose.yml.
const (
	// DefaultURL is the root address of the model service.
	DefaultURL = "http://ai:4000"
	// DefaultModel is the model name the lab asks for.
	DefaultModel = "lab"
	// DefaultKey is the API key sent as "Authorization: Bearer lab".
	DefaultKey = "lab"
	// DefaultTimeout bounds one whole model call.
	DefaultTimeout = 30 * time.Second
)

// Names of the environment variables ConfigFromEnv reads.
const (
	// EnvURL names the variable holding the model service's root address.
	EnvURL = "AI_URL"
	// EnvModel names the variable holding the model name.
	EnvModel = "AI_MODEL"
	// EnvKey names the variable holding the API key.
	EnvKey = "AI_KEY"
	// EnvTimeout names the variable holding the time limit of one call.
	EnvTimeout = "AI_TIMEOUT"
)

// Config says where the model step sends its question and how long it waits.
//
// A zero URL, Model or Timeout means the matching default. An empty Key sends
// no Authorization header at all.
type Config struct {
	// URL is the root of an OpenAI-compatible service, for example
	// http://ai:4000. The client calls URL/v1/chat/completions.
	URL string
	// Model is the model name put in each request.
	Model string
	// Key is the API key, sent as a bearer token.
	Key string
	// Timeout bounds one whole call, from connecting to reading the reply.
	Timeout time.Duration
}

// ConfigFromEnv builds a Config from AI_URL, AI_MODEL, AI_KEY and AI_TIMEOUT,
// looked up with getenv (os.Getenv in the binary, a map in tests). Unset or
// empty variables take the defaults. AI_TIMEOUT accepts a Go duration such as
// 5s or 1m30s, or a whole number of seconds such as 30. A value that cannot be
// used is an error that names the variable and shows what is accepted.
func ConfigFromEnv(getenv func(string) string) (Config, error) {
	cfg := Config{
		URL:     lookup(getenv, EnvURL, DefaultURL),
		Model:   lookup(getenv, EnvModel, DefaultModel),
		Key:     lookup(getenv, EnvKey, DefaultKey),
		Timeout: DefaultTimeout,
	}
	if err := checkURL(cfg.URL); err != nil {
		return Config{}, fmt.Errorf("%s=%q: %w", EnvURL, cfg.URL, err)
	}
	if raw := strings.TrimSpace(getenv(EnvTimeout)); raw != "" {
		d, err := parseTimeout(raw)
		if err != nil {
			return Config{}, fmt.Errorf("%s=%q: %w", EnvTimeout, raw, err)
		}
		cfg.Timeout = d
	}
	return cfg, nil
}

// BaseURL is the address go-openai expects: the root URL without a trailing
// slash, followed by /v1 unless it already ends in /v1.
func (c Config) BaseURL() string {
	root := strings.TrimRight(c.withDefaults().URL, "/")
	if strings.HasSuffix(root, "/v1") {
		return root
	}
	return root + "/v1"
}

// withDefaults fills the zero fields that have a default. Key stays as given.
func (c Config) withDefaults() Config {
	if strings.TrimSpace(c.URL) == "" {
		c.URL = DefaultURL
	}
	if strings.TrimSpace(c.Model) == "" {
		c.Model = DefaultModel
	}
	if c.Timeout <= 0 {
		c.Timeout = DefaultTimeout
	}
	return c
}

func lookup(getenv func(string) string, name, def string) string {
	if v := strings.TrimSpace(getenv(name)); v != "" {
		return v
	}
	return def
}

func checkURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("want an http or https address such as %s", DefaultURL)
	}
	return nil
}

// maxSeconds keeps a whole number of seconds inside time.Duration's range.
const maxSeconds = int64(1<<63-1) / int64(time.Second)

func parseTimeout(raw string) (time.Duration, error) {
	const want = "want a duration such as 30s or 500ms, or a whole number of seconds such as 30"
	var d time.Duration
	if n, err := strconv.ParseInt(raw, 10, 64); err == nil || errors.Is(err, strconv.ErrRange) {
		if err != nil || n > maxSeconds {
			return 0, fmt.Errorf("too large; %s", want)
		}
		d = time.Duration(n) * time.Second
	} else if d, err = time.ParseDuration(raw); err != nil {
		return 0, fmt.Errorf("not a time; %s", want)
	}
	if d <= 0 {
		return 0, fmt.Errorf("must be more than zero; %s", want)
	}
	return d, nil
}
