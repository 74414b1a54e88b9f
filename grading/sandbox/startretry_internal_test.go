package sandbox

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mcplab/mcplab/lab/proc"
)

// TestStartRetrying holds the container start to its rule: an engine call
// that ran out of its bound is tried again, once; anything else, or a
// cancelled grader, ends the start at once.
func TestStartRetrying(t *testing.T) {
	slow := fmt.Errorf("starting the container: %w", context.DeadlineExceeded)
	refused := errors.New("creating the container: no such image")
	cases := []struct {
		name      string
		errs      []error // what each attempt returns; nil succeeds
		cancel    bool
		wantCalls int
		wantErr   []string // "" for success
	}{
		{"first try", []error{nil}, false, 1, nil},
		{"slow once", []error{slow, nil}, false, 2, nil},
		{"slow twice", []error{slow, slow}, false, 2, []string{"2 times in a row", "never run", "says nothing about the program", "attempt 1", "attempt 2"}},
		{"refused", []error{refused}, false, 1, []string{"no such image"}},
		{"slow then refused", []error{slow, refused}, false, 2, []string{"attempt 1", "no such image"}},
		{"grader cancelled", []error{slow}, true, 1, []string{"deadline exceeded"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			calls := 0
			p, err := startRetrying(ctx, func(context.Context) (proc.Process, error) {
				err := tc.errs[calls]
				calls++
				if tc.cancel {
					cancel()
				}
				if err != nil {
					return nil, err
				}
				return startedProc{}, nil
			})
			if calls != tc.wantCalls {
				t.Errorf("%d attempts, want %d", calls, tc.wantCalls)
			}
			if tc.wantErr == nil {
				if err != nil || p == nil {
					t.Fatalf("got %v, %v; want a process", p, err)
				}
				return
			}
			if err == nil {
				t.Fatal("started; want an error")
			}
			for _, w := range tc.wantErr {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			if tc.name == "refused" && strings.Contains(err.Error(), "never run") {
				t.Errorf("error %q blames the engine for a refusal", err)
			}
		})
	}
}

// startedProc stands for a process a start gave back.
type startedProc struct{ proc.Process }
