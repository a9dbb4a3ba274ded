#!/usr/bin/python3
"""The JSON contract, checked by its consumer (Debian's python3-jsonschema, draft 2020-12).

1. Each report command of the command table (`dlcheck help --list`) has its checked-in
   schemas/<command>.schema.json, and it is what `dlcheck schema <command>` generates from the
   declarations in src/report/contracts.cpp (regenerate with `make schemas`); every command has
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
    b = os.path.join(data, "verbose", "torch_cnn_2.6.3.log")
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
        ("check", ["check", "--stable"], {0, 1, 2}),
        ("check", ["check"], {0, 1, 2}),
        # A requirement no x86-64 CPU meets in full: a CRITICAL document.
        ("check", ["check", "--require", "avx512f,amx_int8,avx512_fp16"], {2}),
        ("diff", ["diff", a, b], {0, 1}),
        ("diff", ["diff", log, log], {0}),
        ("profile", ["profile", "--", "sleep", "1.5"], {0}),
        ("fleet", ["fleet", os.path.join(scratch, "fleet")], {0}),
    ]
    calls += [("parse", ["parse", f], {0}) for f in logs]
    calls += [("platform", ["platform", "--cpuid-dump", d], {0}) for d in dumps]
    calls += [("platform", ["platform", "--cpuid-dump", dumps[0], "--topology", t], {0})
              for t in topologies]
    return calls


def run_json(dlcheck, argv, codes):
    # The format goes before `--`: what follows it is the program's command line.
    split = argv.index("--") if "--" in argv else len(argv)
    argv = argv[:split] + ["--format", "json"] + argv[split:]
    done = subprocess.run([dlcheck] + argv, capture_output=True, text=True)
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


def main():
    dlcheck, data, schemas, scratch = sys.argv[1:5]
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
    if failures:
        print("FAILED:\n  " + "\n  ".join(failures))
        sys.exit(1)


if __name__ == "__main__":
    main()
