#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes a large verbose log for scripts/bench_parse.sh from a real recorded one (tests/data):
the seed's header (its `# source` comments and `info` lines) once, then its other lines
(`info` lines of later runs in a concatenated seed left out) (events,
and the program's own output) repeated until the log holds SIZE_MB megabytes, as a long training
run prints them. A timestamped seed gets a new timestamp on every repeated line, 0.05 ms apart,
printed as oneDNN prints it (%.6f), so no two lines are equal, as in a real timestamped log.

    make_bench_log.py SEED SIZE_MB OUT
"""
import re
import sys

seed, size_mb, out_path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
STAMP = re.compile(r"^((?:onednn|dnnl)_verbose,(?:v\d+,)?)(\d+\.\d+)(,.*)$")
head, body = [], []
with open(seed, encoding="utf-8") as f:
    for line in f:
        line = line.rstrip("\n")
        is_head = line.startswith("#") or re.match(r"^(?:onednn|dnnl)_verbose,(?:v\d+,)?(?:\w+,)?info,", line)
        if not body and is_head:
            head.append(line)
        elif not is_head:  # a header printed again (a concatenated log) is left out
            body.append(line)
parts = [STAMP.match(line) for line in body]
size = size_mb * 1000000
stamp = 1795000000000.0
with open(out_path, "w", encoding="utf-8") as out:
    written = 0
    for line in head:
        out.write(line + "\n")
        written += len(line) + 1
    while written < size:
        chunk = []
        for line, m in zip(body, parts):
            if m:
                stamp += 0.05
                line = "%s%.6f%s" % (m.group(1), stamp, m.group(3))
            chunk.append(line)
        text = "\n".join(chunk) + "\n"
        out.write(text)
        written += len(text)
