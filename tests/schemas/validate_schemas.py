#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""The JSON contract, checked by its consumer (Debian's python3-jsonschema, draft 2020-12).

1. Each report command of the command table (`dlcheck help --list`) has its checked-in
   schemas/<command>.schema.json, and it is what `dlcheck schema <command>` generates from the
   declarations beside each builder (regenerate with `make schemas`); every command has
   a document checked below.
2. Every command's --format json document validates against its schema, held strictly: an
   object the schema declares may not carry a key it does not declare (a member a builder adds
   must be declared, so the schema stays the whole contract). Documents: the live host (every
   command), a replay of every recorded CPU in tests/data/cpuid and every topology in
   tests/data/hwloc, every verbose log in tests/data/verbose (logs dlcheck did not write:
   PyTorch 1.13 CNNs at three ISA caps, bf16 and int8 models, lines pasted in public issues of
   every oneDNN generation, oneDNN 3.13 lines, Graph API lines), --columns subsets, `parse --events`, `diff` of two real logs, `fleet` of replays.
3. Every declared key is present in every document (null when unknown), a replay without a
   topology included.
4. The declarations both ways (src/report/contract_check.h): each run is told to check its
   report against its declared document (DLCHECK_CONTRACT_PATHS), so a member written that is
   not declared, or whose value has another type than declared, ends it; and every member a
   document declares is written by some run here (a declared member that no builder writes is
   printed as null for ever, and passes 1-3).

usage: validate_schemas.py DLCHECK DATA_DIR SCHEMA_DIR SCRATCH_DIR
Exits 0 when everything holds, 1 with the failures listed.
"""
import copy
import glob
import json
import os
import subprocess
import sys

import jsonschema

TINY = ["--iters", "1", "--warmup", "0", "--traced", "1", "--batch", "16", "--threads", "1"]


def recorded(data, pattern):
    return sorted(f for f in glob.glob(os.path.join(data, pattern)) if os.path.isfile(f))


def invocations(data, scratch):
    """(schema name, argv, acceptable exit codes) of every document to check."""
    logs = recorded(data, "verbose/*.txt") + recorded(data, "verbose/*.log")
    dumps = recorded(data, "cpuid/*.test") + recorded(data, "cpuid/*.test.xz")
    topologies = recorded(data, "hwloc/*.xml")
    log = os.path.join(data, "verbose", "generated_2.6.3.txt")
    cat_log = ["sh", "-c", 'cat "$0"', log]
    a = os.path.join(data, "verbose", "torch_cnn_avx2_2.6.3.log")
    cache = "XDG_CACHE_HOME=" + os.path.join(scratch, "cache")
    b = os.path.join(data, "verbose", "torch_cnn_2.6.3.log")
    tune_program = os.path.join(data, "tune", "program.sh")
    calls = [
        ("platform", ["platform"], {0}),
        ("platform", ["platform", "--probe"], {0}),
        ("parse", ["parse"] + logs, {0}),
        ("parse", ["parse", "--events", log], {0}),
        ("parse", ["parse", "--columns", "primitive,exec_ms_total", log], {0}),
        ("verbose", ["verbose", "--model", "mlp"] + TINY, {0}),
        ("verbose", ["verbose", "--model", "cnn"] + TINY, {0}),
        ("run", ["run", "--"] + cat_log, {0}),
        ("dispatch", ["dispatch", "--model", "mlp", "--isa", "sse41"] + TINY, {0}),
        ("dispatch", ["dispatch", "--isa", "sse41", "--"] + cat_log, {0}),
        ("dispatch", ["dispatch", "--model", "mlp", "--isa", "sse41", "--thread-sets", "1"] + TINY,
         {0}),
        # The check under a cap the environment sets (its run section names it).
        ("check", ["ONEDNN_MAX_CPU_ISA=SSE41", "check", "--stable"], {0, 1, 2}),
        ("check", ["check", "--stable"], {0, 1, 2}),
        ("check", ["check"], {0, 1, 2}),
        # A requirement no x86-64 CPU meets in full (AVX-512 ER was Xeon Phi's alone, which had
        # no AMX; a Sapphire Rapids host has avx512f, amx_int8 and avx512_fp16 all): CRITICAL.
        ("check", ["check", "--require", "avx512er,amx_int8"], {2}),
        ("diff", ["diff", a, b], {0, 1}),
        ("diff", ["diff", log, log], {0}),
        ("profile", ["profile", "--", "sleep", "1.5"], {0}),
        # Two hot rows, every variant kind, the shortest loops: a document of each shape.
        ("whatif", ["whatif", "--top", "2", "--time", "0", b], {0}),
        ("whatif", ["whatif", "--variants", "none", "--time", "0", log], {0}),
        ("whatif", ["whatif", "--variants", "none", "--time", "0", "--top", "1", a, b], {0}),
        # A captured run: the model's, and a program's (its own options and end in the document).
        ("whatif", ["whatif", "--model", "mlp", "--warmup", "0", "--traced", "1", "--batch", "8",
                    "--variants", "none", "--time", "0", "--top", "1"], {0}),
        ("whatif", ["whatif", "--variants", "none", "--time", "0", "--top", "1", "--"] + cat_log,
         {0}),
        # A knob that wins and one that fails (every column of the variants table), and a figure.
        ("tune", ["tune", "--groups", "user", "--knob", "TUNE_TEST_FAST=1", "--knob",
                  "TUNE_TEST_FAIL=1", "--runs", "2", "--", "sh", tune_program], {0}),
        ("tune", ["tune", "--groups", "user", "--knob", "TUNE_TEST_FAST=1", "--runs", "2",
                  "--metric", "score: ([0-9]+)", "--higher-is-better", "--", "sh", tune_program],
         {0}),
        ("fleet", ["fleet", os.path.join(scratch, "fleet")], {0}),
        # A measurement (quick) stored in a scratch cache, then read by platform and parse; a
        # stored profile shown again.
        ("roofline", [cache, "roofline", "--quick"], {0}),
        ("platform", [cache, "platform"], {0}),
        ("parse", [cache, "parse", "--roofline", os.path.join(data, "roofline", "matmuls_2.6.3.log")],
         {0}),
        ("roofline", ["roofline", "--from", os.path.join(data, "roofline", "zen3_vm_2cpu.json")],
         {0}),
        ("parse", ["parse", "--machine-profile", os.path.join(data, "roofline", "round_roofs.json"),
                   os.path.join(data, "roofline", "matmuls_2.6.3.log")], {0}),
        ("verbose", ["verbose", "--machine-profile",
                     os.path.join(data, "roofline", "round_roofs.json"), "--model", "mlp"] + TINY,
         {0}),
        ("whatif", ["whatif", "--machine-profile",
                    os.path.join(data, "roofline", "round_roofs.json"), "--variants", "none",
                    "--time", "0", os.path.join(data, "roofline", "matmuls_2.6.3.log")], {0}),
        ("run", ["run", "--machine-profile", os.path.join(data, "roofline", "round_roofs.json"),
                 "--", "sh", "-c", 'cat "$0"', os.path.join(data, "roofline", "matmuls_2.6.3.log")],
         {0}),
    ]
    calls += [("parse", ["parse", f], {0}) for f in logs]
    calls += [("platform", ["platform", "--cpuid-dump", d], {0}) for d in dumps]
    calls += [("platform", ["platform", "--cpuid-dump", dumps[0], "--topology", t], {0})
              for t in topologies]
    # AArch64 recordings: the aarch64 section, its SVE length from the core (lscpu: topology).
    calls += [("platform", ["platform", "--cpuinfo-dump", os.path.join(data, "aarch64", f)], {0})
              for f in ("graviton3.cpuinfo", "nvidia-grace.lscpu")]
    return calls


def run_json(dlcheck, argv, codes):
    # The format goes before `--`: what follows it is the program's command line.
    split = argv.index("--") if "--" in argv else len(argv)
    argv = argv[:split] + ["--format", "json"] + argv[split:]
    env = dict(os.environ)
    while argv and "=" in argv[0]:  # VARIABLE=value before the command, as a shell reads it
        name, _, value = argv.pop(0).partition("=")
        env[name] = value
    done = subprocess.run([dlcheck] + argv, capture_output=True, text=True, env=env)
    if done.returncode < 0 or "breaks its declaration" in done.stderr:
        raise RuntimeError("killed by signal %d: %s" % (-done.returncode, done.stderr.strip()[-800:]))
    if done.returncode not in codes:
        raise RuntimeError("exit %d: %s" % (done.returncode, done.stderr.strip()[-400:]))
    return json.loads(done.stdout)


def prepare_fleet(dlcheck, data, scratch):
    """Reports of several hosts for `fleet`: this machine's check, recorded CPUs' platform."""
    fleet = os.path.join(scratch, "fleet")
    os.makedirs(fleet, exist_ok=True)
    reports = [("live-check.json", ["check"])]
    for i, dump in enumerate(recorded(data, "cpuid/*.test")[:6]):
        reports.append(("node%d.json" % i, ["platform", "--cpuid-dump", dump]))
    for name, argv in reports:
        with open(os.path.join(fleet, name), "w") as f:
            json.dump(run_json(dlcheck, argv, {0, 1, 2}), f)


def strict(schema):
    """The schema with every declared object closed: no key it does not declare."""
    schema = copy.deepcopy(schema)

    def close(node):
        if isinstance(node, dict):
            if "properties" in node and "additionalProperties" not in node:
                node["additionalProperties"] = False
            for value in node.values():
                close(value)
        elif isinstance(node, list):
            for value in node:
                close(value)

    close(schema)
    return schema


def missing_keys(document, schema, where=""):
    """Keys a declared object lacks: every declared member is present, null when unknown."""
    lacking = []
    if not isinstance(document, dict):
        return lacking
    for key in schema.get("required", []):
        if key not in document:
            lacking.append(where + "/" + key)
    for key, sub in schema.get("properties", {}).items():
        if isinstance(document.get(key), dict):
            node = sub.get("anyOf", [sub])[0] if "anyOf" in sub else sub
            lacking += missing_keys(document[key], node, where + "/" + key)
    return lacking


def report_commands(dlcheck):
    """The report commands of the binary's command table (`dlcheck help --list`)."""
    done = subprocess.run([dlcheck, "help", "--list"], capture_output=True, text=True, check=True)
    return done.stdout.split()


def check_generated(dlcheck, schemas, commands):
    """Each command's checked-in schema is what the binary generates; no schema of a command the
    table does not have."""
    failures = []
    checked_in = sorted(os.path.basename(p).split(".")[0]
                        for p in glob.glob(os.path.join(schemas, "*.schema.json")))
    for name in sorted(set(checked_in) - set(commands)):
        failures.append("schemas/%s.schema.json: no such command in `dlcheck help --list`" % name)
    for name in commands:
        path = os.path.join(schemas, name + ".schema.json")
        done = subprocess.run([dlcheck, "schema", name], capture_output=True, text=True)
        expected = open(path).read() if os.path.exists(path) else None
        if done.returncode != 0 or done.stdout != expected:
            failures.append("schemas/%s.schema.json differs from `dlcheck schema %s`: run "
                            "`make schemas` and review the change" % (name, name))
    return failures


def check_every_command_has_a_document(calls, commands):
    """Every report command's document is checked (a new command cannot be left out)."""
    documented = {name for name, _, _ in calls}
    return ["dlcheck %s: no document of it is checked (add its invocation to invocations())" % c
            for c in commands if c not in documented]


def declared_paths(schema):
    """The member paths a schema declares, spelled as contract::DeclaredPaths spells them."""
    paths = set()

    def walk(properties, where):
        for name, member in properties.items():
            here = where + name
            paths.add(here)
            node = member if "type" in member else next(
                (m for m in member.get("anyOf", []) if m.get("type") != "null"), member)
            kinds = node.get("type", [])
            kinds = kinds if isinstance(kinds, list) else [kinds]
            if "object" in kinds and "properties" in node:
                walk(node["properties"], here + ".")
            elif "array" in kinds and "properties" in node.get("items", {}):
                walk(node["items"]["properties"], here + ".")
            elif "object" in kinds and "properties" in node.get("additionalProperties", {}):
                walk(node["additionalProperties"]["properties"], here + ".")

    identity = {"schema_version", "command", "dlcheck_version", "findings"}
    walk({k: v for k, v in schema["properties"].items() if k not in identity}, "")
    return paths


# Members only some machines write live, which no recording here can stand for: the AMX tile
# palette of a `check` (its platform is always the live host's; `platform` writes it from the
# recorded Sapphire Rapids dumps).
HOST_ONLY = {"check": {"cpu.amx_tiles", "cpu.amx_tiles.tiles", "cpu.amx_tiles.rows",
                       "cpu.amx_tiles.bytes_per_row"}}


def never_written(schemas, commands, record):
    """Declared members no run wrote: one failure per document."""
    written = {}
    with open(record) as f:
        for line in f:
            command, _, path = line.rstrip("\n").partition("\t")
            written.setdefault(command, set()).add(path)
    failures = []
    for name in commands:
        with open(os.path.join(schemas, name + ".schema.json")) as f:
            missing = sorted(declared_paths(json.load(f)) - written.get(name, set()) -
                             HOST_ONLY.get(name, set()))
        if missing:
            failures.append("%s: declared, written by no run: %s" % (name, ", ".join(missing)))
    return failures


def main():
    dlcheck, data, schemas, scratch = sys.argv[1:5]
    record = os.path.join(scratch, "contract_paths.txt")
    if os.path.exists(record):
        os.remove(record)
    os.environ["DLCHECK_CONTRACT_PATHS"] = record
    commands = report_commands(dlcheck)
    failures = check_generated(dlcheck, schemas, commands)
    prepare_fleet(dlcheck, data, scratch)
    calls = invocations(data, scratch)
    failures += check_every_command_has_a_document(calls, commands)
    loaded = {}
    checked = 0
    for name, argv, codes in calls:
        label = "dlcheck " + " ".join(os.path.basename(a) if os.sep in a else a for a in argv)
        try:
            document = run_json(dlcheck, argv, codes)
        except (RuntimeError, ValueError) as error:
            failures.append("%s: %s" % (label, error))
            continue
        if name not in loaded:
            with open(os.path.join(schemas, name + ".schema.json")) as f:
                schema = json.load(f)
            loaded[name] = (schema, jsonschema.Draft202012Validator(strict(schema)))
        schema, validator = loaded[name]
        errors = sorted(validator.iter_errors(document), key=lambda e: list(e.path))
        for error in errors[:5]:
            where = "/".join(str(p) for p in error.path)
            failures.append("%s: at /%s: %s" % (label, where, error.message[:200]))
        lacking = missing_keys(document, schema)
        if lacking:
            failures.append("%s: declared keys missing: %s" % (label, ", ".join(lacking[:8])))
        checked += 1
        print("%-70s %s" % (label[:70], "ok" if not errors and not lacking else "FAILED"))
    print("%d documents checked" % checked)
    failures += never_written(schemas, commands, record)
    if failures:
        print("FAILED:\n  " + "\n  ".join(failures))
        sys.exit(1)


if __name__ == "__main__":
    main()
