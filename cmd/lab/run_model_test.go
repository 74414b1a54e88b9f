package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunModelConfigFallsBack: a malformed AI_URL or AI_TIMEOUT does not stop
// `lab run`. The run finishes, the model step prints the recorded sample
// with the usage error as its reason, and the exit status is 0.
func TestRunModelConfigFallsBack(t *testing.T) {
	for _, tc := range []struct{ name, value, reason string }{
		{"AI_URL", "ai:4000", `AI_URL="ai:4000": want an http or https address such as http://ai:4000`},
		{"AI_TIMEOUT", "soon", `AI_TIMEOUT="soon": not a time;`},
	} {
		// The recorded sample is lesson 1's own file, so the lesson's
		// words can change without this test.
		raw, err := os.ReadFile(filepath.Join("..", "..", "lessons", "01-reading-messages", "model", "sample.txt"))
		if err != nil {
			t.Fatal(err)
		}
		sample := strings.TrimSpace(string(raw))
		var out, errb bytes.Buffer
		e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, getenv: func(k string) string {
			if k == tc.name {
				return tc.value
			}
			return ""
		}}
		code := dispatch(context.Background(), e, append([]string{"run", "--"}, selfLab("serve", "reader")...))
		if code != exitOK {
			t.Errorf("%s=%q: exit %d, want 0; stderr:\n%s", tc.name, tc.value, code, errb.String())
		}
		lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
		n := len(lines)
		if n < 2 || !strings.HasPrefix(lines[n-2], "Recorded sample: no model answered ("+tc.reason) ||
			lines[n-1] != "model: "+sample {
			t.Errorf("%s=%q: the run ended with\n%s", tc.name, tc.value, strings.Join(lines[max(0, n-2):], "\n"))
		}
		if !strings.Contains(out.String(), "-- server exited with status 0") {
			t.Errorf("%s=%q: the scripted run did not finish:\n%s", tc.name, tc.value, out.String())
		}
	}
}
