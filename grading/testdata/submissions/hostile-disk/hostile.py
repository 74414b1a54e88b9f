"""A hostile submission: it fills its scratch folder.

It writes 32 MiB files into $LAB_WORK until a write fails or 1 GiB is
written, and keeps them. When a write failed, it says so on stderr and
exits with status 1, as a server that needs the room it could not get would;
otherwise it runs the correct Python server.
"""
import os
import sys

work = os.environ.get("LAB_WORK", "/nonexistent")
chunk = b"\0" * (32 << 20)
written = 0
i = 0
while written < (1 << 30):
    try:
        with open(os.path.join(work, "fill-%d-%d" % (os.getpid(), i)), "wb") as f:
            f.write(chunk)
        written += len(chunk)
    except OSError as e:
        sys.stderr.write("hostile-disk: stopped after %d MiB: %s\n" % (written >> 20, os.strerror(e.errno or 0)))
        sys.exit(1)
    i += 1
sys.stderr.flush()
here = os.path.dirname(os.path.abspath(__file__))
server = os.path.join(here, "..", "..", "servers", "student_py", "server.py")
os.execvp("python3", ["python3", server])
