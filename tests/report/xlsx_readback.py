#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Reads back what `dlcheck ... --format xlsx` wrote, the way a spreadsheet does: the workbook's
XML parts (an .xlsx is a zip), the cells and their types. Standard library only.

usage: xlsx_readback.py DLCHECK_BINARY SCRATCH_DIR
Exits 0 when every check holds, 1 (with the failed check) otherwise.
"""
import subprocess
import sys
import xml.etree.ElementTree as ET
import zipfile

NS = {"m": "http://schemas.openxmlformats.org/spreadsheetml/2006/main"}
REL = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}id"

# A log whose text cells a spreadsheet would misread: `10:10` (a time in Gnumeric) and `=1+2`
# (a live formula), beside plain numbers.
LOG = (
    "onednn_verbose,exec,cpu,reorder,jit:uni,undef,src_f32::blocked:ab:f0 "
    "dst_f32::blocked:ab:f0,,,10:10,0.5\n"
    "onednn_verbose,exec,cpu,reorder,jit:uni,undef,src_f32::blocked:ab:f0 "
    "dst_f32::blocked:ab:f0,,,=1+2,0.25\n"
)


def check(condition, what):
    if not condition:
        print("FAILED: " + what)
        sys.exit(1)


def shared_strings(book):
    if "xl/sharedStrings.xml" not in book.namelist():
        return []
    root = ET.fromstring(book.read("xl/sharedStrings.xml"))
    return ["".join(t.text or "" for t in si.iter("{%s}t" % NS["m"])) for si in root]


def sheets(book):
    """(name, path) of every sheet, in workbook order."""
    root = ET.fromstring(book.read("xl/workbook.xml"))
    rels = ET.fromstring(book.read("xl/_rels/workbook.xml.rels"))
    target = {r.get("Id"): r.get("Target") for r in rels}
    return [(s.get("name"), "xl/" + target[s.get(REL)]) for s in root.find("m:sheets", NS)]


def cells(book, path, strings):
    """{ref: (type, value, has_formula)} with shared and inline strings resolved (dlcheck writes
    in libxlsxwriter's constant_memory mode, whose strings are inline: t="inlineStr"); either
    kind of text cell reads as type "s"."""
    root = ET.fromstring(book.read(path))
    out = {}
    for c in root.iter("{%s}c" % NS["m"]):
        kind = c.get("t", "n")
        v = c.find("m:v", NS)
        value = None if v is None else v.text
        if kind == "s" and value is not None:
            value = strings[int(value)]
        if kind == "inlineStr":
            kind = "s"
            value = "".join(t.text or "" for t in c.iter("{%s}t" % NS["m"]))
        out[c.get("r")] = (kind, value, c.find("m:f", NS) is not None)
    return out, root


def main():
    binary, scratch = sys.argv[1], sys.argv[2]
    log = scratch + "/spreadsheet.log"
    with open(log, "w") as f:
        f.write(LOG)
    xlsx = scratch + "/report.xlsx"
    with open(xlsx, "wb") as out:
        run = subprocess.run([binary, "parse", log, "--format", "xlsx"], stdout=out)
    check(run.returncode == 0, "dlcheck parse --format xlsx exited %d" % run.returncode)
    book = zipfile.ZipFile(xlsx)
    strings = shared_strings(book)
    names = [name for name, _ in sheets(book)]
    check(names[0] == "primitives", "the primitives table is the first sheet: %s" % names)
    check("findings" in names, "a findings sheet: %s" % names)
    grid, root = cells(book, sheets(book)[0][1], strings)
    header = [grid[ref][1] for ref in sorted(grid) if ref.endswith("1") and len(ref) == 2]
    check("problem" in header and "execs" in header, "the header row: %s" % header)
    column = {grid[c + "1"][1]: c for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ" if c + "1" in grid}
    problems = {grid[column["problem"] + str(r)] for r in (2, 3)}
    check(problems == {("s", "10:10", False), ("s", "=1+2", False)},
          "problem cells are text, not a time or a formula: %s" % problems)
    execs = grid[column["execs"] + "2"]
    check(execs[0] == "n" and float(execs[1]) == 1.0, "execs is a number: %s" % (execs,))
    total = grid[column["exec_ms_total"] + "2"]
    check(total[0] == "n", "exec_ms_total is a number: %s" % (total,))
    check(not any(formula for _, _, formula in grid.values()), "no cell holds a formula")
    pane = root.find("m:sheetViews/m:sheetView/m:pane", NS)
    check(pane is not None and pane.get("ySplit") == "1" and pane.get("state") == "frozen",
          "the header row is frozen")
    check(root.find("m:autoFilter", NS) is not None, "the table has an autofilter")
    cols = root.find("m:cols", NS)
    check(cols is not None and len(cols) > 0, "the columns are sized")
    widths = {int(c.get("min")): float(c.get("width")) for c in cols}
    problem_column = ord(column["problem"]) - ord("A") + 1
    check(widths.get(problem_column, 0) >= len("problem"),
          "the problem column is as wide as its header: %s" % widths)
    check_long_cell(binary, scratch)
    print("ok: %d sheets, %d cells on the first" % (len(names), len(grid)))


def check_long_cell(binary, scratch):
    """A text cell over Excel's 32,767 characters is cut with a visible marker and a finding,
    never written empty."""
    log = scratch + "/long.log"
    with open(log, "w") as f:
        f.write("onednn_verbose,exec,cpu,reorder,jit:uni,undef,src_f32::blocked:ab:f0 "
                "dst_f32::blocked:ab:f0,,," + "x" * 40000 + ",0.5\n")
    xlsx = scratch + "/long.xlsx"
    with open(xlsx, "wb") as out:
        run = subprocess.run([binary, "parse", log, "--format", "xlsx"], stdout=out)
    check(run.returncode == 0, "the long cell's workbook: exit %d" % run.returncode)
    book = zipfile.ZipFile(xlsx)
    strings = shared_strings(book)
    grid, _ = cells(book, sheets(book)[0][1], strings)
    column = {grid[c + "1"][1]: c for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ" if c + "1" in grid}
    kind, text, _ = grid[column["problem"] + "2"]
    check(kind == "s" and len(text) == 32767, "the long cell holds 32767 characters: %d"
          % len(text or ""))
    check(text.endswith("\u2026 [cut: 40000 characters]"), "the cut is marked: ..." + text[-40:])
    findings = [path for name, path in sheets(book) if name == "findings"]
    found, _ = cells(book, findings[0], strings)
    check(any(v[1] == "xlsx_cell_cut" for v in found.values()),
          "a finding names the cut cell: %s" % sorted(v[1] for v in found.values()))


if __name__ == "__main__":
    main()
