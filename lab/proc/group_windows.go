//go:build windows

package proc

import (
	"errors"
	"fmt"
	"os/exec"
	"sync"
	"sync/atomic"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// jobKilledCode is the exit status TerminateJobObject gives every process
// of a job the lab ends; killedExit reads it back as "killed".
const jobKilledCode = 137

// jobGroup is a job object holding a program and every process it starts
// (a child joins its parent's job). It is made with
// JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE, so should the lab itself end, the
// system closes the handle and ends the job's processes too.
type jobGroup struct {
	job    windows.Handle
	once   sync.Once
	killed atomic.Bool
}

// startGroup starts cmd suspended, puts it in a new job object and only
// then lets it run, so nothing it starts can escape the job. Where a job
// cannot be made (an old system, or a compatibility layer without job
// objects) the program runs alone and only it can be ended.
func startGroup(cmd *exec.Cmd) (group, error) {
	job, err := newKillOnCloseJob()
	if err != nil {
		if err := cmd.Start(); err != nil {
			return nil, err
		}
		return processOnly{cmd}, nil
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: windows.CREATE_SUSPENDED}
	if err := cmd.Start(); err != nil {
		windows.CloseHandle(job)
		return nil, err
	}
	pid := uint32(cmd.Process.Pid)
	assignErr := assignToJob(job, pid)
	if err := resumeProcess(pid); err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		windows.CloseHandle(job)
		return nil, fmt.Errorf("letting the program run once started suspended: %w", err)
	}
	if assignErr != nil {
		windows.CloseHandle(job)
		return processOnly{cmd}, nil
	}
	return &jobGroup{job: job}, nil
}

// newKillOnCloseJob makes a job object whose processes all end when its
// last handle is closed.
func newKillOnCloseJob() (windows.Handle, error) {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return 0, fmt.Errorf("making a job object: %w", err)
	}
	var info windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(job)
		return 0, fmt.Errorf("setting a job object to end its processes when closed: %w", err)
	}
	return job, nil
}

// assignToJob puts the process pid in job.
func assignToJob(job windows.Handle, pid uint32) error {
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, pid)
	if err != nil {
		return fmt.Errorf("opening process %d: %w", pid, err)
	}
	defer windows.CloseHandle(h)
	if err := windows.AssignProcessToJobObject(job, h); err != nil {
		return fmt.Errorf("putting process %d in a job object: %w", pid, err)
	}
	return nil
}

// resumeProcess resumes the threads of the process pid, started suspended
// (it has one: its main thread).
func resumeProcess(pid uint32) error {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPTHREAD, 0)
	if err != nil {
		return fmt.Errorf("listing threads: %w", err)
	}
	defer windows.CloseHandle(snap)
	entry := windows.ThreadEntry32{Size: uint32(unsafe.Sizeof(windows.ThreadEntry32{}))}
	resumed := 0
	for err = windows.Thread32First(snap, &entry); err == nil; err = windows.Thread32Next(snap, &entry) {
		if entry.OwnerProcessID != pid {
			continue
		}
		th, err := windows.OpenThread(windows.THREAD_SUSPEND_RESUME, false, entry.ThreadID)
		if err != nil {
			return fmt.Errorf("opening thread %d of process %d: %w", entry.ThreadID, pid, err)
		}
		_, err = windows.ResumeThread(th)
		windows.CloseHandle(th)
		if err != nil {
			return fmt.Errorf("resuming thread %d of process %d: %w", entry.ThreadID, pid, err)
		}
		resumed++
	}
	if !errors.Is(err, windows.ERROR_NO_MORE_FILES) {
		return fmt.Errorf("listing threads: %w", err)
	}
	if resumed == 0 {
		return fmt.Errorf("process %d has no thread to resume", pid)
	}
	return nil
}

// kill ends every process in the job and closes it: the job holds
// nothing once its processes are ended, so a later kill has nothing to do.
func (g *jobGroup) kill() {
	g.once.Do(func() {
		g.killed.Store(true)
		_ = windows.TerminateJobObject(g.job, jobKilledCode)
		windows.CloseHandle(g.job)
	})
}

// killedExit says "killed" for a program the job's end ended, as a signal
// says it on other systems.
func (g *jobGroup) killedExit(e Exit) Exit {
	if g.killed.Load() && e.Err == nil && e.Code == jobKilledCode {
		return Exit{Code: -1, Signal: "killed"}
	}
	return e
}

// processOnly is a program started outside any job: only it can be ended.
type processOnly struct{ cmd *exec.Cmd }

// kill ends the program (what it started is not reached).
func (g processOnly) kill() { _ = g.cmd.Process.Kill() }
