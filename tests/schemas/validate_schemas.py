#!/usr/bin/python3
"""Every command's --format json output against its published schema (schemas/<name>.schema.json,
JSON Schema draft 2020-12), with Debian's python3-jsonschema. Each invocation is small: recorded
inputs where a command reads any, the shortest model runs where it trains.

usage: validate_schemas.py DLCHECK DATA_DIR SCHEMA_DIR SCRATCH_DIR [--write-drafts]
Exits 0 when every document validates, 1 with the failures listed.
"""
import json
import os
import subprocess
import sys

import jsonschema

TINY = ["--iters", "1", "--warmup", "0", "--traced", "1", "--batch", "16", "--threads", "1"]


def invocations(data, scratch, dlcheck):
    """(schema name, argv, acceptable exit codes) of every command with a JSON report."""
    log = os.path.join(data, "verbose", "generated_2.6.3.txt")
    formats = os.path.join(data, "verbose", "formats_3.13.1.txt")
    dump = os.path.join(data, "cpuid", "11th-gen-intel-core-i7-1165g7.test")
    topology = os.path.join(data, "hwloc", "16amd64-4distances.xml")
    cat_log = ["sh", "-c", 'cat "$0"', log]
    return [
        ("platform", ["platform"], {0}),
        ("platform", ["platform", "--cpuid-dump", dump, "--topology", topology], {0}),
        ("platform", ["platform", "--probe"], {0}),
        ("parse", ["parse", log, formats], {0}),
        ("verbose", ["verbose", "--model", "mlp"] + TINY, {0}),
        ("run", ["run", "--"] + cat_log, {0}),
        ("dispatch", ["dispatch", "--model", "mlp", "--isa", "sse41"] + TINY, {0}),
        ("dispatch", ["dispatch", "--isa", "sse41", "--"] + cat_log, {0}),
        ("check", ["check", "--stable"], {0, 1, 2}),
        ("check", ["check"], {0, 1, 2}),
        ("diff", ["diff", log, log], {0}),
        ("profile", ["profile", "--", "sleep", "1.5"], {0}),
        ("fleet", ["fleet", os.path.join(scratch, "fleet")], {0}),
    ]


def run_json(dlcheck, argv, codes):
    # The format goes before `--`: what follows it is the program's command line.
    split = argv.index("--") if "--" in argv else len(argv)
    argv = argv[:split] + ["--format", "json"] + argv[split:]
    done = subprocess.run([dlcheck] + argv, capture_output=True, text=True)
    if done.returncode not in codes:
        raise RuntimeError("exit %d: %s" % (done.returncode, done.stderr.strip()))
    return json.loads(done.stdout)


def prepare_fleet(dlcheck, scratch):
    """Two hosts' reports for `fleet`: this machine's platform and check, named by host."""
    fleet = os.path.join(scratch, "fleet")
    os.makedirs(fleet, exist_ok=True)
    for name, argv in (("node1.json", ["platform"]), ("node2.json", ["check"])):
        report = run_json(dlcheck, argv, {0, 1, 2})
        with open(os.path.join(fleet, name), "w") as f:
            json.dump(report, f)


def main():
    dlcheck, data, schemas, scratch = sys.argv[1:5]
    drafts = "--write-drafts" in sys.argv
    prepare_fleet(dlcheck, scratch)
    failures = []
    saved = 0
    for name, argv, codes in invocations(data, scratch, dlcheck):
        label = "dlcheck " + " ".join(argv)
        try:
            document = run_json(dlcheck, argv, codes)
        except (RuntimeError, ValueError) as error:
            failures.append("%s: %s" % (label, error))
            continue
        if drafts:  # the documents scripts/schema_draft.py drafts a schema from
            saved += 1
            with open(os.path.join(scratch, "%s.%d.json" % (name, saved)), "w") as f:
                json.dump(document, f)
            continue
        with open(os.path.join(schemas, name + ".schema.json")) as f:
            schema = json.load(f)
        validator = jsonschema.Draft202012Validator(schema)
        errors = sorted(validator.iter_errors(document), key=lambda e: list(e.path))
        for error in errors[:5]:
            where = "/".join(str(p) for p in error.path)
            failures.append("%s: at /%s: %s" % (label, where, error.message[:200]))
        print("%-60s %s" % (label[:60], "ok" if not errors else "%d errors" % len(errors)))
    if failures:
        print("FAILED:\n  " + "\n  ".join(failures))
        sys.exit(1)


if __name__ == "__main__":
    main()
