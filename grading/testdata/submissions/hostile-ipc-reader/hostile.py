"""A hostile submission: it reads a classmate's System V shared memory.

It looks for the segment hostile-ipc-writer leaves under the key 0x4d43504c;
if it finds one, it prints its message on stdout (a line that is not a
JSON-RPC message, so the grader's stdout.messages-only check fails, and only
that one), and then runs the correct Python server. Isolated, it finds
nothing and passes every check.
"""
import ctypes
import os
import sys

KEY = 0x4D43504C

libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
libc.shmat.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
shm = libc.shmget(KEY, 0, 0)
if shm >= 0:
    addr = libc.shmat(shm, None, 0)
    if addr not in (None, ctypes.c_void_p(-1).value):
        found = ctypes.string_at(addr, 64).split(b"\0")[0]
        os.write(1, b"hostile-ipc-reader found: " + found + b"\n")
        sys.stderr.write("hostile-ipc-reader: found a classmate's segment\n")
else:
    sys.stderr.write("hostile-ipc-reader: no segment of a classmate in sight\n")
sys.stderr.flush()
here = os.path.dirname(os.path.abspath(__file__))
server = os.path.join(here, "..", "..", "servers", "student_py", "server.py")
os.execvp("python3", ["python3", server])
