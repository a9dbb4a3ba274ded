#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Every benchdnn reproducer dlcheck writes for the oneDNN 2.x logs of tests/data/verbose, against
the line of oneDNN's own verbose_converter v2.6.3 (../shared/peers/verbose_converter) for the same
primitive: every difference must be a reviewed one (REVIEWED below, each with its reason, each
checked by running both lines in benchdnn 2.6.3: tests/peer/benchdnn_peer_test.py runs dlcheck's).

usage: converter_peer_test.py DLCHECK DATA_DIR PEERS_DIR

Exit 77 (skipped, with the reason on stdout) when the converter is absent. Prints per log how
many lines agree, differ in a reviewed way, and have no converter line.
"""
import csv
import io
import os
import shlex
import subprocess
import sys

LOGS = ["torch_cnn_2.6.3.log", "torch_cnn_avx2_2.6.3.log", "torch_cnn_sse41_2.6.3.log",
        "torch_bf16_2.6.3.log",
        "torch_int8_2.6.3.log", "generated_2.6.3.txt"]
# Options that do not decide the problem or the kernel: the converter's `--reset`, `--engine=cpu`
# and `--alg=direct` are benchdnn's defaults, `--mode` and `--allow-enum-tags-only` are how to run.
IGNORED = {"reset", "engine", "mode", "allow-enum-tags-only"}
# (option, dlcheck's value, the converter's value) -> why both are the same problem and kernel.
REVIEWED = {
    ("attr-oscale", "per_dim_1:1", "per_oc:0.5"):
        "the log holds the mask (attr-oscale:2), not the value: dlcheck writes 1, the converter "
        "0.5; per_oc is per_dim_1 (knobs_attr.md)",
    ("attr-oscale", "per_dim_0:1", "per_tensor:0.5"):
        "mask 1 of a 1-D tensor: per_dim_0 is the whole (only) dimension; the value is not in "
        "the log",
    ("attr-post-ops", "sum", "sum:1.0:0"): "scale 1 and zero point 0 are the sum post-op's "
                                           "defaults",
    ("attr-post-ops", "relu", "eltwise_relu"): "benchdnn 2.x takes both spellings",
    ("direction", "left2right", None): "left2right is the rnn driver's default direction",
    ("stat_tag", None, ""): "the converter writes an empty --stat_tag=, the driver's default",
    ("dir", "FWD_D", "FWD_I"):
        "shuffle: benchdnn 2.6.3 exits 2 (invalid_arguments) on the converter's FWD_I and runs "
        "the log's ref:any with FWD_D (driver_shuffle.md: FWD_D, BWD_D)",
    ("dir", "BWD_DW", "FWD_D"):
        "a backward batch normalization of generated_2.6.3.txt's capped runs that was created, "
        "never executed: the converter reads exec lines only, so its nearest line is the forward",
}


def alias(option, value):
    """benchdnn 2.6.3 takes the algorithm kinds by their oneDNN names too."""
    if option != "alg" or value is None:
        return value
    value = value.lower()
    for prefix in ("eltwise_", "pooling_", "reduction_", "binary_", "resampling_", "lrn_"):
        value = value.replace(prefix, "")
    return {"softmax_accurate": "softmax", "softmax_log": "logsoftmax",
            "avg_exclude_padding": "avg_np", "avg_include_padding": "avg_p",
            "across_channels": "across", "within_channel": "within",
            "direct": None}.get(value, value)


def options(words):
    """(driver, problem, {option: value}) of a benchdnn line's words."""
    driver, problem, found = None, None, {}
    for word in words:
        if word.startswith("--") and "=" in word:
            key, value = word[2:].split("=", 1)
            if key not in IGNORED:
                found[key] = alias(key, value)
        elif word.startswith("--"):
            if word[2:] not in IGNORED and driver is None:
                driver = word[2:]
        else:
            problem = word
    return driver, problem, {k: v for k, v in found.items() if v is not None}


def converter_lines(converter, log):
    out = subprocess.run([sys.executable, converter, "-i", log], capture_output=True, text=True,
                         check=False).stdout
    lines = {}
    for line in out.splitlines():
        if line.startswith("--"):
            driver, problem, found = options(line.split())
            lines.setdefault((driver, problem), []).append(found)
    return lines


def dlcheck_lines(dlcheck, log):
    run = subprocess.run([dlcheck, "parse", log, "--format", "csv", "--csv-lf", "--columns",
                          "benchdnn"], capture_output=True, text=True, check=False)
    for (cell,) in list(csv.reader(io.StringIO(run.stdout)))[1:]:
        if cell.startswith("#"):
            continue
        words = shlex.split(cell, comments=True)
        while words and "=" in words[0] and not words[0].startswith("--"):
            words.pop(0)  # ONEDNN_MAX_CPU_ISA=...
        yield cell, options(words[1:])


def differences(ours, theirs):
    return {(k, ours.get(k), theirs.get(k)) for k in set(ours) | set(theirs)
            if ours.get(k) != theirs.get(k)}


def main():
    dlcheck, data, peers = sys.argv[1:4]
    converter = os.path.join(peers, "verbose_converter", "v2.6.3", "verbose_converter.py")
    if not os.path.isfile(converter):
        print(f"SKIP: no peer verbose_converter/v2.6.3 under {peers} (the peers live in "
              "../shared/peers next to the source tree; a user's clone has none)")
        return 77
    failures = []
    for log in LOGS:
        path = os.path.join(data, "verbose", log)
        theirs = converter_lines(converter, path)
        agree = reviewed = alone = 0
        for cell, (driver, problem, ours) in dlcheck_lines(dlcheck, path):
            candidates = theirs.get((driver, problem), [])
            if not candidates:
                alone += 1
                print(f"[{log}] no converter line for: {cell}")
                continue
            best = min((differences(ours, c) for c in candidates), key=len)
            unreviewed = [d for d in best if d not in REVIEWED]
            if not best:
                agree += 1
            elif not unreviewed:
                reviewed += 1
            else:
                failures.append(f"{log}: {cell}\n  differs from the converter in {unreviewed}")
        print(f"{log:26} agree {agree:3}, differ as reviewed {reviewed:3}, no converter line "
              f"{alone:3}")
    for failure in failures:
        print("FAIL: " + failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
