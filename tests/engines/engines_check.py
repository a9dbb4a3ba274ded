#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The engines around oneDNN, read by `dlcheck parse`, against a count made here.

Each fixture of tests/data/engines is read line by line with this script's own rules (regular
expressions written from the formats in tests/data/engines/README.md, sharing no code with the
parser): every exec and create line, its library, and the key that makes it a row (the line
without its time, its log header or the weights' address). `dlcheck parse --format json` must
give, per library, the same execs, creates, exec time and rows, and summary.by_library the same
totals. ONNX Runtime's profiles are read with `json`, a line at a time. `dlcheck diff` of two
runs of one engine and of two engines names each side's libraries.

usage: engines_check.py DLCHECK DATA_DIR
"""
import json
import math
import re
import shutil
import subprocess
import sys
import tempfile
from collections import defaultdict

NUMBER = r"[0-9][0-9.]*(?:e[-+]?[0-9]+)?"
PLUGIN = re.compile(r"zendnn_primitive_(execute|create),(?:cache_\w+,)?(cpu,.*),(" + NUMBER +
                    r"),ms(?:;.*)?$")
PROFILE = re.compile(r"^\[PROF   \]\[\w+ *\]\[[0-9.]+\]:(\w[\w ]*?)? ?[Oo]perator execute - "
                     r"(.*),time:(" + NUMBER + r")ms$")
VERBOSE = re.compile(r"^(onednn|zendnn)_verbose,(?:v1,)?(?:primitive,|ukernel,)?"
                     r"(exec|create:\w+),(cpu,.*),(" + NUMBER + r")$")


def finite(text):
    value = float(text)
    return value if math.isfinite(value) and value >= 0 else None


def ort_event(line):
    """An ONNX Runtime profile line as the JSON object it is (the array's `[`, `]` and `,`
    around it taken off), or None."""
    text = line.strip().lstrip("[").rstrip("]").rstrip(",").rstrip("]")
    if not text.startswith("{"):
        return None
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return None


def read_ort(path, totals):
    """ONNX Runtime's profile: each node's `<name>_kernel_time` event is one execution of its
    dur microseconds; a row is the operator, its provider, the node and its input shapes."""
    for line in open(path, encoding="utf-8"):
        event = ort_event(line)
        if event is None or event.get("cat") != "Node" or \
                not event.get("name", "").endswith("_kernel_time"):
            continue
        args = event.get("args", {})
        t = totals["ONNX Runtime"]
        t["execs"] += 1
        t["exec_ms"] += event["dur"] / 1000.0
        t["keys"].add((args.get("op_name"), args.get("provider"), event["name"],
                       json.dumps(args.get("input_type_shape")),
                       json.dumps(args.get("output_type_shape"))))
    return totals


def library_of(text):
    """`oneDNN v2.6.3` -> `oneDNN`; `ONNX Runtime` as it is."""
    return re.sub(r" v[0-9].*$", "", text)


def read(path):
    """{library: {execs, creates, exec_ms, rows}} counted from the raw lines."""
    totals = defaultdict(lambda: {"execs": 0, "creates": 0, "exec_ms": 0.0, "keys": set()})
    if "onnxruntime" in path:
        return read_ort(path, totals)
    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\n")
        m = PLUGIN.search(line)
        if m and finite(m.group(3)) is not None and len(m.group(2).split(",")) >= 8:
            library, op, key, ms = "ZenDNN", m.group(1), "P" + m.group(2), m.group(3)
        elif ((m := PROFILE.match(line)) and "[" in m.group(2) and
              m.group(2).count("[") == m.group(2).count("]") and finite(m.group(3)) is not None):
            fields = [f for f in re.split(r",(?![^\[]*\])", m.group(2))
                      if not f.startswith("weight_address:")]
            library, op, key, ms = "ZenDNN", "execute", "Q" + (m.group(1) or "") + ",".join(
                fields), m.group(3)
        elif (m := VERBOSE.match(line)) and finite(m.group(4)) is not None:
            if len(m.group(3).split(",")) != 8:
                continue
            library = "ZenDNN" if m.group(1) == "zendnn" else "oneDNN"
            op, key, ms = m.group(2), "V" + m.group(3), m.group(4)
        else:
            continue
        t = totals[library]
        # The verbose lines of both eras and the plug-in's are one row per primitive (the
        # plug-in's `plugin_op:` is its layer); a create and an exec of one primitive share it.
        t["keys"].add(key.replace("P", "V", 1) if key.startswith("P") and "plugin_op:" not in key
                      else key)
        if op.startswith("exec"):
            t["execs"] += 1
            t["exec_ms"] += float(ms)
        else:
            t["creates"] += 1
    return totals


def parse(dlcheck, path):
    out = subprocess.run([dlcheck, "parse", "--format", "json", path], capture_output=True,
                         text=True, check=False)
    if out.returncode != 0:
        raise SystemExit(f"{path}: dlcheck parse exited {out.returncode}: {out.stderr}")
    return json.loads(out.stdout)


def check(dlcheck, path, failures):
    expected = read(path)
    doc = parse(dlcheck, path)
    got = defaultdict(lambda: {"execs": 0, "creates": 0, "exec_ms": 0.0, "rows": 0})
    for row in doc["primitives"]:
        g = got[library_of(row["library"])]
        g["execs"] += row["execs"]
        g["creates"] += row["creates"]
        g["exec_ms"] += row["exec_ms_total"]
        g["rows"] += 1
    shares = {s["library"]: s for s in doc["summary"]["by_library"]}
    for library in sorted(set(expected) | set(got)):
        e, g = expected[library], got[library]
        tolerance = 1e-4 * (g["rows"] + 1)  # the JSON rounds each row's total to 4 decimals
        checks = [("execs", e["execs"], g["execs"]), ("creates", e["creates"], g["creates"]),
                  ("rows", len(e["keys"]), g["rows"])]
        for name, want, have in checks:
            if want != have:
                failures.append(f"{path}: {library} {name}: expected {want}, dlcheck {have}")
        if abs(e["exec_ms"] - g["exec_ms"]) > tolerance:
            failures.append(f"{path}: {library} exec ms: expected {e['exec_ms']}, "
                            f"dlcheck {g['exec_ms']}")
        share = shares.get(library)
        if e["execs"] and (share is None or abs(share["exec_ms"] - e["exec_ms"]) > tolerance or
                           share["execs"] != e["execs"]):
            failures.append(f"{path}: summary.by_library {library}: {share}, expected "
                            f"{e['execs']} execs, {e['exec_ms']} ms")
    return doc, expected


def main():
    dlcheck, data = sys.argv[1], sys.argv[2]
    out_dir = tempfile.mkdtemp(prefix="dlcheck-engines.")
    failures = []
    docs = {}
    for name in ["zendnn_verbose_v5.0.log", "zendnn_primitive_v5.1.log",
                 "zendnnl_profile_v5.2.log", "onednn_zen_ukernel_v3.x.log",
                 "mixed_zendnn_onednn.log", "hostile_zendnn.log",
                 "onnxruntime_1.31.1_mlp_profile.json", "onnxruntime_1.31.1_cnn_profile.json",
                 "onnxruntime_0.4.0_issue1297.log", "onnxruntime_issue5617.log",
                 "onnxruntime_dml_issue24306.log", "onnxruntime_genai_dml_issue2031.log"]:
        docs[name], expected = check(dlcheck, f"{data}/{name}", failures)
        if not expected:
            failures.append(f"{name}: the script counted no line: its rules are wrong")
    # Beyond the totals: what each generation's rows say.
    rows = lambda name: docs[name]["primitives"]
    if {r["library"] for r in rows("zendnn_verbose_v5.0.log")} != {"ZenDNN v5.0.0"}:
        failures.append("zendnn_verbose: the library column does not name ZenDNN v5.0.0")
    profile = {r["problem"]: r for r in rows("zendnnl_profile_v5.2.log")}
    ref = profile.get("8x64:64x8:8x8")
    if ref is None or ref["fallback"] != "scalar" or ref["implementation"] != "reference":
        failures.append(f"zendnnl_profile: the reference kernel is not flagged scalar: {ref}")
    big = profile.get("32x4096:4096x4096:1x4096:32x4096")
    if big is None or big["execs"] != 2 or big["primitive"] != "MatMul":
        failures.append(f"zendnnl_profile: two weight addresses split one shape's row: {big}")
    zen = [r for r in rows("onednn_zen_ukernel_v3.x.log") if (r["implementation"] or "").startswith("zen:")]
    if len(zen) != 3 or any(r["fallback"] != "external" for r in zen):
        failures.append(f"oneDNN zen rows: {zen}")
    ukernel = [r for r in rows("onednn_zen_ukernel_v3.x.log") if r["primitive"] == "brgemm"]
    if sorted(r["execs"] for r in ukernel) != [1, 1, 2]:
        failures.append(f"ukernel brgemm: not one row per shape and beta: {ukernel}")
    # --dialect reads one dialect's lines of the mixed log, and counts the others foreign.
    mixed = f"{data}/mixed_zendnn_onednn.log"
    for dialect, library, rule in [("onednn", "oneDNN", "onednn_verbose,"),
                                   ("zendnnl_profile", "ZenDNN", "[PROF   ]["),
                                   ("zendnn_primitive", "ZenDNN", "zendnn_primitive_execute,")]:
        out = subprocess.run([dlcheck, "parse", "--format", "json", "--dialect", dialect, mixed],
                             capture_output=True, text=True, check=True)
        doc = json.loads(out.stdout)
        lines = [l for l in open(mixed, encoding="utf-8") if rule in l and ",info," not in l]
        want = sum(float(re.search(r"(?:,|time:)(" + NUMBER + r")(?:ms|,ms)?$",
                                   l.rstrip("\n")).group(1)) for l in lines)
        have = sum(r["exec_ms_total"] for r in doc["primitives"])
        libraries = {library_of(r["library"]) for r in doc["primitives"]}
        if abs(want - have) > 1e-3 or libraries != {library}:
            failures.append(f"--dialect {dialect}: {have} ms of {libraries}, expected {want} ms "
                            f"of {library}")
    # ONNX Runtime: its operators read as dlcheck's kinds, its NCHWc reorders as reorders, the
    # provider that ran each node as the implementation, the fences as info lines.
    cnn = docs["onnxruntime_1.31.1_cnn_profile.json"]
    reorder_ms = sum(r["exec_ms_total"] for r in cnn["primitives"]
                     if r["primitive"] == "ReorderOutput")
    if reorder_ms <= 0 or abs(cnn["summary"]["reorder_exec_ms"] - reorder_ms) > 1e-3:
        failures.append(f"onnxruntime cnn: ReorderOutput is not counted as a reorder: "
                        f"{cnn['summary']['reorder_exec_ms']} vs {reorder_ms}")
    mlp = docs["onnxruntime_1.31.1_mlp_profile.json"]
    matmul = [r for r in mlp["primitives"] if r["primitive"] == "MatMul"]
    # The profile lists the node's graph inputs (x), not its initialisers (the weights).
    if len(matmul) != 1 or matmul[0]["data_types"] != "in0:f32 out0:f32" or \
            matmul[0]["problem"] != "64x256" or \
            matmul[0]["implementation"] != "CPUExecutionProvider" or \
            matmul[0]["fallback"] != "external":
        failures.append(f"onnxruntime mlp: the MatMul row: {matmul}")
    for name in ["onnxruntime_1.31.1_mlp_profile.json", "onnxruntime_1.31.1_cnn_profile.json"]:
        notes = [f["code"] for f in docs[name]["findings"]]
        if "provider-cpu-only" not in notes or "partial-log" in notes:
            failures.append(f"{name}: findings {notes}: provider-cpu-only expected, no "
                            "partial-log (a profile prints no creation)")
    table = subprocess.run([dlcheck, "parse", f"{data}/onnxruntime_1.31.1_cnn_profile.json"],
                           capture_output=True, text=True, check=True).stdout
    if not table.startswith("ONNX Runtime ran 2 operators: 10 executions"):
        failures.append(f"onnxruntime cnn: the verdict: {table.splitlines()[:1]}")
    # Two runs of one graph (recorded minutes apart): diff lines their operators up.
    diff = json.loads(subprocess.run(
        [dlcheck, "diff", "--format", "json", f"{data}/onnxruntime_1.31.1_cnn_profile.json",
         f"{data}/onnxruntime_1.31.1_cnn_profile_run2.json"],
        capture_output=True, text=True, check=False).stdout)
    if diff["summary"]["rows_matched"] != 2 or diff["summary"]["new"] or \
            diff["summary"]["vanished"]:
        failures.append(f"onnxruntime diff of two runs: {diff['summary']}")
    if diff["summary"]["libraries_a"] != "ONNX Runtime" or \
            any(f["code"] == "diff-engines-differ" for f in diff["findings"]):
        failures.append(f"onnxruntime diff: one engine on both sides: {diff['summary']}")
    # Two engines: each side's libraries named (versions left out), and the finding says so; a
    # report's library column counts as a log's rows do.
    engines = json.loads(subprocess.run(
        [dlcheck, "diff", "--format", "json", f"{data}/zendnn_verbose_v5.0.log",
         f"{data}/onnxruntime_1.31.1_mlp_profile.json"],
        capture_output=True, text=True, check=False).stdout)
    if (engines["summary"]["libraries_a"], engines["summary"]["libraries_b"]) != \
            ("ZenDNN", "ONNX Runtime") or \
            "diff-engines-differ" not in [f["code"] for f in engines["findings"]]:
        failures.append(f"diff of ZenDNN and ONNX Runtime: {engines['summary']}, "
                        f"{[f['code'] for f in engines['findings']]}")
    report = subprocess.run([dlcheck, "parse", "--format", "json", mixed], capture_output=True,
                            text=True, check=True).stdout
    with open(f"{out_dir}/mixed.json", "w", encoding="utf-8") as f:
        f.write(report)
    both = json.loads(subprocess.run(
        [dlcheck, "diff", "--format", "json", f"{out_dir}/mixed.json", mixed],
        capture_output=True, text=True, check=False).stdout)
    for side in ("libraries_a", "libraries_b"):
        if set((both["summary"][side] or "").split(" and ")) != {"oneDNN", "ZenDNN"}:
            failures.append(f"diff of the mixed log and its report: {side} "
                            f"{both['summary'][side]}")
    if "diff-engines-differ" in [f["code"] for f in both["findings"]]:
        failures.append("diff of the mixed log and its report: engines said to differ")
    fences = docs["onnxruntime_issue5617.log"]["input"]["info_lines"]
    if fences != 8:
        failures.append(f"onnxruntime_issue5617: {fences} info lines, expected its 8 fences")
    dml = docs["onnxruntime_dml_issue24306.log"]["primitives"]
    if any(r["engine"] is not None or r["primitive"] != "node" for r in dml):
        failures.append(f"onnxruntime dml: a node without args has an engine or a kind: {dml}")
    hostile = docs["hostile_zendnn.log"]["input"]["skipped_by_reason"]
    if sum(hostile.values()) < 14:
        failures.append(f"hostile lines: too few skipped: {hostile}")
    shutil.rmtree(out_dir, ignore_errors=True)
    for failure in failures:
        print("FAIL:", failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
