#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Every command's --format html page, loaded in a real browser (Debian's chromium, headless,
driven through the DevTools protocol with Debian's python3-websocket).

For each command's page, made from the real logs and recordings in tests/data (`platform`,
`verbose`, `check` and `profile` on the live host):
1. it loads from file:// with no console error, no uncaught exception and no CSP violation;
2. its charts are in the DOM with as many bars, cells and lanes as the report's own JSON (or
   Chrome trace, or folded stacks) says: counted here from those documents, never hard-coded;
3. clicking a numeric column's header sorts the rows (ascending, then descending), and typing in
   the filter box hides the rows without the text;
4. hostile text from a log (`<script>`, `</table>`, quotes, an `onerror` attribute) shows as
   text: no script of its runs, the table keeps its rows;
5. its first 1400 x 900 screen holds the verdict and the primary table's first row with its
   first answer column (the time it is sorted by);
and a full-page screenshot of each is kept under SCRATCH_DIR/html_screenshots/COMMAND.png.
`dispatch -f svg` is loaded too: the same charts, alone, with the same marks.

usage: html_browser_test.py DLCHECK DATA_DIR SCRATCH_DIR
Exits 0 when everything holds, 1 with the failures listed, 77 (skipped) without chromium or
python3-websocket.
"""
import base64
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

try:
    import websocket  # python3-websocket
except ImportError:
    print("skipped: python3-websocket is not installed (apt-get install python3-websocket)")
    sys.exit(77)

DEVTOOLS_TIMEOUT_S = 90
TINY = ["--iters", "1", "--warmup", "0", "--traced", "1", "--batch", "16", "--threads", "1"]
# The 2.6.3 template line and one real line of tests/data/verbose/generated_2.6.3.txt, with
# hostile text put in its implementation and auxiliary fields.
HOSTILE_LOG = (
    "onednn_verbose,info,prim_template:operation,engine,primitive,implementation,prop_kind,"
    "memory_descriptors,attributes,auxiliary,problem_desc,exec_time\n"
    "onednn_verbose,exec,cpu,convolution,"
    "jit:avx2\"'><script>window.__pwned=1</script></table>,forward_training,"
    "src_f32::blocked:aBcd16b:f0 wei_f32::blocked:ABcd16b16a:f0 bia_f32::blocked:a:f0 "
    "dst_f32::blocked:aBcd16b:f0,attr-scratchpad:user attr-post-ops:eltwise_relu ,"
    "alg:convolution_direct</td><img src=x onerror=\"window.__pwned=2\">,"
    "mb2_ic16oc32_ih13oh13kh3sh1dh0ph1_iw13ow13kw3sw1dw0pw1,0.0480957\n")


def run(dlcheck, argv, codes=(0,), fmt="json", output=None):
    """dlcheck ARGV with --format FMT (before a `--`), its stdout (or -o OUTPUT) kept."""
    split = argv.index("--") if "--" in argv else len(argv)
    extra = ["--format", fmt] + (["-o", output] if output else [])
    full = [dlcheck] + argv[:split] + extra + argv[split:]
    done = subprocess.run(full, capture_output=True, text=True, timeout=120)
    if done.returncode not in codes:
        raise RuntimeError("%s: exit %d: %s" % (" ".join(full), done.returncode,
                                                done.stderr.strip()[-500:]))
    return done.stdout


def label(row, columns):
    """A chart's label: the non-null texts of `columns`, joined by a space (chart_data.cpp)."""
    words = []
    for c in columns:
        v = row.get(c)
        if v is None:
            continue
        if isinstance(v, bool):
            v = "yes" if v else "no"
        words.append(v if isinstance(v, str) else str(v))
    return " ".join(w for w in words if w)


def distinct(rows, columns, value=None, limit=0):
    """How many bars a chart draws: distinct labels of rows with a number in `value`."""
    seen = []
    for r in rows:
        name = label(r, columns)
        if name and (value is None or isinstance(r.get(value), (int, float))) and name not in seen:
            seen.append(name)
    return min(len(seen), limit) if limit else len(seen)


class Browser:
    """One headless chromium; a page (tab) per report."""

    def __init__(self, scratch):
        self.profile = tempfile.mkdtemp(prefix="dlcheck-chromium-", dir=scratch)
        exe = shutil.which("chromium") or shutil.which("chromium-browser")
        argv = [exe, "--headless=new", "--remote-debugging-port=0", "--user-data-dir=" + self.profile,
                "--disable-gpu", "--no-first-run", "--no-default-browser-check",
                "--disable-extensions", "--disable-background-networking", "--hide-scrollbars",
                "--allow-file-access-from-files", "about:blank"]
        if os.geteuid() == 0:
            argv.insert(1, "--no-sandbox")  # chromium refuses its sandbox as root (CI)
        # Its temporary files (org.chromium.Chromium.*) in the scratch directory, not left in /tmp.
        env = dict(os.environ, TMPDIR=scratch)
        self.process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                        env=env)
        port_file = os.path.join(self.profile, "DevToolsActivePort")
        deadline = time.time() + 30
        while not os.path.exists(port_file) or os.path.getsize(port_file) == 0:
            if self.process.poll() is not None or time.time() > deadline:
                raise RuntimeError("chromium did not start: " +
                                   self.process.stderr.read().decode(errors="replace")[-800:])
            time.sleep(0.05)
        time.sleep(0.05)
        port, path = open(port_file).read().split()[:2]
        self.port = port
        # An answer may take long on a loaded machine (a full-page screenshot at load 10 took
        # over 30 s): the bound is for a browser that hangs, not a slow one.
        self.browser = websocket.create_connection("ws://127.0.0.1:%s%s" % (port, path),
                                                   timeout=DEVTOOLS_TIMEOUT_S,
                                                   suppress_origin=True)
        self.next_id = 0

    def close(self):
        try:
            self.browser.close()
        finally:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
            shutil.rmtree(self.profile, ignore_errors=True)

    def open(self, url):
        self.next_id += 1
        self.browser.send(json.dumps({"id": self.next_id, "method": "Target.createTarget",
                                      "params": {"url": "about:blank"}}))
        while True:
            message = json.loads(self.browser.recv())
            if message.get("id") == self.next_id:
                target = message["result"]["targetId"]
                break
        page = Page(websocket.create_connection(
            "ws://127.0.0.1:%s/devtools/page/%s" % (self.port, target), timeout=DEVTOOLS_TIMEOUT_S,
            suppress_origin=True))
        page.load(url)
        return page


class Page:
    def __init__(self, socket):
        self.socket = socket
        self.next_id = 0
        self.errors = []
        for method in ("Runtime.enable", "Log.enable", "Page.enable"):
            self.call(method)

    def _note(self, message):
        method = message.get("method", "")
        params = message.get("params", {})
        if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            self.errors.append("console: " + json.dumps(params.get("args"))[:300])
        elif method == "Runtime.exceptionThrown":
            self.errors.append("exception: " + json.dumps(params.get("exceptionDetails"))[:400])
        elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
            self.errors.append("log: " + params["entry"].get("text", "")[:300])

    def call(self, method, params=None, wait_event=None):
        self.next_id += 1
        my_id = self.next_id
        self.socket.send(json.dumps({"id": my_id, "method": method, "params": params or {}}))
        result = None
        seen_event = wait_event is None
        while result is None or not seen_event:
            message = json.loads(self.socket.recv())
            self._note(message)
            if message.get("method") == wait_event:
                seen_event = True
            if message.get("id") == my_id:
                if "error" in message:
                    raise RuntimeError("%s: %s" % (method, message["error"]))
                result = message.get("result", {})
        return result

    def load(self, url):
        self.call("Page.navigate", {"url": url}, wait_event="Page.loadEventFired")
        self.eval("1")  # drain what the load logged

    def eval(self, expression):
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                                "awaitPromise": True})
        if "exceptionDetails" in result:
            raise RuntimeError("evaluate %s: %s" % (expression[:80], result["exceptionDetails"]))
        return result["result"].get("value")

    def screenshot(self, path):
        width, height = self.eval("[1280, Math.min(document.documentElement.scrollHeight, 12000)]")
        self.call("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
        shot = self.call("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True})
        with open(path, "wb") as f:
            f.write(base64.b64decode(shot["data"]))

    def close(self):
        self.socket.close()


# What the page shows of its charts: per figure its table, kind and marks.
# A figure of small multiples holds one svg per facet: its marks are counted over all of them.
CHARTS_JS = """Array.from(document.querySelectorAll('figure')).map(f => {
  const svg = f.querySelector('svg.chart');
  const count = sel => f.querySelectorAll('svg.chart ' + sel).length;
  return {table: f.dataset.table, kind: svg.dataset.kind,
          svgs: f.querySelectorAll('svg.chart').length,
          bars: count('rect.bar'), whiskers: count('path.whisker'), cells: count('rect.cell'),
          lanes: count('g.lane'), spans: count('rect.span')};
})"""

SORT_JS = """(() => {
  // A numeric column if a table has one whose values differ, else a text column: click its
  // header twice and read the column back each time.
  const tables = Array.from(document.querySelectorAll('table.data'))
                      .filter(t => t.tBodies[0].rows.length >= 3);
  const differ = (t, i) => new Set(Array.from(t.tBodies[0].rows,
                                              r => r.cells[i].textContent)).size > 1;
  for (const numeric of [true, false]) {
    for (const table of tables) {
      const ths = Array.from(table.tHead.rows[0].cells);
      const at = ths.findIndex((th, i) => th.classList.contains('n') === numeric && differ(table, i));
      if (at < 0) continue;
      const values = () => Array.from(table.tBodies[0].rows, r => numeric ? r.cells[at].dataset.v
                                                                         : r.cells[at].textContent)
                                .filter(v => v !== '' && v !== '\u2013').map(v => numeric ? Number(v) : v);
      ths[at].click();
      const up = values();
      ths[at].click();
      const down = values();
      return {table: table.dataset.name, column: ths[at].firstChild.textContent, numeric, up, down,
              sort: ths[at].getAttribute('aria-sort')};
    }
  }
  return null;
})()"""


def in_order(values, numeric, reverse=False):
    """Whether `values` are sorted as the page sorts: numbers by value, text by its words with
    digit runs as numbers (localeCompare with numeric: true), compared here without the locale."""
    import re
    def key(v):
        if numeric:
            return (v,)
        return tuple((0, int(p), "") if p.isdigit() else (1, 0, p.lower())
                     for p in re.findall(r"\d+|\D+", v))
    keys = [key(v) for v in values]
    return keys == sorted(keys, reverse=reverse)


FILTER_JS = """(() => {
  const input = document.querySelector('input.filter');
  if (!input) return null;
  const table = document.getElementById(input.dataset.table);
  const word = table.tBodies[0].rows[0].cells[0].textContent.trim().split(/\\s+/)[0];
  input.value = word;
  input.dispatchEvent(new Event('input'));
  const rows = Array.from(table.tBodies[0].rows);
  const shown = rows.filter(r => r.style.display !== 'none');
  const expected = rows.filter(r => r.textContent.toLowerCase().includes(word.toLowerCase()));
  input.value = '';
  input.dispatchEvent(new Event('input'));
  return {word, shown: shown.length, expected: expected.length, all: rows.length};
})()"""


def expect_chart(charts, table, kind, failures, name, **counts):
    found = [c for c in charts if c["table"] == table and c["kind"] == kind]
    if not found:
        failures.append("%s: no %s chart of %s (charts: %s)" % (name, kind, table, charts))
        return
    for key, want in counts.items():
        got = found[0][key]
        if got != want:
            failures.append("%s: %s chart of %s has %d %s, the report says %d" %
                            (name, kind, table, got, key, want))


def pages(dlcheck, data, scratch):
    """(command, html path, checks(charts) -> failures) for every command."""
    verbose = os.path.join(data, "verbose")
    generated = os.path.join(verbose, "generated_2.6.3.txt")
    torch_log = os.path.join(verbose, "torch_cnn_2.6.3.log")
    avx2_log = os.path.join(verbose, "torch_cnn_avx2_2.6.3.log")
    cat = ["sh", "-c", 'cat "$0"', torch_log]
    fleet_dir = os.path.join(scratch, "fleet")
    os.makedirs(fleet_dir, exist_ok=True)
    for i, dump in enumerate(sorted(glob.glob(os.path.join(data, "cpuid", "*.test")))[:8]):
        with open(os.path.join(fleet_dir, "node%d.json" % i), "w") as f:
            f.write(run(dlcheck, ["platform", "--cpuid-dump", dump]))
    hostile = os.path.join(scratch, "hostile.log")
    with open(hostile, "w") as f:
        f.write(HOSTILE_LOG)
    # Busy for a time, not a count of steps: profile wants a run of a second or more, on any CPU.
    busy = ["python3", "-c", "import time\nend = time.time() + 1.5\nwhile time.time() < end: pass"]
    return [
        ("platform", ["platform"], (0,)),
        ("roofline", ["roofline", "--from", os.path.join(data, "roofline", "zen3_vm_2cpu.json")],
         (0,)),
        ("parse", ["parse", generated], (0,)),
        ("parse_hostile", ["parse", hostile], (0,)),
        ("verbose", ["verbose", "--model", "cnn"] + TINY, (0,)),
        ("run", ["run", "--"] + cat, (0,)),
        ("dispatch", ["dispatch", "--isa", "sse41", "--thread-sets", "1,all", "--repeat", "2",
                      "--"] + cat, (0, 1)),
        ("diff", ["diff", avx2_log, torch_log], (0, 1)),
        ("fleet", ["fleet", fleet_dir], (0,)),
        ("check", ["check"], (0, 1, 2)),
        ("profile", ["profile", "--"] + busy, (0,)),
        # The log recorded under an SSE4.1 cap: its layouts run as logged on any x86-64 host (the
        # CNN log's AVX-512 blocked layouts land on reference code below AVX-512, not measured).
        ("whatif", ["whatif", "--top", "2", "--time", "0.02", "--variants", "layouts,threads",
                    os.path.join(verbose, "torch_cnn_sse41_2.6.3.log")], (0,)),
        # Two OpenMP waiting variants of a short program: the answer, the line and the table.
        ("tune", ["tune", "--runs", "2", "--groups", "openmp", "--"] + busy[:2] +
         ["import time; time.sleep(0.05)"], (0,)),
    ]


# Where the first screen ends: the page is judged in a 1400 x 900 window.
FIRST_SCREEN = (1400, 900)

# On the first screen: the verdict (the headline), and the primary table's first row with its
# first two columns (what the row is, then its first answer: the time it is sorted by).
FIRST_SCREEN_JS = """(() => {
  window.scrollTo(0, 0);
  const box = e => { if (!e) return null; const r = e.getBoundingClientRect();
                     return {bottom: r.bottom, right: r.right}; };
  const table = document.querySelector('table.data');
  const row = table && table.tBodies[0].rows[0];
  return {headline: box(document.querySelector('p.headline')),
          table: table ? table.dataset.name : null,
          row: box(row),
          answer: row && row.cells.length > 1 ? box(row.cells[1]) : box(row && row.cells[0])};
})()"""


def first_screen(page, name, failures):
    """The verdict and the top row with its time are in the first 1400 x 900 screen."""
    width, height = FIRST_SCREEN
    page.call("Emulation.setDeviceMetricsOverride",
              {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
    seen = page.eval(FIRST_SCREEN_JS)
    if seen["headline"] is not None and seen["headline"]["bottom"] > height:
        failures.append("%s: the verdict ends at %d px, below the first screen" %
                        (name, seen["headline"]["bottom"]))
    if seen["row"] is None:
        return  # a page without a table of rows (a report of fields only)
    if seen["row"]["bottom"] > height:
        failures.append("%s: the first row of %s ends at %d px, below the first %d px" %
                        (name, seen["table"], seen["row"]["bottom"], height))
    if seen["answer"]["right"] > width:
        failures.append("%s: the first row's answer in %s ends at %d px, right of %d px" %
                        (name, seen["table"], seen["answer"]["right"], width))


def page_rows(page, table):
    """The rows the page itself shows in its table `table` (0 when it has none)."""
    return page.eval("""(() => { const t = document.querySelector('table.data[data-name=%s]');
        return t ? t.tBodies[0].rows.length : 0; })()""" % table)


def expected_checks(name, argv, doc, dlcheck, failures, charts, page):
    """The chart counts the report's own documents call for."""
    if name in ("parse", "run", "verbose"):
        by_kind = doc["summary"]["by_kind"]
        expect_chart(charts, "by_kind", "bars", failures, name,
                     bars=distinct(by_kind, ["primitive"], "exec_ms"))
        layers = distinct(doc["primitives"], ["layer"], "exec_ms_total", 40)
        if layers:
            expect_chart(charts, "primitives", "bars", failures, name, bars=layers)
        if "trace" in doc:
            events = doc["trace"]
        else:  # parse's document has no timeline: its Chrome trace is the same rows
            trace = json.loads(run(dlcheck, argv, fmt="trace"))
            events = [dict(category=e["cat"]) for e in trace["traceEvents"] if e["ph"] == "X"]
        expect_chart(charts, "trace", "lanes", failures, name,
                     lanes=distinct(events, ["category"]))
    elif name == "dispatch":
        configs = doc["configs"]
        expect_chart(charts, "configs", "bars", failures, name, bars=len(configs),
                     whiskers=len(configs))
        rows = distinct(doc["primitives"], ["primitive", "prop_kind", "problem"],
                        "exec_ms_total", 40)
        expect_chart(charts, "primitives", "heatmap", failures, name,
                     cells=rows * len(configs))
    elif name == "whatif":
        # Which variants are changes (faster than the baseline) is measured anew by each run:
        # the page's own run may rank another set than the JSON's: its own table says.
        if page_rows(page, "changes"):
            expect_chart(charts, "changes", "bars", failures, name)
        # Small multiples: a chart per hot primitive, a bar per variant with a speed-up (the row
        # as logged is 1).
        expect_chart(charts, "variants", "diverging", failures, name,
                     svgs=distinct(doc["variants"], ["hot", "primitive"], "speedup"),
                     bars=distinct(doc["variants"], ["hot", "primitive", "variant"], "speedup"))
    elif name == "diff":
        expect_chart(charts, "primitives", "diverging", failures, name,
                     bars=distinct(doc["primitives"], ["layer", "primitive", "prop_kind",
                                                       "problem"], "ratio", 60))
    elif name == "fleet":
        groups = doc["groups"]
        words = {w for g in groups for key in ("features", "lacks", "hidden") for w in g[key]}
        expect_chart(charts, "groups", "matrix", failures, name, cells=len(groups) * len(words))
    elif name == "profile":
        classes = doc["classes"]
        expect_chart(charts, "classes", "bars", failures, name,
                     bars=distinct(classes, ["class"], "pct"))


def main():
    dlcheck, data, scratch = sys.argv[1:4]
    if not (shutil.which("chromium") or shutil.which("chromium-browser")):
        print("skipped: chromium is not installed (apt-get install chromium)")
        return 77
    scratch = os.path.abspath(scratch)
    shots = os.path.join(scratch, "html_screenshots")
    os.makedirs(shots, exist_ok=True)
    work = tempfile.mkdtemp(prefix="html-pages-", dir=scratch)
    failures = []
    every_page = pages(dlcheck, data, work)
    # Every report command has its page here: a new command (whatif) adds its line to pages().
    commands = subprocess.run([dlcheck, "help", "--list"], capture_output=True, text=True).stdout
    covered = {argv[0] for _, argv, _ in every_page}
    failures += ["%s: no page in html_browser_test.py's pages()" % c
                 for c in commands.split() if c not in covered]
    browser = Browser(scratch)
    try:
        for name, argv, codes in every_page:
            started = time.time()
            html = os.path.join(work, name + ".html")
            try:
                doc = json.loads(run(dlcheck, argv, codes))
                run(dlcheck, argv, codes, fmt="html", output=html)
            except RuntimeError as e:
                if name == "profile" and "perf" in str(e):
                    print("profile page skipped: %s" % str(e)[-300:])
                    continue
                failures.append(str(e))
                continue
            page = browser.open("file://" + html)
            first_screen(page, name, failures)
            charts = page.eval(CHARTS_JS)
            expected_checks(name, argv, doc, dlcheck, failures, charts, page)
            for err in page.errors:
                failures.append("%s: %s" % (name, err))
            sort = page.eval(SORT_JS)
            if sort is not None:
                numeric = sort["numeric"]
                if not in_order(sort["up"], numeric) or not in_order(sort["down"], numeric, True):
                    failures.append("%s: clicking %s.%s does not sort it: %s / %s" %
                                    (name, sort["table"], sort["column"], sort["up"][:8],
                                     sort["down"][:8]))
            elif name != "parse_hostile":  # one row
                failures.append("%s: no table with 3 rows or more to sort" % name)
            filtered = page.eval(FILTER_JS)
            if filtered and filtered["shown"] != filtered["expected"]:
                failures.append("%s: filter %r shows %d rows, %d hold it" %
                                (name, filtered["word"], filtered["shown"], filtered["expected"]))
            if name == "parse_hostile":
                state = page.eval("""({pwned: window.__pwned === undefined ? null : window.__pwned,
                    scripts: document.scripts.length, imgs: document.images.length,
                    rows: document.querySelector('table.data[data-name=primitives]').tBodies[0].rows.length,
                    text: document.querySelector('table.data[data-name=primitives]').tBodies[0].textContent})""")
                if state["pwned"] is not None or state["scripts"] != 1 or state["imgs"] != 0:
                    failures.append("hostile text ran or made elements: %s" % state)
                if state["rows"] != len(doc["primitives"]):
                    failures.append("hostile text broke the table: %d rows, %d in JSON" %
                                    (state["rows"], len(doc["primitives"])))
                if "<script>window.__pwned=1</script></table>" not in state["text"]:
                    failures.append("hostile text is not shown as text: %r" % state["text"][:300])
            if name == "profile":
                frames, ran = page.eval("""(() => { const f = document.querySelector('iframe.flame');
                    if (!f) return [-1, false];
                    return [f.contentDocument.querySelectorAll('g.f').length,
                            f.contentWindow.W !== undefined]; })()""")
                if not ran:
                    failures.append("profile: the flame graph's script did not run (no zoom)")
                rows = page.eval("""document.querySelector('table.data[data-name=by_leaf]')
                    .tBodies[0].rows.length""")
                if frames < 1:
                    failures.append("profile: the flame graph has no frame (%d)" % frames)
                # The whole width of the page, and the whole graph in its frame (no scrolling).
                frame_w, page_w, svg_w, svg_h, frame_h = page.eval("""(() => {
                    const f = document.querySelector('iframe.flame');
                    const s = f.contentDocument.querySelector('svg').getBoundingClientRect();
                    return [f.getBoundingClientRect().width, f.parentElement.clientWidth,
                            s.width, s.height, f.clientHeight]; })()""")
                if svg_w < 0.95 * page_w or frame_w < 0.95 * page_w:
                    failures.append("profile: the flame graph is %.0f px (its frame %.0f) of the "
                                    "page's %.0f" % (svg_w, frame_w, page_w))
                scroll_h = page.eval("""document.querySelector('iframe.flame')
                    .contentDocument.documentElement.scrollHeight""")
                if svg_h > frame_h + 1 or scroll_h > frame_h + 1:
                    failures.append("profile: the flame graph (%.0f px high, its document %.0f) "
                                    "overflows its frame (%.0f)" % (svg_h, scroll_h, frame_h))
                if rows < 1:
                    failures.append("profile: the bottom-up table is empty")
            if name == "dispatch":  # -f svg: the same charts alone, in one SVG document
                svg = os.path.join(work, "dispatch.svg")
                run(dlcheck, argv, codes, fmt="svg", output=svg)
                svg_page = browser.open("file://" + svg)
                drawn = svg_page.eval("""Array.from(document.querySelectorAll('svg.chart'),
                    s => [s.dataset.kind, s.querySelectorAll('rect.bar').length,
                          s.querySelectorAll('rect.cell').length])""")
                want = [[c["kind"], c["bars"], c["cells"]] for c in charts]
                if drawn != want:
                    failures.append("dispatch -f svg draws %s, the page %s" % (drawn, want))
                failures.extend("dispatch -f svg: " + e for e in svg_page.errors)
                svg_page.screenshot(os.path.join(shots, "dispatch_svg.png"))
                svg_page.close()
            page.screenshot(os.path.join(shots, name + ".png"))
            page.close()
            print("%-14s %5.1fs charts: %s" % (name, time.time() - started,
                                               [(c["table"], c["kind"]) for c in charts]))
    finally:
        browser.close()
    shutil.rmtree(work, ignore_errors=True)
    for f in failures:
        print("FAIL " + f)
    print("screenshots: " + shots)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
