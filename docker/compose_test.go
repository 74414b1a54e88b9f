//go:build unix

package docker_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcplab/mcplab/internal/testkit"
)

// composeTool is one Compose implementation: v1 (`docker-compose`) or v2
// (`docker compose`).
type composeTool struct {
	name    string // the command as a student types it
	version string // v1 or v2, the subtest's name
	argv    []string
}

// composeTools lists the Compose implementations found on this machine.
func composeTools() []composeTool {
	var tools []composeTool
	if path, err := exec.LookPath("docker-compose"); err == nil {
		tools = append(tools, composeTool{"docker-compose", "v1", []string{path}})
	}
	if err := exec.Command("docker", "compose", "version").Run(); err == nil {
		tools = append(tools, composeTool{"docker compose", "v2", []string{"docker", "compose"}})
	}
	return tools
}

// composeProject is a copy of the repository's Compose stack in a temporary
// directory, with its own project and image names, so a test run leaves the
// repository and the student's mcplab/lab:local alone.
type composeProject struct {
	tool  composeTool
	dir   string
	name  string
	image string
	// workbench is the workbench's image name; folder the student's folder
	// it mounts (WORKBENCH_DIR).
	workbench, folder string
	// lesson, when set, is the LESSON the lab service plays.
	lesson string
}

// run runs the Compose tool with args in the project and returns its stdout
// and stderr; an exit status other than 0 is an error carrying both.
func (p *composeProject) run(ctx context.Context, args ...string) (stdout, stderr string, err error) {
	return p.runStdin(ctx, "", args...)
}

// runStdin is run with stdin as the tool's standard input.
func (p *composeProject) runStdin(ctx context.Context, stdin string, args ...string) (stdout, stderr string, err error) {
	argv := append(append([]string{}, p.tool.argv...), args...)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = p.dir
	cmd.Stdin = strings.NewReader(stdin)
	cmd.Env = append(os.Environ(),
		"COMPOSE_PROJECT_NAME="+p.name,
		"LAB_IMAGE="+p.image,
		"LAB_TARGET=runtime", // no registry here: the stage that copies dist/lab
		"COMPOSE_PROFILES=",  // only the services without a profile
		"WORKBENCH_IMAGE="+p.workbench,
		"WORKBENCH_TARGET=workbench", // the runner image plus dist/lab
		"WORKBENCH_DIR="+p.folder,
	)
	if p.lesson != "" {
		cmd.Env = append(cmd.Env, "LESSON="+p.lesson)
	}
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		return out.String(), errOut.String(), fmt.Errorf("%s %s: %w\nstdout:\n%s\nstderr:\n%s",
			p.tool.name, strings.Join(args, " "), err, indent(out.String()), indent(errOut.String()))
	}
	return out.String(), errOut.String(), nil
}

// TestCompose runs the stack the way a student does, with each Compose
// implementation on this machine: `up` plays lesson 1 and exits 0, `run lab
// grade` grades a server inside the container, and `run workbench` grades a
// Python and a JavaScript server in the student's folder (when the runner
// image is there to build the workbench on).
func TestCompose(t *testing.T) {
	needEngine(t)
	tools := composeTools()
	if len(tools) == 0 {
		testkit.Unavailable(t, "neither docker-compose nor docker compose is installed (docker/engine.sh installs docker-compose)",
			"neither docker-compose nor docker compose is installed")
	}
	ctx, cancel := testkit.TestContext(t)
	defer cancel()

	dir := t.TempDir()
	buildLab(t, dir)
	buildContext(t, dir, "docker-compose.yml", "docker/litellm.yaml", "docker/workbench-entry.sh")
	folder := studentFolder(t, map[string]string{
		"server.py": "grading/testdata/servers/student_py/server.py",
		"server.js": "grading/testdata/submissions/js-good/server.js",
	})

	for i, tool := range tools {
		t.Run(tool.version, func(t *testing.T) {
			p := &composeProject{
				tool:      tool,
				dir:       dir,
				name:      fmt.Sprintf("mcplabtest%d%d", time.Now().UnixNano()%1_000_000_000, i),
				image:     fmt.Sprintf("mcplab/lab:compose-test-%d-%d", time.Now().UnixNano(), i),
				workbench: fmt.Sprintf("mcplab/workbench:compose-test-%d-%d", time.Now().UnixNano(), i),
				folder:    folder,
			}
			t.Cleanup(func() {
				ctx := context.Background()
				if _, _, err := p.run(ctx, "down", "--volumes", "--remove-orphans"); err != nil {
					t.Errorf("clean up: %v", err)
				}
				if out, err := exec.CommandContext(ctx, "docker", "image", "rm", "-f", p.image, p.workbench).CombinedOutput(); err != nil &&
					!strings.Contains(string(out), "No such image") {
					t.Errorf("clean up: docker image rm %s %s: %v\n%s", p.image, p.workbench, err, out)
				}
			})
			testComposeStack(ctx, t, p)
			t.Run("workbench", func(t *testing.T) { testComposeWorkbench(ctx, t, p) })
		})
	}
}

func testComposeStack(ctx context.Context, t *testing.T, p *composeProject) {
	out, _, err := p.run(ctx, "config", "--services")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "lab") {
		t.Errorf("%s config --services does not list the lab service:\n%s", p.tool.name, out)
	}

	// Build first: `up` would build too, but its build log would be mixed
	// into the lesson's output.
	if _, _, err := p.run(ctx, "build", "lab"); err != nil {
		t.Fatal(err)
	}

	out, _, err = p.run(ctx, "up", "--no-color", "--exit-code-from", "lab")
	if err != nil {
		t.Fatal(err)
	}
	// `up` prefixes each line with the container's name and a bar.
	var answers []string
	for _, line := range strings.Split(out, "\n") {
		if _, after, ok := strings.Cut(line, "| <- "); ok {
			answers = append(answers, "<- "+strings.TrimSpace(after))
		}
	}
	want := []string{
		`id=1 result {"waited":80}`,
		`id=2 result {"waited":10}`,
		`id=3 result {}`,
		`id=5 error -32600`,
		`id=null error -32700`,
	}
	if got := answerKeys(t, answers); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s up printed the answers %q, want %q\n%s", p.tool.name, got, want, out)
	}
	if !strings.Contains(out, "Recorded sample: no model answered") {
		t.Errorf("%s up: no \"Recorded sample\" line although no ai service runs:\n%s", p.tool.name, out)
	}

	// LESSON=3: the day's demonstration, the lab's client between the
	// two servers it plays, and lab client graded inside the container.
	three := *p
	three.lesson = "3"
	out, _, err = three.run(ctx, "up", "--no-color", "--exit-code-from", "lab")
	if err != nil {
		t.Fatal(err)
	}
	var replies []string
	for _, line := range strings.Split(out, "\n") {
		if _, after, ok := strings.Cut(line, "| client -> you  "); ok {
			replies = append(replies, after)
		}
	}
	if len(replies) != 6 || !strings.Contains(replies[5], `[16000 more characters were cut from this result.]","isError":false}`) {
		t.Errorf("LESSON=3 %s up printed %d answers (want 6, the last the long note cut to 8052 characters):\n%s", p.tool.name, len(replies), out)
	}
	out, _, err = p.run(ctx, "run", "--rm", "-T", "lab", "grade", "--lesson", "3", "--", "/lab", "client")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "14/14 points") {
		t.Errorf("%s run lab grade --lesson 3 -- /lab client:\n%s", p.tool.name, out)
	}

	// Grade the reference server inside the container.
	out, _, err = p.run(ctx, "run", "--rm", "-T", "lab", "grade", "--", "/lab", "serve", "reader")
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(out) == "" {
		t.Errorf("%s run lab grade printed nothing", p.tool.name)
	}

	// Grade a server binary mounted from the host, as the README tells
	// students to: here the lab binary itself plays the student's server.
	mount := filepath.Join(p.dir, "dist") + ":/work/myserver:ro"
	if _, _, err := p.run(ctx, "run", "--rm", "-T", "-v", mount, "lab", "grade", "--", "/work/myserver/lab", "serve", "reader"); err != nil {
		t.Fatal(err)
	}
}

// testComposeWorkbench builds the workbench with Compose (offline: on the
// runner image) and grades py-good's and js-good's servers in the student's
// folder with `run --rm -T workbench lab grade`, as the README shows.
func testComposeWorkbench(ctx context.Context, t *testing.T, p *composeProject) {
	e := newEngine(ctx, t)
	needRunnerImage(ctx, t, e)
	if _, _, err := p.run(ctx, "build", "workbench"); err != nil {
		t.Fatal(err)
	}
	// The shell reads its commands from stdin when there is no terminal.
	out, _, err := p.runStdin(ctx, "id -u; node --version; python3 --version; ls\n", "run", "--rm", "-T", "workbench")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 5 || !strings.HasPrefix(lines[1], "v") || !strings.HasPrefix(lines[2], "Python 3") || lines[3] != "server.js" || lines[4] != "server.py" {
		t.Errorf("%s run workbench with a script on stdin printed:\n%s\nwant the uid, node's and python's versions, and the folder's two files", p.tool.name, indent(out))
	}
	if os.Geteuid() == 0 && lines[0] != fmt.Sprint(studentUID) {
		t.Errorf("%s run workbench ran as uid %s, want %d, the folder's owner", p.tool.name, lines[0], studentUID)
	}
	for _, server := range [][]string{{"python3", "server.py"}, {"node", "server.js"}} {
		stdout, stderr, err := p.run(ctx, append([]string{"run", "--rm", "-T", "workbench"}, gradeArgs(server...)...)...)
		if err != nil {
			t.Fatal(err)
		}
		v, err := parseVerdict(stdout, stderr, 0)
		if err != nil {
			t.Fatal(err)
		}
		if v.Score != v.MaxScore || v.Outcome.Kind != "passed" {
			t.Errorf("%s run workbench lab grade -- %s: %v, want full marks", p.tool.name, strings.Join(server, " "), v)
		}
	}
}
