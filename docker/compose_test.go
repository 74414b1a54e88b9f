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
}

// run runs the Compose tool with args in the project and returns its stdout
// and stderr; an exit status other than 0 is an error carrying both.
func (p *composeProject) run(ctx context.Context, args ...string) (stdout, stderr string, err error) {
	argv := append(append([]string{}, p.tool.argv...), args...)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = p.dir
	cmd.Env = append(os.Environ(),
		"COMPOSE_PROJECT_NAME="+p.name,
		"LAB_IMAGE="+p.image,
		"LAB_TARGET=runtime", // no registry here: the stage that copies dist/lab
		"COMPOSE_PROFILES=",  // only the services without a profile
	)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		return out.String(), errOut.String(), fmt.Errorf("%s %s: %w\nstdout:\n%s\nstderr:\n%s",
			p.tool.name, strings.Join(args, " "), err, indent(out.String()), indent(errOut.String()))
	}
	return out.String(), errOut.String(), nil
}

// TestCompose runs the stack the way a student does, with each Compose
// implementation on this machine: `up` plays lesson 1 and exits 0, and
// `run lab grade` grades a server inside the container.
func TestCompose(t *testing.T) {
	needEngine(t)
	tools := composeTools()
	if len(tools) == 0 {
		if os.Getenv("MCPLAB_REQUIRE_DOCKER") == "1" {
			t.Fatal("neither docker-compose nor docker compose is installed (docker/engine.sh installs docker-compose)")
		}
		t.Skip("neither docker-compose nor docker compose is installed")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()

	dir := t.TempDir()
	buildLab(t, dir)
	buildContext(t, dir, "docker-compose.yml", "docker/litellm.yaml")

	for i, tool := range tools {
		t.Run(tool.version, func(t *testing.T) {
			p := &composeProject{
				tool:  tool,
				dir:   dir,
				name:  fmt.Sprintf("mcplabtest%d%d", time.Now().UnixNano()%1_000_000_000, i),
				image: fmt.Sprintf("mcplab/lab:compose-test-%d-%d", time.Now().UnixNano(), i),
			}
			t.Cleanup(func() {
				ctx := context.Background()
				if _, _, err := p.run(ctx, "down", "--volumes", "--remove-orphans"); err != nil {
					t.Errorf("clean up: %v", err)
				}
				if out, err := exec.CommandContext(ctx, "docker", "image", "rm", "-f", p.image).CombinedOutput(); err != nil {
					t.Errorf("clean up: docker image rm %s: %v\n%s", p.image, err, out)
				}
			})
			testComposeStack(ctx, t, p)
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
