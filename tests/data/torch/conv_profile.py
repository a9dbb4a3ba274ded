"""A small convolution under torch.profiler, for `dlcheck run -f trace` beside its trace.

Usage: conv_profile.py TORCH_TRACE ANCHOR
Writes torch.profiler's Chrome trace to TORCH_TRACE and, to ANCHOR, the epoch time in ns
(time.time_ns(): CLOCK_REALTIME) read just before and just after the profiler started: PyTorch
1.13 without kineto (Debian's) writes its events' ts relative to its own start, which these two
readings bracket.
"""
import sys
import time

import torch
from torch.profiler import ProfilerActivity, profile

torch.manual_seed(0)
torch.set_num_threads(1)
conv = torch.nn.Conv2d(16, 32, 3)
x = torch.randn(8, 16, 32, 32)
with torch.no_grad():
    for _ in range(3):
        conv(x)
    before = time.time_ns()
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        after = time.time_ns()
        for _ in range(5):
            conv(x)
            # 20 ms apart: the bracket of the profiler's start (its tolerance) grows to 1.5 ms on
            # a loaded machine, wider than back-to-back convolutions are apart, and a span's
            # window then held two of them.
            time.sleep(0.02)
prof.export_chrome_trace(sys.argv[1])
with open(sys.argv[2], "w") as anchor:
    anchor.write(f"{before} {after}\n")
