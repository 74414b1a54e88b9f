package serverlesson_test

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mcplab/mcplab/lab/proc"

	"github.com/mcplab/mcplab/grading"
)

// seedFile is seed 003, the lesson's source, kept outside the repository
// (next to it, in ../shared/seeds); MCPLAB_SEEDS names another folder.
const seedFile = "003_4ea5c17b6887d2d4.txt"

// TestSeedServer grades the server seed 003 builds, server1.js, rebuilt here
// from the seed's own "Write the server" steps (the repository keeps no copy
// of it). It must fail exactly the checks whose rules go beyond the seed: it
// answers a request whose id is true or 1.5 as if the id were good, and it
// waits for, and echoes, a negative or fractional ms. Everything it does the
// seed's way must pass: its buffer loop is the framing the lesson teaches.
func TestSeedServer(t *testing.T) {
	t.Parallel()
	dir := os.Getenv("MCPLAB_SEEDS")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "shared", "seeds")
	}
	text, err := os.ReadFile(filepath.Join(dir, seedFile))
	if err != nil {
		t.Skipf("seed 003 is not here (%v); set MCPLAB_SEEDS to the folder that holds %s", err, seedFile)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: the seed's server is JavaScript (CI has Node 20)")
	}
	js, err := seedServer(string(text))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "server1.js")
	if err := os.WriteFile(path, []byte(js), 0o644); err != nil {
		t.Fatal(err)
	}
	res := grade(t, proc.Command{Path: node, Args: []string{path}}, grading.Options{})
	check(t, res, wantGrade{grading.OutcomeWrongAnswers, []string{"ids.string-or-integer", "methods.wait-params"}, 19, nil})
	for id, part := range map[string]string{
		"ids.string-or-integer": "In scenario 09-id-true, line 1 `{\"jsonrpc\":\"2.0\",\"id\":true,\"method\":\"ping\"}` should get -32600 (Invalid Request) with id null; " +
			"it got `{\"jsonrpc\":\"2.0\",\"id\":true,\"result\":{}}`",
		"methods.wait-params": "In scenario 02-requests, line 3 `{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"wait\",\"params\":{\"ms\":-5}}` should get -32602 (Invalid params) with id 8; " +
			"it got `{\"jsonrpc\":\"2.0\",\"id\":8,\"result\":{\"waited\":-5}}`",
	} {
		if msg := message(t, res, id); !strings.Contains(msg, part) {
			t.Errorf("%s says:\n%s\nwant it to contain:\n%s", id, msg, part)
		}
	}
}

// message returns the message of a check that must be in the result.
func message(t *testing.T, res *grading.Result, id string) string {
	t.Helper()
	for _, c := range res.Checks {
		if c.ID == id {
			return c.Message
		}
	}
	t.Fatalf("the result has no check %s", id)
	return ""
}

// seedServer rebuilds server1.js from the seed's three "Write the server"
// steps. Each step's command is `docker exec ... sh -c "printf '%s\n' 'LINE'
// ... > server1.js"` (>> for the later parts): printf writes each quoted
// LINE and a newline. The steps are read, not run: no shell is involved.
func seedServer(seed string) (string, error) {
	var out strings.Builder
	for part := 1; part <= 3; part++ {
		heading := fmt.Sprintf("Write the server, part %d", part)
		_, after, ok := strings.Cut(seed, heading)
		if !ok {
			return "", fmt.Errorf("the seed has no step %q", heading)
		}
		var command string
		sc := bufio.NewScanner(strings.NewReader(after))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "docker exec ") {
				command = sc.Text()
				break
			}
		}
		if command == "" {
			return "", fmt.Errorf("%s: no docker exec command follows it", heading)
		}
		lines, redirect, err := printfLines(command)
		if err != nil {
			return "", fmt.Errorf("%s: %w", heading, err)
		}
		if want := map[bool]string{true: "> server1.js", false: ">> server1.js"}[part == 1]; redirect != want {
			return "", fmt.Errorf("%s writes %q, want %q", heading, redirect, want)
		}
		for _, l := range lines {
			out.WriteString(l + "\n")
		}
	}
	return out.String(), nil
}

// printfLines reads `... sh -c "printf '%s\n' 'A' 'B' > FILE"`: it undoes
// the double quotes' escapes, then returns the single-quoted arguments and
// the redirection.
func printfLines(command string) (lines []string, redirect string, err error) {
	_, script, ok := strings.Cut(command, `sh -c "`)
	if !ok {
		return nil, "", fmt.Errorf("no sh -c \"...\" in %q", command)
	}
	var inner bytes.Buffer
	closed := false
	for i := 0; i < len(script); i++ {
		c := script[i]
		if c == '\\' && i+1 < len(script) && strings.IndexByte("$`\"\\", script[i+1]) >= 0 {
			inner.WriteByte(script[i+1])
			i++
			continue
		}
		if c == '"' {
			closed = true
			break
		}
		inner.WriteByte(c)
	}
	if !closed {
		return nil, "", fmt.Errorf("the sh -c argument is not closed")
	}
	var words []string
	s := inner.String()
	for s = strings.TrimSpace(s); s != ""; s = strings.TrimSpace(s) {
		if s[0] == '\'' {
			end := strings.IndexByte(s[1:], '\'')
			if end < 0 {
				return nil, "", fmt.Errorf("an unclosed single quote")
			}
			words = append(words, s[1:end+1])
			s = s[end+2:]
			continue
		}
		end := strings.IndexAny(s, " '")
		if end < 0 {
			end = len(s)
		}
		words = append(words, s[:end])
		s = s[end:]
	}
	if len(words) < 4 || words[0] != "printf" || words[1] != `%s\n` {
		return nil, "", fmt.Errorf("want printf '%%s\\n' LINES... > FILE, got %q", words)
	}
	n := len(words)
	if words[n-2] != ">" && words[n-2] != ">>" {
		return nil, "", fmt.Errorf("the command does not end with a redirection: %q", words[n-2:])
	}
	return words[2 : n-2], words[n-2] + " " + words[n-1], nil
}

// TestPrintfLines pins the reading of the seed's commands.
func TestPrintfLines(t *testing.T) {
	lines, redirect, err := printfLines(`docker exec -w /p agent sh -c "printf '%s\n' 'let a = \"x\";' 'b(\"\n\")' >> server1.js"`)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{`let a = "x";`, `b("\n")`}; !reflect.DeepEqual(lines, want) || redirect != ">> server1.js" {
		t.Errorf("got %q %q, want %q >> server1.js", lines, redirect, want)
	}
	for _, bad := range []string{`sh -c "printf '%s\n' 'a' > f`, `sh -c "echo hi"`, `no shell here`, `sh -c "printf '%s\n' 'a"`} {
		if _, _, err := printfLines(bad); err == nil {
			t.Errorf("%q: accepted", bad)
		}
	}
}
