"""A hostile submission: it leaves System V IPC objects behind for a classmate.

Under the key 0x4d43504c ("MCPL") it makes a 256 MiB shared memory segment
that holds a message for hostile-ipc-reader, a message queue and a semaphore
set, and a file in /run/lock; it removes none of them, and then runs the
correct Python server. Isolated, the reader never sees the segment, and none
of them outlives the job.
"""
import ctypes
import os
import sys

IPC_CREAT = 0o1000
KEY = 0x4D43504C
MESSAGE = b"hostile-ipc-writer was here\0"

libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
libc.shmat.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
made = []
shm = libc.shmget(KEY, 256 << 20, IPC_CREAT | 0o666)
if shm >= 0:
    addr = libc.shmat(shm, None, 0)
    if addr not in (None, ctypes.c_void_p(-1).value):
        ctypes.memmove(addr, MESSAGE, len(MESSAGE))
        made.append("segment")
if libc.msgget(KEY, IPC_CREAT | 0o666) >= 0:
    made.append("queue")
if libc.semget(KEY, 1, IPC_CREAT | 0o666) >= 0:
    made.append("semaphores")
try:
    with open("/run/lock/hostile-ipc-%d" % os.getpid(), "w") as f:
        f.write("x")
    made.append("lock file")
except OSError:
    pass
sys.stderr.write("hostile-ipc-writer: left %s\n" % (", ".join(made) or "nothing"))
sys.stderr.flush()
here = os.path.dirname(os.path.abspath(__file__))
server = os.path.join(here, "..", "..", "servers", "student_py", "server.py")
os.execvp("python3", ["python3", server])
