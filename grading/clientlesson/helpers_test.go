package clientlesson_test

import (
	"context"
	"flag"
	"sync"
	"testing"

	"github.com/mcplab/mcplab/grading"
	"github.com/mcplab/mcplab/grading/clientlesson"
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

func osMkdirTemp() (string, error) { return tempRoot, nil }

// labBinary builds the lab, once per test run: the reference client and
// the relay to a client lesson's stdio servers.
var labBinary = sync.OnceValues(func() (string, error) {
	return testkit.GoBuild(tempRoot, "lab", "github.com/mcplab/mcplab/cmd/lab")
})

// bin is the path of a binary the tests build; only "lab" is built here.
func bin(t testing.TB, name string) string {
	t.Helper()
	if name != "lab" {
		t.Fatalf("no test binary %q", name)
	}
	exe, err := labBinary()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

// grade grades the client starter starts for the lesson opts name.
func grade(t *testing.T, starter proc.Starter, opts grading.Options) *grading.Result {
	t.Helper()
	opts.Student = starter
	res, err := clientlesson.Grade(context.Background(), opts)
	if err != nil {
		t.Fatalf("Grade: %v", err)
	}
	return res
}
