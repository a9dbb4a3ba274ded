#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""The EXAMPLES of every man page that show output: each `$ dlcheck ...` line in a literal block
(`.Bd -literal` ... `.Ed`) is run from the source tree with the built binary first on PATH, and
what it prints must be the lines the page shows under it, byte for byte (roff's `\\-` and `\\e`
read as `-` and `\\`). A page that shows output a command no longer prints fails here, so the
pages stay true to the program. Lines without `$ ` are synopses of use (a log the user has) and
are not run.

usage: man_examples_test.py BUILD_DIR SOURCE_DIR
Prints each example and whether it matched; exits 1 on any difference, 0 otherwise.
"""
import glob
import os
import subprocess
import sys


def unroff(line):
    return line.replace("\\-", "-").replace("\\e", "\\").replace("\\(en", "-")


def examples(page):
    """(line number, command, expected output lines) of each `$ ` example in `page`."""
    found, literal, current = [], False, None
    with open(page, encoding="utf-8") as f:
        for number, raw in enumerate(f, 1):
            line = raw.rstrip("\n")
            if line.startswith(".Bd -literal"):
                literal = True
                continue
            if line.startswith(".Ed"):
                literal, current = False, None
                continue
            if not literal:
                continue
            if line.startswith("$ "):
                current = (number, unroff(line[2:]), [])
                found.append(current)
            elif current is not None:
                current[2].append(unroff(line))
    return found


def main():
    build, source = (os.path.abspath(p) for p in sys.argv[1:3])
    env = dict(os.environ, PATH=build + os.pathsep + os.environ.get("PATH", ""))
    for name in ("ONEDNN_MAX_CPU_ISA", "DNNL_MAX_CPU_ISA", "ONEDNN_VERBOSE", "DNNL_VERBOSE"):
        env.pop(name, None)  # the examples show dlcheck's own defaults
    ran, failed = 0, 0
    for page in sorted(glob.glob(os.path.join(source, "man", "*.1"))):
        for number, command, expected in examples(page):
            ran += 1
            done = subprocess.run(["bash", "-o", "pipefail", "-c", command], cwd=source, env=env,
                                  capture_output=True, text=True, timeout=120)
            got = done.stdout.splitlines()
            where = f"{os.path.basename(page)}:{number}"
            # `| head` closes the pipe early: dlcheck then ends on SIGPIPE, which is no failure.
            ok = got == expected and (done.returncode == 0 or "| head" in command)
            print(f"{where}: {'ok' if ok else 'DIFFERS'}: $ {command}")
            if not ok:
                failed += 1
                print(f"  exit {done.returncode}; stderr: {done.stderr.strip()[-300:]}")
                for i in range(max(len(got), len(expected))):
                    want = expected[i] if i < len(expected) else "<none>"
                    have = got[i] if i < len(got) else "<none>"
                    if want != have:
                        print(f"  line {i + 1}: the page shows\n    {want}\n  dlcheck prints\n    {have}")
                        break
    print(f"{ran - failed} passed, {failed} failed")
    return 1 if failed or ran == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
