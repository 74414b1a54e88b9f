package docker_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	dockerspec "github.com/moby/docker-image-spec/specs-go/v1"
	"github.com/moby/moby/api/types/build"
	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"
	tclog "github.com/testcontainers/testcontainers-go/log"

	"github.com/mcplab/mcplab/internal/testkit"
)

// maxImageBytes is the size budget of the lab image. It was 15 MiB until
// the html format: html/template's reflection keeps every exported method
// of the binary's types, which took the stripped lab from 13.3 MB to
// 16.8 MB. An unstripped or cgo build is well over 18 MiB.
const maxImageBytes = 18 << 20

// TestImage builds the image from docker/Dockerfile (target runtime, legacy
// builder, nothing pulled) once, then checks it against the same lab binary
// run on this machine.
func TestImage(t *testing.T) {
	needEngine(t)
	ctx, cancel := testkit.TestContext(t)
	defer cancel()

	dir := t.TempDir()
	bin := buildLab(t, dir)
	buildContext(t, dir)
	e := newEngine(ctx, t)
	e.image = buildImage(ctx, t, e, dir, "runtime", "mcplab/lab", build.BuilderV1, nil)

	t.Run("config", func(t *testing.T) { testImageConfig(ctx, t, e) })
	t.Run("version", func(t *testing.T) { testVersion(ctx, t, e) })
	t.Run("lesson1", func(t *testing.T) { testLesson1(ctx, t, e, bin) })
	t.Run("serve", func(t *testing.T) { testServe(ctx, t, e, bin) })
	t.Run("failures", func(t *testing.T) { testFailures(ctx, t, e, bin) })
}

func newEngine(ctx context.Context, t *testing.T) *engine {
	t.Helper()
	cli, err := testcontainers.NewDockerClientWithOpts(ctx)
	if err != nil {
		t.Fatalf("docker client: %v", err)
	}
	t.Cleanup(func() { _ = cli.Close() })
	return &engine{cli: cli}
}

// buildImage builds a stage of the Dockerfile in dir (docker/Dockerfile)
// with the given builder, as repo:test-N, and returns the image's name; the
// image is removed when the test ends. The legacy builder (build.BuilderV1,
// as docker-compose v1 and docker/build-local.sh use) builds every stage up
// to the target, so a target that comes before any stage needing a registry
// is built without one, and the stages before the target are left as
// untagged images; BuildKit builds only what the target needs.
func buildImage(ctx context.Context, t *testing.T, e *engine, dir, target, repo string, builder build.BuilderVersion, args map[string]*string) string {
	t.Helper()
	provider, err := testcontainers.NewDockerProvider(testcontainers.WithLogger(tclog.TestLogger(t)))
	if err != nil {
		t.Fatalf("docker provider: %v", err)
	}
	defer provider.Close()
	var buildLog strings.Builder
	req := &testcontainers.ContainerRequest{FromDockerfile: testcontainers.FromDockerfile{
		Context:        dir,
		Dockerfile:     "docker/Dockerfile",
		Repo:           repo,
		Tag:            fmt.Sprintf("test-%d", time.Now().UnixNano()),
		BuildArgs:      args,
		BuildLogWriter: &buildLog,
		BuildOptionsModifier: func(o *client.ImageBuildOptions) {
			o.Target = target
			o.Version = builder
		},
	}}
	start := time.Now()
	image, err := provider.BuildImage(ctx, req)
	if err != nil {
		t.Fatalf("build docker/Dockerfile, target %s: %v\nbuild log:\n%s", target, err, buildLog.String())
	}
	t.Logf("built %s (target %s) in %v", image, target, time.Since(start).Round(time.Millisecond))
	t.Cleanup(func() {
		_, err := e.cli.ImageRemove(context.Background(), image, client.ImageRemoveOptions{Force: true, PruneChildren: true})
		if err != nil {
			t.Errorf("remove image %s: %v", image, err)
		}
	})
	return image
}

// imageConfig inspects e's image, logs its size, checks it against a
// budget of max bytes (hint says where to look when it is over) and returns
// the image's settings.
func imageConfig(ctx context.Context, t *testing.T, e *engine, max int64, hint string) *dockerspec.DockerOCIImageConfig {
	t.Helper()
	info, err := e.cli.ImageInspect(ctx, e.image)
	if err != nil {
		t.Fatalf("inspect %s: %v", e.image, err)
	}
	t.Logf("image %s: %d bytes", e.image, info.Size)
	if info.Size > max {
		t.Errorf("image %s is %d bytes, want at most %d: %s", e.image, info.Size, max, hint)
	}
	if info.Config == nil {
		t.Fatalf("image %s has no config", e.image)
	}
	return info.Config
}

// testImageConfig checks the image's size budget and its runtime settings.
func testImageConfig(ctx context.Context, t *testing.T, e *engine) {
	cfg := imageConfig(ctx, t, e, maxImageBytes, "is dist/lab built with CGO_ENABLED=0 -trimpath -ldflags '-s -w'?")
	if cfg.User != "65532:65532" {
		t.Errorf("image user %q, want 65532:65532 (not root)", cfg.User)
	}
	if !slices.Equal(cfg.Entrypoint, []string{"/lab"}) || !slices.Equal(cfg.Cmd, []string{"run"}) {
		t.Errorf("image entrypoint %q cmd %q, want [/lab] [run]", cfg.Entrypoint, cfg.Cmd)
	}
	if cfg.WorkingDir != "/work" {
		t.Errorf("image working directory %q, want /work", cfg.WorkingDir)
	}
}

// testVersion checks that the binary in the image carries the version stamp.
func testVersion(ctx context.Context, t *testing.T, e *engine) {
	out, _, err := e.runContainer(ctx, t, nil, "version")
	if err != nil {
		t.Fatal(err)
	}
	if out != "lab container-test\n" {
		t.Errorf("lab version in the container printed %q, want %q", out, "lab container-test\n")
	}
}

// transcript is the output of `lab run` cut into the parts whose order is
// fixed: the chunks sent, the server's log lines and the other lines, in
// order; the answers, whose order JSON-RPC leaves free, sorted. The one log
// line that depends on timing is made stable (see stableLog).
type transcript struct {
	Sent, Stderr, Answers, Other []string
}

func parseTranscript(out string) transcript {
	var tr transcript
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		switch {
		case strings.HasPrefix(line, "-> "):
			tr.Sent = append(tr.Sent, line)
		case strings.HasPrefix(line, "stderr "):
			tr.Stderr = append(tr.Stderr, "stderr "+stableLog(strings.TrimPrefix(line, "stderr ")))
		case strings.HasPrefix(line, "<- "):
			tr.Answers = append(tr.Answers, line)
		case strings.HasPrefix(line, "-- no stderr line containing ") && strings.HasSuffix(line, "going on without it"):
			// lab run waits a few seconds for the server's ready line,
			// then goes on: whether it had to depends on the machine's
			// load (a CI run's local run did, its container run did not),
			// and changes nothing the server answers.
		default:
			tr.Other = append(tr.Other, line)
		}
	}
	slices.Sort(tr.Answers)
	return tr
}

// answerKeys reads each "<- " line as a JSON-RPC response and describes it
// as "id=ID result" or "id=ID error CODE", sorted.
func answerKeys(t *testing.T, answers []string) []string {
	t.Helper()
	var keys []string
	for _, a := range answers {
		var r struct {
			ID     json.RawMessage `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Code int `json:"code"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(strings.TrimPrefix(a, "<- ")), &r); err != nil {
			t.Errorf("answer line %q is not a JSON-RPC response: %v", a, err)
			continue
		}
		switch {
		case r.Error != nil:
			keys = append(keys, fmt.Sprintf("id=%s error %d", r.ID, r.Error.Code))
		case r.Result != nil:
			keys = append(keys, fmt.Sprintf("id=%s result %s", r.ID, r.Result))
		default:
			keys = append(keys, fmt.Sprintf("id=%s neither result nor error", r.ID))
		}
	}
	slices.Sort(keys)
	return keys
}

// testLesson1 runs lesson 1 in a container with no network, with and without
// the model step, and compares the transcript with a local run.
func testLesson1(ctx context.Context, t *testing.T, e *engine, bin string) {
	localOut, _, _, err := runLocal(ctx, bin, "run", "--no-model")
	if err != nil {
		t.Fatal(err)
	}
	local := parseTranscript(localOut)
	wantKeys := []string{
		`id=1 result {"waited":80}`,
		`id=2 result {"waited":10}`,
		`id=3 result {}`,
		`id=5 error -32600`,
		`id=null error -32700`,
	}
	if got := answerKeys(t, local.Answers); !slices.Equal(got, wantKeys) {
		t.Fatalf("the local run's answers are %q, want %q\n%s", got, wantKeys, localOut)
	}

	t.Run("no-model", func(t *testing.T) {
		out, _, err := e.runContainer(ctx, t, nil, "run", "--no-model")
		if err != nil {
			t.Fatal(err)
		}
		if got := parseTranscript(out); !reflect.DeepEqual(got, local) {
			t.Errorf("lab run --no-model in the container:\n%s\nlocally:\n%s\n(answers compared in any order)", out, localOut)
		}
	})

	t.Run("recorded-sample", func(t *testing.T) {
		// No network: the model at AI_URL cannot answer, so the run falls
		// back to the recorded sample and still exits 0.
		out, _, err := e.runContainer(ctx, t, nil, "run")
		if err != nil {
			t.Fatal(err)
		}
		got := parseTranscript(out)
		if !slices.Equal(got.Sent, local.Sent) || !slices.Equal(got.Stderr, local.Stderr) || !slices.Equal(got.Answers, local.Answers) {
			t.Errorf("lab run in the container:\n%s\nlocally (--no-model):\n%s", out, localOut)
		}
		sample, err := os.ReadFile(filepath.Join(repoRoot(t), "lessons", "01-reading-messages", "model", "sample.txt"))
		if err != nil {
			t.Fatal(err)
		}
		n := len(local.Other)
		if len(got.Other) != n+2 || !slices.Equal(got.Other[:n], local.Other) ||
			!strings.HasPrefix(got.Other[n], "Recorded sample: no model answered (") ||
			got.Other[n+1] != "model: "+strings.TrimSpace(string(sample)) {
			t.Errorf("lab run in the container ends with %q, want the local run's %q then \"Recorded sample: no model answered (REASON).\" and \"model: %s\"",
				got.Other, local.Other, strings.TrimSpace(string(sample)))
		}
	})
}

// serveStep is one write to a stdio server and the number of answer lines
// it must bring back before the next write.
type serveStep struct {
	chunk   string
	answers int
}

// serveSteps splits messages across writes and packs several into one, so
// the server's framing is exercised the same way in both runs. Each step
// waits for its answers, so the answer order is fixed. The last line has no
// newline: it ends with stdin.
func serveSteps() []serveStep {
	return []serveStep{
		{`{"jsonrpc":"2.0","id":1,"me`, 0},
		{`thod":"ping"}` + "\n", 1},
		{"not json at all\n", 1},
		{`{"jsonrpc":"2.0","id":5,"method":5}` + "\n" + `{"jsonrpc":"2.0","method":"notifications/x"}` + "\n", 1},
		{`{"jsonrpc":"2.0","id":"a-b","method":"wait","params":{"ms":5}}` + "\n", 1},
		{"[1,2]\n", 1},
		{`{"jsonrpc":"2.0","id":7,"method":"no/such"}` + "\n" + `{"jsonrpc":"2.0","id":8,`, 1},
		{`"method":"ping"}` + "\n" + `{"jsonrpc":"2.0","id":9,"method":"ping"}`, 1},
	}
}

// drive waits for the server's ready line, plays serveSteps, closes stdin and
// returns all the server wrote to stdout.
func drive(ctx context.Context, p *stdioProc) (string, error) {
	if err := p.waitReady(ctx, "log: ready"); err != nil {
		return "", err
	}
	for i, s := range serveSteps() {
		if _, err := p.stdin.Write([]byte(s.chunk)); err != nil {
			return "", fmt.Errorf("%s: write step %d: %w\n%s", p.name, i+1, err, p.logs())
		}
		for n := 0; n < s.answers; n++ {
			if _, err := p.stdout.next(ctx); err != nil {
				return "", fmt.Errorf("%s: answer %d of step %d (%q): %w\n%s", p.name, n+1, i+1, s.chunk, err, p.logs())
			}
		}
	}
	if err := p.finish(ctx); err != nil {
		return "", err
	}
	return p.stdout.String(), nil
}

// testServe drives `lab serve reader` in a container through its attached
// stdin and stdout, and locally, with the same chunks, and wants the same
// bytes back.
func testServe(ctx context.Context, t *testing.T, e *engine, bin string) {
	local, err := startLocal(ctx, bin, "serve", "reader")
	if err != nil {
		t.Fatal(err)
	}
	want, err := drive(ctx, local)
	if err != nil {
		t.Fatal(err)
	}
	remote, err := e.startContainer(ctx, t, containerOpts{stdin: true, args: []string{"serve", "reader"}})
	if err != nil {
		t.Fatal(err)
	}
	got, err := drive(ctx, remote)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("lab serve reader answered, in the container as locally:\n%s", want)
	if got != want {
		t.Errorf("lab serve reader in the container answered:\n%s\nlocally:\n%s", got, want)
	}
	// The steps bring back 7 answers, and the last line, sent without a
	// newline, is answered at end of input.
	if lines := strings.Count(want, "\n"); lines != 8 {
		t.Errorf("lab serve reader answered %d lines, want 8:\n%s", lines, want)
	}
	// The log is the same too, but for how many requests were still in
	// flight when stdin closed: that depends on timing.
	if stableLog(local.stderr.String()) != stableLog(remote.stderr.String()) {
		t.Errorf("lab serve reader logged in the container:\n%s\nlocally:\n%s", remote.stderr.String(), local.stderr.String())
	}
}

// stableLog drops the count from the server's "input closed; answering the
// N requests still in flight" line.
func stableLog(log string) string {
	lines := strings.Split(log, "\n")
	for i, line := range lines {
		if strings.HasPrefix(line, "log: input closed;") {
			lines[i] = "log: input closed; (requests in flight)"
		}
	}
	return strings.Join(lines, "\n")
}

// testFailures checks that a container that fails, or never gets ready, is
// reported with what it printed.
func testFailures(ctx context.Context, t *testing.T, e *engine, bin string) {
	t.Run("exit-status", func(t *testing.T) {
		_, localErr, code, _ := runLocal(ctx, bin, "bogus")
		if code == 0 || localErr == "" {
			t.Fatalf("local lab bogus exited %d with stderr %q; want a failure with a message", code, localErr)
		}
		_, _, err := e.runContainer(ctx, t, nil, "bogus")
		if err == nil {
			t.Fatal("lab bogus in a container: no error, want its exit status and logs")
		}
		for _, want := range []string{fmt.Sprintf("exited with status %d", code), firstLine(localErr)} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("the error for lab bogus does not contain %q:\n%v", want, err)
			}
		}
	})
	t.Run("exits-before-ready", func(t *testing.T) {
		_, localErr, _, _ := runLocal(ctx, bin, "serve", "no-such-server")
		p, err := e.startContainer(ctx, t, containerOpts{stdin: true, args: []string{"serve", "no-such-server"}})
		if err != nil {
			t.Fatal(err)
		}
		err = p.waitReady(ctx, "log: ready")
		if err == nil {
			t.Fatal("lab serve no-such-server got ready, want an error")
		}
		if !strings.Contains(err.Error(), "before it printed \"log: ready\"") || !strings.Contains(err.Error(), firstLine(localErr)) {
			t.Errorf("the error for lab serve no-such-server does not say it exited and what it printed (%q):\n%v", firstLine(localErr), err)
		}
	})
	t.Run("never-ready", func(t *testing.T) {
		p, err := e.startContainer(ctx, t, containerOpts{stdin: true, args: []string{"serve", "reader"}})
		if err != nil {
			t.Fatal(err)
		}
		short, cancel := context.WithTimeout(ctx, 3*time.Second)
		defer cancel()
		err = p.waitReady(short, "log: never printed")
		if err == nil {
			t.Fatal("waiting for a line the server never prints: no error")
		}
		if !strings.Contains(err.Error(), "log: ready") || !strings.Contains(err.Error(), context.DeadlineExceeded.Error()) {
			t.Errorf("the error for a server that never gets ready lacks its logs or the reason:\n%v", err)
		}
		if err := p.finish(ctx); err != nil {
			t.Errorf("closing the server's stdin: %v", err)
		}
	})
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}
