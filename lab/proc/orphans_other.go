//go:build !linux

package proc

import (
	"context"
	"errors"
)

// Orphans hands the lab the processes its servers leave behind; only Linux
// has child subreapers, so elsewhere a daemon that left its server's
// process group (setsid) is not reached: Kill ends the group only.
type Orphans struct{}

// AdoptOrphans says that only Linux can hand the lab its servers' orphans.
func AdoptOrphans() (*Orphans, error) {
	return nil, errors.New("only Linux can hand the lab the processes its servers leave behind (PR_SET_CHILD_SUBREAPER)")
}

// KillAll does nothing: no orphan is handed to the lab here.
func (o *Orphans) KillAll(context.Context) (int, error) { return 0, nil }

// Close does nothing.
func (o *Orphans) Close() error { return nil }
