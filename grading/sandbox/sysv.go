package sandbox

// SysVObject is a System V IPC object as the kernel lists it in
// /proc/sysvipc: Kind is "shm", "msg" or "sem", Key the key it was made
// under, ID its identifier, UID and CUID its owner and creator. Only Linux
// lists any (see SysVObjects).
type SysVObject struct {
	Kind      string
	Key       int64
	ID        int
	UID, CUID int
}

// of reports whether uid owns or created the object.
func (o SysVObject) of(uid int) bool { return o.UID == uid || o.CUID == uid }
