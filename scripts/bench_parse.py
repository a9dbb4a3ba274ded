#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The measuring half of scripts/bench_parse.sh (see there): times commands side by side, round
after round (so a noisy machine slows them alike), and prints a table per log.

    bench_parse.py DLCHECK JOBS RUNS LOG...
"""
import os
import re
import subprocess
import sys
import tempfile
import time

dlcheck, jobs, runs, logs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4:]


def timed(cmd):
    """Wall seconds and peak RSS (KB, GNU time's) of one run of `cmd` (a list), output dropped."""
    with open(os.devnull, "wb") as null, tempfile.NamedTemporaryFile("r") as rss:
        start = time.perf_counter()
        status = subprocess.call(["/usr/bin/time", "-f", "%M", "-o", rss.name] + cmd,
                                 stdout=null, stderr=null)
        wall = time.perf_counter() - start
        if status != 0:
            sys.exit(f"bench_parse: {' '.join(cmd)} failed (status {status})")
        return wall, int(rss.read().split()[-1])


def instructions(cmd):
    """Instructions callgrind counts for `cmd` (user space, all threads). The slice is smaller than
    the 64 MiB a file needs to be read in parallel: DLCHECK_PARSE_CHUNK cuts it into 1 MiB chunks,
    so that the N-thread figure counts the threads' work and the replay."""
    env = dict(os.environ, DLCHECK_PARSE_CHUNK=str(1 << 20))
    out = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"] + cmd,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                         env=env).stderr
    m = re.search(r"Collected : (\d+)", out)
    return int(m.group(1)) if m else None


def slice_of(log, size=8_000_000):
    """The first `size` bytes of `log`, cut at a line end, for callgrind."""
    path = log + ".slice"
    if not os.path.exists(path) or os.path.getmtime(path) < os.path.getmtime(log):
        with open(log, "rb") as f:
            data = f.read(size)
        with open(path, "wb") as f:
            f.write(data[: data.rfind(b"\n") + 1])
    return path


def per_byte(cmd, log):
    """Callgrind's instructions per byte of `cmd` on a slice of `log`, less what the command
    costs on an empty log (the start of a 100 MB binary: the dynamic linker, oneDNN's
    constructors), so that the figure is the per-byte cost."""
    sl = slice_of(log)
    empty = log + ".empty"
    open(empty, "w").close()
    full = instructions([sl if a == log else a for a in cmd])
    base = instructions([empty if a == log else a for a in cmd])
    if full is None or base is None:
        return None
    return (full - base) / os.path.getsize(sl)


def commands(log):
    parse = [dlcheck, "parse", "--format", "json", "--output", os.devnull]
    return [("wc -l", ["wc", "-l", log]),
            ("cat >/dev/null", ["cat", log]),
            ("dlcheck --jobs 1", parse + ["--jobs", "1", log]),
            (f"dlcheck --jobs {jobs}", parse + ["--jobs", str(jobs), log])]


def lines(log):
    with open(log, "rb") as f:
        return sum(chunk.count(b"\n") for chunk in iter(lambda: f.read(1 << 20), b""))


for log in logs:
    size = os.path.getsize(log)
    subprocess.run(["cat", log], stdout=subprocess.DEVNULL)  # into the page cache
    names = [name for name, _ in commands(log)]
    walls = {name: [] for name in names}
    rss = {name: 0 for name in names}
    for _ in range(runs):
        for name, cmd in commands(log):
            wall, peak = timed(cmd)
            walls[name].append(wall)
            rss[name] = max(rss[name], peak)
    with open("/proc/loadavg") as f:
        load = " ".join(f.read().split()[:3])
    print(f"== {os.path.basename(log)}: {size / 1e6:.0f} MB, {lines(log)} lines; median of {runs} "
          f"runs, load average after: {load}")
    print(f"{'command':<18} {'GB/s':>6} {'x wc -l':>8} {'peak RSS':>10} {'instr/byte':>11}")
    wc = sorted(walls["wc -l"])[runs // 2]
    for name, cmd in commands(log):
        median = sorted(walls[name])[runs // 2]
        ipb = per_byte(cmd, log)
        ipb_text = f"{ipb:11.2f}" if ipb is not None else f"{'-':>11}"
        print(f"{name:<18} {size / median / 1e9:6.2f} {wc / median:8.2f} "
              f"{rss[name] / 1024:8.1f}MB {ipb_text}", flush=True)
