//go:build linux

package sandbox

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// ipcRmid is IPC_RMID, the command of shmctl, msgctl and semctl that
// removes an object.
const ipcRmid = 0

// sysvTables are the kernel's tables of System V IPC objects, each with
// the call that removes one.
var sysvTables = []struct {
	file string
	rm   func(id int)
}{
	{"/proc/sysvipc/shm", func(id int) { _, _, _ = syscall.Syscall(syscall.SYS_SHMCTL, uintptr(id), ipcRmid, 0) }},
	{"/proc/sysvipc/msg", func(id int) { _, _, _ = syscall.Syscall(syscall.SYS_MSGCTL, uintptr(id), ipcRmid, 0) }},
	// semctl(id, semnum, cmd): the command comes third.
	{"/proc/sysvipc/sem", func(id int) { _, _, _ = syscall.Syscall6(syscall.SYS_SEMCTL, uintptr(id), 0, ipcRmid, 0, 0, 0) }},
}

// maxSysvTable bounds what is read of one table: each object takes a line
// of about 200 bytes, and the kernel allows 32000 queues or segments by
// default.
const maxSysvTable = 16 << 20

// SysVObjects lists the System V shared memory segments, message queues
// and semaphore sets of the caller's IPC namespace.
func SysVObjects() ([]SysVObject, error) {
	var out []SysVObject
	for _, t := range sysvTables {
		objs, err := readSysv(t.file)
		if err != nil {
			return nil, err
		}
		out = append(out, objs...)
	}
	return out, nil
}

// SysVObjectsOf lists the System V objects of the caller's IPC namespace
// that uid owns or created.
func SysVObjectsOf(uid int) ([]SysVObject, error) {
	all, err := SysVObjects()
	var out []SysVObject
	for _, o := range all {
		if o.of(uid) {
			out = append(out, o)
		}
	}
	return out, err
}

// readSysv parses one table of /proc/sysvipc. Every table starts with the
// key and the id; the owner's uid is the column named "uid", its
// creator's "cuid".
func readSysv(file string) ([]SysVObject, error) {
	f, err := os.Open(file)
	if os.IsNotExist(err) {
		return nil, nil // no System V IPC in this kernel
	}
	if err != nil {
		return nil, fmt.Errorf("reading the System V IPC objects: %w", err)
	}
	defer f.Close()
	kind := file[strings.LastIndexByte(file, '/')+1:]
	sc := bufio.NewScanner(io.LimitReader(f, maxSysvTable))
	if !sc.Scan() {
		return nil, sc.Err()
	}
	head := strings.Fields(sc.Text())
	col := func(name string) int {
		for i, h := range head {
			if h == name {
				return i
			}
		}
		return -1
	}
	idc, uidc, cuidc := 1, col("uid"), col("cuid")
	if uidc < 0 || cuidc < 0 {
		return nil, fmt.Errorf("reading %s: no uid or cuid column in %q", file, sc.Text())
	}
	var out []SysVObject
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) <= max(uidc, cuidc) {
			continue
		}
		key, err0 := strconv.ParseInt(fields[0], 10, 64)
		id, err1 := strconv.Atoi(fields[idc])
		uid, err2 := strconv.Atoi(fields[uidc])
		cuid, err3 := strconv.Atoi(fields[cuidc])
		if err0 != nil || err1 != nil || err2 != nil || err3 != nil {
			continue
		}
		out = append(out, SysVObject{Kind: kind, Key: key, ID: id, UID: uid, CUID: cuid})
	}
	return out, sc.Err()
}

// removeSysvOf removes every System V IPC object uid owns or created in
// the launcher's IPC namespace (the machine's, when the kernel refused a
// namespace of its own): nothing a student made outlives the job.
func removeSysvOf(uid int) {
	for _, t := range sysvTables {
		objs, err := readSysv(t.file)
		if err != nil {
			continue
		}
		for _, o := range objs {
			if o.of(uid) {
				t.rm(o.ID)
			}
		}
	}
}
