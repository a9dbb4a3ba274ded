#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""`dlcheck whatif`'s figures against benchdnn 2.6.3 (../shared/peers/benchdnn-2.6.3): each
measured variant's benchdnn line (threads, ISA and layouts pinned) is run with --mode=P, side by
side: does benchdnn pick the implementation dlcheck measured, and is dlcheck's min time within
1.5x of benchdnn's?

usage: whatif_peer_test.py DLCHECK DATA_DIR PEERS_DIR

Exit 77 (skipped, with the reason on stdout) when the peer is absent. Prints every pair, then
checks: every line runs; at least 95 % pick dlcheck's implementation; at least 80 % of the times
agree within 1.5x (the rest is said: a shared machine's load moves single timings).
"""
import json
import os
import shlex
import subprocess
import sys

LOG = "torch_cnn_2.6.3.log"


def split_command(command):
    """(environment, argv) of `OMP_NUM_THREADS=N [ONEDNN_MAX_CPU_ISA=X ]benchdnn --driver ...`."""
    words = shlex.split(command)
    env = {}
    while words and "=" in words[0] and not words[0].startswith("--"):
        key, value = words.pop(0).split("=", 1)
        env[key] = value
    return env, words[1:]


def main():
    args = sys.argv[1:]
    times = args[:1] == ["--times"]
    if times:
        args = args[1:]
    dlcheck, data, peers = args[:3]
    binary = os.path.join(peers, "benchdnn-2.6.3", "benchdnn")
    if not os.access(binary, os.X_OK):
        print(f"SKIP: no peer benchdnn-2.6.3/benchdnn under {peers} (the peers live in "
              "../shared/peers next to the source tree; a user's clone has none)")
        return 77
    run = subprocess.run([dlcheck, "whatif", "--format", "json", "--top", "5", "--time", "0.2",
                          "--variants", "layouts,impl,dtype,isa",
                          os.path.join(data, "verbose", LOG)],
                         capture_output=True, text=True, check=True)
    doc = json.loads(run.stdout)
    pairs, failed, same_impl, within, timed = 0, [], 0, 0, 0
    baselines, baselines_within = 0, 0
    for row in doc["variants"]:
        line, mine = row["benchdnn"], row["min_ms"]
        if not line or mine is None or row["variant"].startswith("layouts any"):
            continue  # `layouts any` adds its reorders, which benchdnn does not run
        env, argv = split_command(line)
        # %impl% and the min and mean time: the figures side by side, nothing to parse around.
        argv = [a for a in argv if not a.startswith("--mode")]
        argv = argv[:1] + ["--mode=P", "--perf-template=%impl%,%-time%,%0time%"] + argv[1:]
        done = subprocess.run([binary] + argv, capture_output=True, text=True,
                              env=dict(os.environ, **env), timeout=120, check=False)
        perf = [l for l in done.stdout.splitlines() if l.count(",") == 2 and ":" in l.split(",")[0]]
        if done.returncode != 0 or not perf:
            failed.append((row["hot"], row["variant"], done.returncode, done.stdout[-300:]))
            continue
        impl, best, _ = perf[-1].split(",")
        pairs += 1
        ratio = mine / float(best) if float(best) > 0 else float("inf")
        same = impl == row["implementation"]
        same_impl += same
        agrees = 1 / 1.5 <= ratio <= 1.5
        within += agrees
        timed += mine > 0 and float(best) > 0
        if row["variant"] == "as logged":
            baselines += 1
            baselines_within += agrees
        print(f"#{row['hot']} {row['variant']:28} dlcheck {row['implementation']:28} {mine:9.4f} ms"
              f" | benchdnn {impl:28} {float(best):9.4f} ms | x{ratio:.2f}{'' if same else ' IMPL DIFFERS'}")
    print(f"{pairs} lines run: {same_impl} picked dlcheck's implementation, {within} within 1.5x "
          f"({baselines_within} of {baselines} baselines); {timed} timed on both sides; "
          f"{len(failed)} failed")
    for f in failed:
        print("FAILED:", f)
    ok = not failed and pairs > 0 and same_impl >= 0.95 * pairs and timed == pairs
    if times:
        ok = ok and baselines > 0 and baselines_within == baselines
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
