package model

import (
	"testing"
	"time"
)

func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestConfigFromEnv(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want Config
	}{
		{"defaults", nil, Config{URL: "http://ai:4000", Model: "lab", Key: "lab", Timeout: 30 * time.Second}},
		{"blank values take defaults", map[string]string{"AI_URL": " ", "AI_MODEL": "", "AI_KEY": "\t", "AI_TIMEOUT": " "},
			Config{URL: "http://ai:4000", Model: "lab", Key: "lab", Timeout: 30 * time.Second}},
		{"all set", map[string]string{"AI_URL": "http://localhost:11434/v1", "AI_MODEL": "llama3.2", "AI_KEY": "sk-1234", "AI_TIMEOUT": "5s"},
			Config{URL: "http://localhost:11434/v1", Model: "llama3.2", Key: "sk-1234", Timeout: 5 * time.Second}},
		{"https and spaces", map[string]string{"AI_URL": " https://models.example.org/ ", "AI_TIMEOUT": " 45 "},
			Config{URL: "https://models.example.org/", Model: "lab", Key: "lab", Timeout: 45 * time.Second}},
		{"plain seconds", map[string]string{"AI_TIMEOUT": "30"}, Config{URL: "http://ai:4000", Model: "lab", Key: "lab", Timeout: 30 * time.Second}},
		{"minutes and seconds", map[string]string{"AI_TIMEOUT": "1m30s"}, Config{URL: "http://ai:4000", Model: "lab", Key: "lab", Timeout: 90 * time.Second}},
		{"milliseconds", map[string]string{"AI_TIMEOUT": "500ms"}, Config{URL: "http://ai:4000", Model: "lab", Key: "lab", Timeout: 500 * time.Millisecond}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ConfigFromEnv(env(tc.env))
			if err != nil {
				t.Fatalf("ConfigFromEnv: %v", err)
			}
			if got != tc.want {
				t.Errorf("ConfigFromEnv = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestConfigFromEnvErrors(t *testing.T) {
	const want = "want a duration such as 30s or 500ms, or a whole number of seconds such as 30"
	tests := []struct {
		name, variable, value, err string
	}{
		{"word", "AI_TIMEOUT", "soon", `AI_TIMEOUT="soon": not a time; ` + want},
		{"fraction without unit", "AI_TIMEOUT", "1.5", `AI_TIMEOUT="1.5": not a time; ` + want},
		{"zero", "AI_TIMEOUT", "0", `AI_TIMEOUT="0": must be more than zero; ` + want},
		{"zero duration", "AI_TIMEOUT", "0s", `AI_TIMEOUT="0s": must be more than zero; ` + want},
		{"negative", "AI_TIMEOUT", "-5", `AI_TIMEOUT="-5": must be more than zero; ` + want},
		{"negative duration", "AI_TIMEOUT", "-1m", `AI_TIMEOUT="-1m": must be more than zero; ` + want},
		{"too many seconds", "AI_TIMEOUT", "10000000000", `AI_TIMEOUT="10000000000": too large; ` + want},
		{"past int64", "AI_TIMEOUT", "99999999999999999999", `AI_TIMEOUT="99999999999999999999": too large; ` + want},
		{"no scheme", "AI_URL", "ai:4000", `AI_URL="ai:4000": want an http or https address such as http://ai:4000`},
		{"host only", "AI_URL", "localhost", `AI_URL="localhost": want an http or https address such as http://ai:4000`},
		{"other scheme", "AI_URL", "ftp://ai:4000", `AI_URL="ftp://ai:4000": want an http or https address such as http://ai:4000`},
		{"no host", "AI_URL", "http://", `AI_URL="http://": want an http or https address such as http://ai:4000`},
		{"unparsable", "AI_URL", "http://ai:port", `AI_URL="http://ai:port": want an http or https address such as http://ai:4000`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ConfigFromEnv(env(map[string]string{tc.variable: tc.value}))
			if err == nil {
				t.Fatalf("ConfigFromEnv = %+v, want error %q", got, tc.err)
			}
			if err.Error() != tc.err {
				t.Errorf("error = %q, want %q", err, tc.err)
			}
			if got != (Config{}) {
				t.Errorf("config with error = %+v, want zero", got)
			}
		})
	}
}

func TestBaseURL(t *testing.T) {
	tests := []struct{ url, want string }{
		{"http://ai:4000", "http://ai:4000/v1"},
		{"http://ai:4000/", "http://ai:4000/v1"},
		{"http://ai:4000//", "http://ai:4000/v1"},
		{"http://ai:4000/v1", "http://ai:4000/v1"},
		{"http://ai:4000/v1/", "http://ai:4000/v1"},
		{"http://gateway/models", "http://gateway/models/v1"},
		{"http://gateway/v10", "http://gateway/v10/v1"},
		{"", "http://ai:4000/v1"},
	}
	for _, tc := range tests {
		if got := (Config{URL: tc.url}).BaseURL(); got != tc.want {
			t.Errorf("Config{URL: %q}.BaseURL() = %q, want %q", tc.url, got, tc.want)
		}
	}
}

func TestZeroConfigTakesDefaults(t *testing.T) {
	got := Config{Key: ""}.withDefaults()
	want := Config{URL: "http://ai:4000", Model: "lab", Key: "", Timeout: 30 * time.Second}
	if got != want {
		t.Errorf("withDefaults = %+v, want %+v", got, want)
	}
}
