#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""`dlcheck run -f trace` of a PyTorch program lines up with torch.profiler's trace of the same run.

Runs tests/data/torch/conv_profile.py (five 3x3 convolutions under torch.profiler) under
`dlcheck run -f trace` and checks, on the epoch clock both use (CLOCK_REALTIME: oneDNN's
gettimeofday stamps, torch's clock_gettime), that each profiled aten::mkldnn_convolution span
holds exactly one oneDNN convolution execution of dlcheck's trace, and that every one of the
five does. dlcheck's event time is baseTimeNanoseconds / 1000 + ts. torch.profiler's is
baseTimeNanoseconds / 1000 + ts (kineto), ts itself (older kineto), or, for PyTorch without
kineto (Debian's 1.13), the profiler's start plus ts, where the start lies between two readings
the script takes around it: the tolerance is that bracket (about 0.3 ms) plus 2 us of clock
resolution. Exit 77 (skipped) when Debian's python3 has no torch.

Usage: torch_trace_test.py DLCHECK TORCH_SCRIPT WORK_DIR
"""
import json
import os
import subprocess
import sys

PYTHON = "/usr/bin/python3"
RESOLUTION_US = 2.0


def torch_times(trace, before_us, after_us):
    """The profiled convolutions as (earliest start, latest start, duration) in epoch us."""
    if isinstance(trace, dict):
        events = trace.get("traceEvents", [])
        base_us = trace.get("baseTimeNanoseconds", 0) / 1e3
        low = high = base_us
    else:
        events = trace
        low, high = before_us, after_us
    spans = []
    for e in events:
        if e.get("ph") == "X" and e.get("name") == "aten::mkldnn_convolution":
            spans.append((low + e["ts"], high + e["ts"], e["dur"], e.get("pid")))
    return spans


def main():
    dlcheck, script, work = sys.argv[1:4]
    if subprocess.run([PYTHON, "-c", "import torch"], capture_output=True).returncode != 0:
        print("skipped: /usr/bin/python3 has no torch (python3-torch)")
        return 77
    ours_path = os.path.join(work, "dlcheck_trace.json")
    torch_path = os.path.join(work, "torch_trace.json")
    anchor_path = os.path.join(work, "anchor.txt")
    run = subprocess.run([dlcheck, "run", "-f", "trace", "-o", ours_path, "--", PYTHON, script,
                          torch_path, anchor_path], capture_output=True, text=True)
    if run.returncode != 0:
        print("dlcheck run failed:", run.returncode, run.stderr)
        return 1
    ours = json.load(open(ours_path))
    before_ns, after_ns = map(int, open(anchor_path).read().split())
    spans = torch_times(json.load(open(torch_path)), before_ns / 1e3, after_ns / 1e3)
    base_us = ours["baseTimeNanoseconds"] / 1e3
    convs = [(base_us + e["ts"], e["dur"], e["pid"]) for e in ours["traceEvents"]
             if e["ph"] == "X" and e["cat"] == "convolution"]
    failures = []
    if len(spans) != 5:
        failures.append(f"torch.profiler traced {len(spans)} mkldnn convolutions, not 5")
    matched = 0
    for earliest, latest, dur, pid in spans:
        inside = [(start, d) for start, d, _ in convs
                  if start >= earliest - RESOLUTION_US and start + d <= latest + dur + RESOLUTION_US]
        if len(inside) != 1:
            failures.append(f"span at {earliest:.1f} us (+{latest - earliest:.1f}) for {dur} us "
                            f"holds {len(inside)} oneDNN convolutions")
            continue
        matched += 1
        start, d = inside[0]
        print(f"aten::mkldnn_convolution {earliest:.1f}..{latest + dur:.1f} us holds oneDNN's "
              f"{start:.1f}..{start + d:.1f} us (starts {start - latest:+.1f} to "
              f"{start - earliest:+.1f} us after it)")
        if isinstance(pid, int) and pid != convs[0][2]:
            failures.append(f"torch.profiler's pid {pid} is not dlcheck's {convs[0][2]}")
    if matched != len(spans):
        failures.append(f"{matched} of {len(spans)} spans matched")
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
