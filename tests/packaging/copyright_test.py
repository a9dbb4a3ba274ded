#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""The package's copyright file (packaging/deb/copyright) names the licence of every library
dlcheck links or loads, and each is the licence Debian's own package of that library states.

Its Comment lists one library a line, `  NAME (PACKAGE...): LICENCE`. For each library dlcheck
links (oneDNN, libcpuid, hwloc, CLI11, fmt, nlohmann JSON, libxlsxwriter, libarchive, libelf, Zydis)
there must be such a line, and the LICENCE must be one of the `License:` names of the copyright
file of the library's Debian package (/usr/share/doc/PACKAGE/copyright, installed by
scripts/setup.sh), or, for a copyright file without such names (hwloc's), its text must be that
licence's. dlcheck's own code must be Apache-2.0, and LICENSE at the root the Apache License.

usage: copyright_test.py SOURCE_DIR
"""
import os
import re
import sys

# The libraries dlcheck links or loads: the name the copyright file gives, and the Debian
# package whose copyright file states the licence (a -dev package where the library is
# compiled in or its doc directory is the -dev one's).
LIBRARIES = {
    "oneDNN": "libdnnl-dev",
    "libcpuid": "libcpuid-dev",
    "hwloc": "libhwloc-dev",
    "CLI11": "libcli11-dev",
    "fmt": "libfmt-dev",
    "nlohmann JSON": "nlohmann-json3-dev",
    "libxlsxwriter": "libxlsxwriter-dev",
    "libarchive": "libarchive-dev",
    "libelf": "libelf-dev",
    "Zydis": "libzydis-dev",
}

# What a licence's text says, for a copyright file that gives no `License:` name.
TEXT_OF = {"BSD": "Redistribution and use in source and binary forms"}


def listed(copyright_text):
    """{library: licence} from the Comment's `  NAME (...): LICENCE` lines."""
    found = {}
    for line in copyright_text.splitlines():
        m = re.match(r"^  (\S.*?) \(.*\): (.+)$", line)
        if m:
            found[m.group(1)] = m.group(2).strip()
    return found


def debian_names(text):
    return {m.strip().lower() for m in re.findall(r"^License:[ \t]*(.+)$", text, re.M)}


SPDX = "SPDX-License-Identifier: Apache-2.0"
SOURCES = (".cpp", ".h", ".py", ".sh")


def unlabelled_sources(source):
    """The source files under src/, tests/, fuzz/ and scripts/ without the SPDX line."""
    missing = []
    for top in ("src", "tests", "fuzz", "scripts"):
        for root, dirs, files in os.walk(os.path.join(source, top)):
            dirs[:] = [d for d in dirs if os.path.join(root, d) != os.path.join(source, "tests", "data")]
            for name in files:
                if not name.endswith(SOURCES):
                    continue
                path = os.path.join(root, name)
                with open(path, encoding="utf-8", errors="replace") as f:
                    head = "".join(f.readline() for _ in range(3))
                if SPDX not in head:
                    missing.append(os.path.relpath(path, source))
    return missing


def main():
    source = sys.argv[1]
    failures = []
    unlabelled = unlabelled_sources(source)
    failures += [f"{path}: no `{SPDX}` line in its first three lines" for path in unlabelled]
    failed_checks = 1 if unlabelled else 0
    with open(os.path.join(source, "packaging", "deb", "copyright"), encoding="utf-8") as f:
        ours = f.read()
    licences = listed(ours)
    if not re.search(r"^Files: \*\nCopyright: [^\n]*the dlcheck authors", ours, re.M):
        failures.append("no `Files: *` paragraph for the dlcheck authors")
        failed_checks += 1
    if "License: Apache-2.0 and" not in ours or "\nLicense: Apache-2.0\n" not in ours:
        failures.append("dlcheck's own code is not stated as Apache-2.0")
        failed_checks += 1
    with open(os.path.join(source, "LICENSE"), encoding="utf-8") as f:
        if "Apache License" not in f.read(200):
            failures.append("LICENSE is not the Apache License")
            failed_checks += 1
    for library, package in LIBRARIES.items():
        licence = licences.get(library)
        if licence is None:
            failures.append(f"{library}: not listed in packaging/deb/copyright")
            failed_checks += 1
            continue
        path = f"/usr/share/doc/{package}/copyright"
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                theirs = f.read()
        except OSError as e:
            failures.append(f"{library}: cannot read {path} ({e.strerror}): "
                            "run scripts/setup.sh to install its package")
            failed_checks += 1
            continue
        names = debian_names(theirs)
        names.discard("")
        if names:
            ok = licence.lower() in names
        else:
            family = next((t for k, t in TEXT_OF.items() if licence.startswith(k)), None)
            ok = family is not None and family in theirs
        print(f"{library:14} {licence:30} {'ok' if ok else 'DIFFERS'} ({path})")
        if not ok:
            failed_checks += 1
            failures.append(f"{library}: {licence!r} is not a licence {path} states "
                            f"({sorted(names) if names else 'its text'})")
    for f in failures:
        print("FAIL " + f)
    checks = len(LIBRARIES) + 4  # the libraries, the Files paragraph, Apache-2.0, LICENSE, SPDX
    print(f"{checks - failed_checks} passed, {failed_checks} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
