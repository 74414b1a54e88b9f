package clientlesson_test

import (
	"context"
	"flag"
	"sync"
	"testing"

	"github.com/mcplab/mcplab/grading"
	"github.com/mcplab/mcplab/grading/clientlesson"
	"github.com/mcplab/mcplab/internal/servers"
	"github.com/mcplab/mcplab/internal/testkit"
	"github.com/mcplab/mcplab/lab/proc"
)

var (
	stressN        = flag.Int("stress.n", 200, "grades of each client in BenchmarkStressClient")
	stressParallel = flag.Int("stress.parallel", 25, "grades run at once in BenchmarkStressClient")
)

// tempRoot holds the binaries the tests build; TestMain removes it.
var tempRoot string

func TestMain(m *testing.M) {
	testkit.MainInTemp(m, "mcplab-clientlesson-test-", func(dir string) { tempRoot = dir })
}

// builds are the binaries the tests build, by name, each once per test
// run: the lab (the reference client, and the relay to a client lesson's
// stdio servers), the hostile lesson-3 client, and the test client whose
// -mistake flag makes one mistake at a time.
var builds = map[string]func() (string, error){
	"lab":            buildOnce("lab", "github.com/mcplab/mcplab/cmd/lab"),
	"hostile-client": buildOnce("hostile-client", "../testdata/clients/hostile"),
	"student-client": buildOnce("student-client", "../testdata/clients/student"),
}

// buildOnce builds pkg into tempRoot/name on its first call.
func buildOnce(name, pkg string) func() (string, error) {
	return sync.OnceValues(func() (string, error) { return testkit.GoBuild(tempRoot, name, pkg) })
}

// bin is the path of the test binary name (one of builds), built on first
// use.
func bin(t testing.TB, name string) string {
	t.Helper()
	build, ok := builds[name]
	if !ok {
		t.Fatalf("no test binary %q", name)
	}
	exe, err := build()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

// labKind is the client kind with the lab's own servers, as
// internal/kinds makes it.
func labKind() clientlesson.Kind { return clientlesson.Kind{Servers: servers.ForRig} }

// grade grades the client starter starts for the lesson opts name.
func grade(t *testing.T, starter proc.Starter, opts grading.Options) *grading.Result {
	t.Helper()
	opts.Student = starter
	res, err := grading.GradeKind(context.Background(), labKind(), opts)
	if err != nil {
		t.Fatalf("Grade: %v", err)
	}
	return res
}
