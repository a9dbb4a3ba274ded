#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Every benchdnn reproducer dlcheck writes for the logs of tests/data/verbose, run in the benchdnn
of the log's era (../shared/peers/benchdnn-2.6.3 for oneDNN 1.x-2.x logs, benchdnn-3.10.2 for 3.x)
with ONEDNN_VERBOSE=1 and --mode=R: does it run, and does it pick the log's implementation?

usage: benchdnn_peer_test.py DLCHECK DATA_DIR PEERS_DIR [--jobs N] [--timeout S]

Exit 77 (skipped, with the reason on stdout) when the peers are absent. Prints per log group and
era how many reproducers ran and how many picked the log's implementation, then checks:
  * the logs made on this kind of machine (torch_*_2.6.3.log, generated_2.6.3.txt, recorded on
    an AVX-512 BF16 Zen 4, one capped at AVX2; formats_3.13.1.txt, AVX2 lines pinned by
    ONEDNN_MAX_CPU_ISA): every reproducer runs and at least 95 % pick the log's implementation,
    of those whose ISA this host has (a line on an ISA above the host's says so itself, and
    runs a lower kernel here, or none where no kernel below takes its data type: it is counted
    apart);
  * every log (the users' lines of real_lines.txt too, from machines and versions not here):
    no reproducer is refused for its syntax (benchdnn's `unknown option`, a value it cannot
    parse), the class of failure dlcheck owns; and every line of a log whose header says its
    thread count (nthr) carries it as OMP_NUM_THREADS.
"""
import argparse
import concurrent.futures
import csv
import io
import os
import re
import shlex
import subprocess
import sys
import tempfile

# What dlcheck's benchdnn line says when this host cannot run the log's ISA.
HOST_BELOW = "benchdnn here runs a lower kernel, not the log's"

LOGS = ["torch_cnn_2.6.3.log", "torch_cnn_avx2_2.6.3.log", "torch_cnn_sse41_2.6.3.log",
        "torch_bf16_2.6.3.log",
        "torch_int8_2.6.3.log", "generated_2.6.3.txt", "formats_3.13.1.txt", "real_lines.txt",
        "graph_lines.txt"]
MADE_HERE = {"torch_cnn_2.6.3.log", "torch_cnn_avx2_2.6.3.log", "torch_cnn_sse41_2.6.3.log",
             "torch_bf16_2.6.3.log",
             "torch_int8_2.6.3.log", "generated_2.6.3.txt", "formats_3.13.1.txt"}
WEIGHTED = ("--conv ", "--deconv ", "--ip ", "--matmul ", "--pool ")
# Implementation names oneDNN renamed between the log's version and the peer's: the same kernel.
RENAMES = [("avx512_common", "avx512_core"), ("brgconv:", "brg_conv_fwd:")]
# Reviewed differences on the logs made here, each with its reason: (log, the log's
# implementation, the one benchdnn picked) -> why.
KNOWN = {
    ("formats_3.13.1.txt", "brg_matmul:avx2", "gemm:jit:f32"):
        "oneDNN 3.13.1 (the log) runs an AVX2 f32 matmul/ip in brg_matmul, 3.10.2 (the peer) in "
        "gemm:jit:f32 whatever the tags: the peer is older than the log",
}
PEER_THREADS = 2
SYNTAX_ERRORS = ("unknown option", "from_str", "can't parse", "ERROR: unknown",
                 "invalid value", "Error: parsing")


def groups_of(path):
    """The log's `# source:` groups (each run or paste is its own log), or the whole file."""
    groups, current, name = [], [], None
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if line.startswith("# source:"):
                if current:
                    groups.append((name, current))
                current, name = [], line[len("# source:"):].strip()[:60]
                continue
            current.append(line)
    if current:
        groups.append((name, current))
    return groups


def reproducers(dlcheck, lines):
    """(engine, primitive, implementation, problem, benchdnn cell) of each row of the log."""
    with tempfile.NamedTemporaryFile("w", suffix=".log", delete=False) as f:
        f.writelines(lines)
        name = f.name
    try:
        run = subprocess.run([dlcheck, "parse", name, "--format", "csv", "--csv-lf", "--columns",
                              "engine,primitive,implementation,problem,benchdnn"],
                             capture_output=True, text=True, check=False)
    finally:
        os.unlink(name)
    rows = list(csv.reader(io.StringIO(run.stdout)))
    return rows[1:]


def check_batches(dlcheck, peers, log, lines, era, timeout):
    """`parse --benchdnn-batch DRIVER` of each driver in the log, run as its first line says with
    --mode=R: benchdnn takes every line (exit 0, as many tests as lines, none failed)."""
    failures, ran = [], 0
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "log.txt")
        with open(path, "w") as f:
            f.writelines(lines)
        version = ["--benchdnn-version", str(era)]
        for driver in ("conv", "deconv", "ip", "matmul", "reorder", "eltwise", "softmax", "pool",
                       "binary", "bnorm", "lnorm", "lrn", "resampling", "reduction", "shuffle",
                       "sum", "concat", "prelu", "rnn", "gnorm"):
            text = subprocess.run([dlcheck, "parse", path, "--benchdnn-batch", driver] + version,
                                  capture_output=True, text=True, check=False).stdout
            count = sum(1 for line in text.splitlines() if line.startswith("--reset"))
            if count == 0:
                continue
            batch = os.path.join(tmp, driver + ".batch")
            with open(batch, "w") as f:
                f.write(text)
            env, argv = split_command(text.splitlines()[0][2:])
            argv = [a.replace("THIS_FILE", batch) for a in argv]
            binary = os.path.join(peers, "benchdnn-2.6.3" if era == 2 else "benchdnn-3.10.2",
                                  "benchdnn")
            try:
                run = subprocess.run([binary] + argv, capture_output=True, text=True,
                                     env=dict(os.environ, **env),
                                     timeout=timeout * count, check=False)
            except subprocess.TimeoutExpired:
                failures.append(f"{log}: the {driver} batch timed out")
                continue
            tests = re.search(r"tests:(\d+) .*failed:(\d+)", run.stdout + run.stderr)
            if run.returncode != 0 or not tests or int(tests.group(1)) != count \
                    or tests.group(2) != "0":
                failures.append(f"{log}: benchdnn --{driver} --batch of {count} lines: exit "
                                f"{run.returncode}, {tests.group(0) if tests else 'no summary'}")
            ran += count
    return ran, failures


def era_of(command, lines):
    """2 or 3: the syntax of a weighted driver's line, else the log's marker."""
    if any(driver in command for driver in WEIGHTED):
        if "--cfg=" in command:
            return 2
        if "--dt=" in command or "--bia-dt" in command:
            return 3
    text = "".join(lines)
    if "onednn_verbose,v1," in text or "onednn_verbose,primitive," in text:
        return 3
    return 2


def split_command(command):
    """(environment, argv) of `[ONEDNN_MAX_CPU_ISA=X ][OMP_NUM_THREADS=N ]benchdnn --driver ...
    problem`. The line's thread count is kept up to PEER_THREADS: the peers share this machine's
    few cores (a log's 188 threads would only oversubscribe them), and the implementation picked
    does not depend on it in these logs."""
    words = shlex.split(command, comments=True)
    env = {"OMP_NUM_THREADS": str(PEER_THREADS)}
    while words and "=" in words[0] and not words[0].startswith("--"):
        key, value = words.pop(0).split("=", 1)
        env[key] = value
    env["OMP_NUM_THREADS"] = str(min(int(env["OMP_NUM_THREADS"]), PEER_THREADS))
    return env, [w.replace("--mode=P", "--mode=R") for w in words[1:]]


NTHR = re.compile(r"^(?:onednn|dnnl)_verbose,(?:v1,)?info,cpu,runtime:[^,]*,nthr:(\d+)", re.M)


def threads_failures(log, group, lines, cells):
    """Every line of a log whose header says its thread count carries it as OMP_NUM_THREADS."""
    found = NTHR.findall("".join(lines))
    if len(set(found)) != 1:
        return []  # no header, or several runs of different counts in one group
    wanted = "OMP_NUM_THREADS=" + found[0]
    return [f"{log} | {group}: no {wanted} on: {cell}" for cell in cells
            if not cell.startswith("#") and wanted not in shlex.split(cell, comments=True)]


EXEC = re.compile(r"^onednn_verbose,(?:v1,)?(?:primitive,)?exec,cpu[^,]*,([^,]+),([^,]*),")


def normal(implementation):
    for old, new in RENAMES:
        implementation = implementation.replace(old, new)
    return implementation


def run_one(peers, era, command, timeout):
    env, argv = split_command(command)
    binary = os.path.join(peers, "benchdnn-2.6.3" if era == 2 else "benchdnn-3.10.2", "benchdnn")
    full_env = dict(os.environ, ONEDNN_VERBOSE="1", **env)
    try:
        run = subprocess.run([binary] + argv, capture_output=True, text=True, env=full_env,
                             timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return None, "", []
    output = run.stdout + run.stderr
    picked = [(m.group(1), m.group(2)) for m in map(EXEC.match, output.splitlines()) if m]
    return run.returncode, output, picked


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("dlcheck")
    parser.add_argument("data")
    parser.add_argument("peers")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=60)
    args = parser.parse_args()
    for version in ("benchdnn-2.6.3", "benchdnn-3.10.2"):
        if not os.access(os.path.join(args.peers, version, "benchdnn"), os.X_OK):
            print(f"SKIP: no peer {version}/benchdnn under {args.peers} (the peers live in "
                  "../shared/peers next to the source tree; a user's clone has none)")
            return 77

    jobs = []  # (log, group, era, primitive, implementation, command)
    no_line = {}
    batch_lines, failures = 0, []
    for log in LOGS:
        for group, lines in groups_of(os.path.join(args.data, "verbose", log)):
            seen = set()
            rows = reproducers(args.dlcheck, lines)
            failures += threads_failures(log, group, lines, [row[4] for row in rows])
            for engine, primitive, implementation, _, cell in rows:
                if cell.startswith("#"):
                    no_line[cell.split(": ", 1)[-1]] = no_line.get(cell.split(": ", 1)[-1], 0) + 1
                    continue
                if not engine.startswith("cpu") or cell in seen:
                    continue
                seen.add(cell)
                jobs.append((log, group, era_of(cell, lines), primitive, implementation, cell))
            if log in MADE_HERE and seen:
                ran, batch_failures = check_batches(args.dlcheck, args.peers, log, lines,
                                                    era_of(next(iter(seen)), lines), args.timeout)
                batch_lines += ran
                failures += batch_failures

    print(f"--benchdnn-batch files of the logs made here: {batch_lines} lines run in their "
          f"driver's batch")
    figures = {}  # (log, era) -> [lines, ran, same]
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        results = pool.map(lambda j: run_one(args.peers, j[2], j[5], args.timeout), jobs)
        for (log, group, era, primitive, implementation, command), result in zip(jobs, results):
            rc, output, picked = result
            counts = figures.setdefault((log, era), [0, 0, 0, 0, 0])
            counts[0] += 1
            ran = (rc == 0 and "unimplemented:0" in output and "failed:0" in output
                   and "skipped:0" in output)
            picked_here = [normal(i) for p, i in picked if p == primitive]
            same = ran and normal(implementation) in picked_here
            counts[1] += ran
            counts[2] += same
            syntax = rc is not None and any(e in output for e in SYNTAX_ERRORS)
            why = ("timed out" if rc is None else
                   f"exit {rc}" if rc != 0 else
                   "unimplemented" if not ran else
                   f"picked {[p for p in picked if p[0] == primitive][:2] or picked[-1:]}")
            known = KNOWN.get((log, implementation, picked_here[0] if picked_here else ""))
            # A host below the log's ISA cannot run the log's kernel; dlcheck's line says so, and
            # such a line is held to running, not to the log's implementation.
            below = HOST_BELOW in command
            if below and not same:
                counts[3] += 1
                counts[4] += not ran  # a bf16 line on a host without BF16: unimplemented here
                known = known or "this host is below the log's ISA, as the line says"
            if not same and log in MADE_HERE and ran and not known:
                failures.append(f"{log}: picked {picked_here[:1]}, not the log's "
                                f"{implementation}: {command}")
            if not same:
                if known:
                    why += f" (known: {known})"
                print(f"[{log} | {group} | {era}.x] {why}, log: {implementation}\n  {command}")
                errors = [l for l in output.splitlines() if "rror" in l or "unknown" in l]
                if errors:
                    print("  " + errors[0][:200])
            if syntax:
                failures.append(f"{log}: benchdnn {era}.x refuses the syntax of: {command}")
    print("\nper log and era: reproducers / ran / picked the log's implementation / host below "
          "the log's ISA")
    for (log, era), (lines, ran, same, below, below_unran) in sorted(figures.items()):
        print(f"  {log:24} {era}.x  {lines:4} / {ran:4} / {same:4} / {below:4}")
        if log in MADE_HERE and ran + below_unran != lines:
            failures.append(f"{log}: {lines - ran - below_unran} of {lines} reproducers did not "
                            "run (on an ISA this host has)")
    made = [counts for (log, _), counts in figures.items() if log in MADE_HERE]
    # The lines a host below the log's ISA cannot reproduce are not counted (dlcheck says so).
    lines = sum(c[0] - c[3] for c in made)
    same = sum(c[2] for c in made)
    print(f"  logs made here: {same} of {lines} picked the log's implementation "
          f"({sum(c[3] for c in made)} more on an ISA this host lacks)")
    if same < 0.95 * lines:
        failures.append(f"only {same} of {lines} reproducers of the logs made here picked the "
                        "log's implementation (at least 95 % expected)")
    print("rows without a line, by reason:")
    for reason, count in sorted(no_line.items(), key=lambda item: -item[1]):
        print(f"  {count:4}  {reason}")
    for failure in failures:
        print("FAIL: " + failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
