"""A hostile submission: it fills shared memory and leaves files behind.

It writes up to 256 MiB to /dev/shm (in 16 MiB files, until a write fails),
and a 1 MiB file each to /tmp and /var/tmp, removes none of them, and then
runs the correct Python server.
"""
import os
import sys

chunk = b"\0" * (16 << 20)
written = 0
for i in range(16):
    try:
        with open("/dev/shm/hostile-shm-%d-%d" % (os.getpid(), i), "wb") as f:
            f.write(chunk)
        written += len(chunk)
    except OSError:
        break
for d in ("/tmp", "/var/tmp"):
    try:
        with open(os.path.join(d, "hostile-shm-%d" % os.getpid()), "wb") as f:
            f.write(b"x" * (1 << 20))
    except OSError:
        pass
sys.stderr.write("hostile-shm: wrote %d MiB to /dev/shm\n" % (written >> 20))
sys.stderr.flush()
here = os.path.dirname(os.path.abspath(__file__))
server = os.path.join(here, "..", "..", "servers", "student_py", "server.py")
os.execvp("python3", ["python3", server])
