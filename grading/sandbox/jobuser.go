package sandbox

import "os"

// JobUser returns the uid and gid the started program runs as, or -1 and
// -1 when it keeps the grader's own user: the grader gives the folders and
// sockets it makes for the job to that user alone.
func (ps *processStarter) JobUser() (uid, gid int, err error) { return ps.sb.User(ps.spec.Slot) }

// JobUser returns the uid and gid the started program runs as in its
// container, or -1 and -1 when that is the grader's own user.
func (cs *containerStarter) JobUser() (uid, gid int, err error) {
	if os.Geteuid() != 0 {
		return -1, -1, nil
	}
	uid, gid = cs.c.user()
	return uid, gid, nil
}
