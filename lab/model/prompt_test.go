package model

import (
	"context"
	"errors"
	"io/fs"
	"net/http"
	"strings"
	"testing"

	"github.com/mcplab/mcplab/lessons"
)

// TestAskFromEnvFallsBackOnBadConfig: a malformed AI_URL or AI_TIMEOUT is
// one more reason no model answered. The step still ends with the sample,
// and the reason keeps the usage error: which variable, what it accepts.
func TestAskFromEnvFallsBackOnBadConfig(t *testing.T) {
	tests := []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"AI_URL": "ai:4000"},
			`Recorded sample: no model answered (AI_URL="ai:4000": want an http or https address such as http://ai:4000).`},
		{map[string]string{"AI_URL": "http://"},
			`Recorded sample: no model answered (AI_URL="http://": want an http or https address such as http://ai:4000).`},
		{map[string]string{"AI_TIMEOUT": "soon"},
			`Recorded sample: no model answered (AI_TIMEOUT="soon": not a time; want a duration such as 30s or 500ms, or a whole number of seconds such as 30).`},
		{map[string]string{"AI_TIMEOUT": "-5s"},
			`Recorded sample: no model answered (AI_TIMEOUT="-5s": must be more than zero; want a duration such as 30s or 500ms, or a whole number of seconds such as 30).`},
	}
	for _, tc := range tests {
		a := AskFromEnv(context.Background(), env(tc.env), testPrompt)
		lines := Lines(a)
		if len(lines) != 2 || lines[0] != tc.want || lines[1] != "model: "+testSample {
			t.Errorf("env %v: the step printed\n%s\nwant\n%s\nmodel: %s", tc.env, strings.Join(lines, "\n"), tc.want, testSample)
		}
	}
}

// TestAskFromEnvAsks checks that a good configuration reaches the model.
func TestAskFromEnvAsks(t *testing.T) {
	srv, got := serve(t, http.StatusOK, "application/json", completion(choice(`"`+testAnswer+`"`)))
	a := AskFromEnv(context.Background(), env(map[string]string{"AI_URL": srv.URL, "AI_TIMEOUT": "5s"}), testPrompt)
	if a.Recorded || a.Text != testAnswer {
		t.Fatalf("AskFromEnv = %+v", a)
	}
	<-got
}

// TestLessonPrompt reads lesson 1's prompt, as `lab run` does, and checks
// that its max_tokens (60, the seed's value) is what goes on the wire.
func TestLessonPrompt(t *testing.T) {
	l, err := lessons.Get(1)
	if err != nil {
		t.Fatal(err)
	}
	p, err := LoadPrompt(l.Read)
	if err != nil {
		t.Fatal(err)
	}
	if p.MaxTokens != 60 || p.Question == "" || p.Sample == "" {
		t.Fatalf("lesson 1's prompt: %+v", p)
	}
	srv, got := serve(t, http.StatusOK, "application/json", completion(choice(`"`+testAnswer+`"`)))
	Ask(context.Background(), testConfig(srv.URL), p)
	if body := (<-got).body; !strings.Contains(body, `"max_tokens":60,`) {
		t.Errorf("request body %s; want max_tokens 60", body)
	}
}

func TestLoadPromptErrors(t *testing.T) {
	files := func(m map[string]string) func(string) ([]byte, error) {
		return func(name string) ([]byte, error) {
			s, ok := m[name]
			if !ok {
				return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
			}
			return []byte(s), nil
		}
	}
	good := map[string]string{QuestionFile: "Why?\n", SampleFile: "Because.\n", MaxTokensFile: "60\n"}
	if p, err := LoadPrompt(files(good)); err != nil || p != (Prompt{Question: "Why?", Sample: "Because.", MaxTokens: 60}) {
		t.Fatalf("LoadPrompt = %+v, %v", p, err)
	}
	for name, bad := range map[string]string{MaxTokensFile: "sixty", SampleFile: " \n"} {
		m := map[string]string{}
		for k, v := range good {
			m[k] = v
		}
		m[name] = bad
		if _, err := LoadPrompt(files(m)); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s = %q: error %v, want one naming the file", name, bad, err)
		}
		delete(m, name)
		if _, err := LoadPrompt(files(m)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("without %s: error %v, want not exist", name, err)
		}
	}
}
