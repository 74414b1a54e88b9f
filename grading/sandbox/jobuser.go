package sandbox

import "os"

// JobUser returns the uid and gid the program runs as: the slot's own
// user, or -1 and -1 when it keeps the grader's own user.
func (ps *processJob) JobUser() (uid, gid int, err error) { return ps.sb.User(ps.spec.Slot) }

// JobUser returns the uid and gid the program runs as in its container, or
// -1 and -1 when that is the grader's own user.
func (cs *containerJob) JobUser() (uid, gid int, err error) {
	if os.Geteuid() != 0 {
		return -1, -1, nil
	}
	uid, gid = cs.c.user()
	return uid, gid, nil
}
