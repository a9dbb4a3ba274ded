// SPDX-License-Identifier: Apache-2.0
#include "report/flame_graph.h"

#include <fmt/format.h>

#include <algorithm>
#include <string_view>
#include <vector>

#include "report/safe_text.h"

namespace dlcheck::report {
namespace {

struct Node {
  std::string name;
  std::uint64_t samples = 0;
  std::map<std::string, std::size_t> children;  ///< by name: alphabetical, as flamegraph.pl
};

// The call tree of the collapsed stacks; node 0 is the root ("all").
std::vector<Node> BuildTree(const std::map<std::string, std::uint64_t>& folded) {
  std::vector<Node> nodes(1);
  nodes[0].name = "all";
  for (const auto& [stack, samples] : folded) {
    std::size_t at = 0;
    nodes[0].samples += samples;
    std::string_view rest = stack;
    while (!rest.empty()) {
      const std::size_t semi = rest.find(';');
      const std::string name = FoldedFrame(rest.substr(0, semi));
      rest = semi == std::string_view::npos ? std::string_view() : rest.substr(semi + 1);
      auto [it, added] = nodes[at].children.try_emplace(name, nodes.size());
      if (added) nodes.push_back(Node{name, 0, {}});
      at = it->second;
      nodes[at].samples += samples;
    }
  }
  return nodes;
}

std::string XmlEscape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        // XML 1.0 allows no control characters but tab, newline and carriage return.
        out += (static_cast<unsigned char>(c) < 0x20) ? '?' : c;
    }
  }
  return out;
}

// Kernel frames blue, JIT kernels green, the rest warm hues that vary with the name (so
// neighbours differ) but stay the same for one name across graphs.
std::string ColorOf(std::string_view name) {
  if (name.ends_with("_[s]")) return "url(#scanned)";  // kScannedPattern
  if (name.ends_with("_[k]")) return "rgb(120,160,225)";
  if (name.ends_with("_[j]")) return "rgb(80,190,90)";
  std::uint32_t hash = 2166136261u;
  for (char c : name) hash = (hash ^ static_cast<unsigned char>(c)) * 16777619u;
  const unsigned r = 205 + hash % 50;
  const unsigned g = 80 + (hash >> 8) % 130;
  const unsigned b = (hash >> 16) % 60;
  return fmt::format("rgb({},{},{})", r, g, b);
}

// The fill of a frame found by stack scanning: warm, with darker diagonal hatching.
constexpr std::string_view kScannedPattern =
    "<defs><pattern id=\"scanned\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" "
    "patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\" fill=\"rgb(235,200,140)\"/>"
    "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"rgb(170,120,60)\" "
    "stroke-width=\"3\"/></pattern></defs>\n";

bool HasScannedFrames(const std::vector<Node>& nodes) {
  return std::any_of(nodes.begin(), nodes.end(),
                     [](const Node& n) { return n.name.ends_with("_[s]"); });
}

double AsDouble(std::uint64_t n) {
  return static_cast<double>(n);
}

struct Layout {
  const FlameGraphOptions& options;
  const std::vector<Node>& nodes;
  double px_per_sample = 0;
  int depth = 0;   ///< levels drawn
  int top = 0;     ///< y of the graph's top
  int height = 0;  ///< of the whole image
};

int DepthOf(const Layout& l, std::size_t at) {
  int deepest = 0;
  for (const auto& [name, child] : l.nodes[at].children) {
    if (AsDouble(l.nodes[child].samples) * l.px_per_sample < l.options.min_width_px) continue;
    deepest = std::max(deepest, DepthOf(l, child));
  }
  return deepest + 1;
}

void WriteFrame(const Layout& l, const Node& node, double x, int level, std::ostream& out) {
  const double w = AsDouble(node.samples) * l.px_per_sample;
  const int y = l.top + (l.depth - 1 - level) * l.options.frame_height;
  const double pct =
      100.0 * AsDouble(node.samples) / AsDouble(std::max<std::uint64_t>(l.nodes[0].samples, 1));
  const std::string name = XmlEscape(node.name);
  out << fmt::format(
      "<g class=\"f\"><title>{} ({} samples, {:.2f}%)</title>"
      "<rect x=\"{:.1f}\" y=\"{}\" width=\"{:.1f}\" height=\"{}\" fill=\"{}\" rx=\"2\"/>",
      name, node.samples, pct, x, y, w, l.options.frame_height - 1, ColorOf(node.name));
  // About 7 px per character at 12 px; names that do not fit end in "..".
  const std::size_t fits = static_cast<std::size_t>(std::max(0.0, (w - 6) / 7));
  if (fits >= 3) {
    const std::string shown =
        node.name.size() <= fits ? node.name : node.name.substr(0, fits - 2) + "..";
    out << fmt::format("<text x=\"{:.1f}\" y=\"{}\">{}</text>", x + 3,
                       y + l.options.frame_height - 4, XmlEscape(shown));
  }
  out << "</g>\n";
}

void WriteFrames(const Layout& l, std::size_t at, double x, int level, std::ostream& out) {
  const Node& node = l.nodes[at];
  WriteFrame(l, node, x, level, out);
  for (const auto& [name, child] : node.children) {
    const double w = AsDouble(l.nodes[child].samples) * l.px_per_sample;
    if (w >= l.options.min_width_px) WriteFrames(l, child, x, level + 1, out);
    x += w;
  }
}

// Search, zoom and details, in plain JavaScript that runs inside the SVG.
constexpr std::string_view kScript = R"JS(
var frames = [], details, matched, W, X0 = 10;
function init(evt) {
  details = document.getElementById("details").firstChild;
  matched = document.getElementById("matched").firstChild;
  var gs = document.getElementsByClassName("f");
  for (var i = 0; i < gs.length; i++) {
    var r = gs[i].getElementsByTagName("rect")[0], t = gs[i].getElementsByTagName("text")[0];
    var f = {g: gs[i], r: r, t: t, name: gs[i].getElementsByTagName("title")[0].textContent,
             x: +r.getAttribute("x"), w: +r.getAttribute("width"), fill: r.getAttribute("fill")};
    f.label = f.name.replace(/ \([0-9]+ samples, [0-9.]+%\)$/, "");
    frames.push(f);
    gs[i].onmouseover = (function(f) { return function() { details.nodeValue = f.name; }; })(f);
    gs[i].onmouseout = function() { details.nodeValue = " "; };
    gs[i].onclick = (function(f) { return function() { zoom(f); }; })(f);
  }
  W = frames.length ? frames[0].w : 1;
  window.addEventListener("keydown", function(e) {
    if (e.keyCode === 114 || ((e.ctrlKey || e.metaKey) && e.keyCode === 70)) {
      e.preventDefault(); search_prompt();
    }
  });
}
function fit(f, x, w) {
  f.r.setAttribute("x", x); f.r.setAttribute("width", Math.max(w, 0));
  f.g.style.display = w < 0.25 ? "none" : "";
  if (!f.t) return;
  f.t.setAttribute("x", x + 3);
  var n = Math.floor((w - 6) / 7);
  f.t.textContent = n < 3 ? "" : (f.label.length <= n ? f.label : f.label.substr(0, n - 2) + "..");
}
function zoom(z) {
  var s = W / z.w;
  frames.forEach(function(f) {
    var inside = f.x + f.w > z.x + 1e-6 && f.x < z.x + z.w - 1e-6;
    var below = +f.r.getAttribute("y") >= +z.r.getAttribute("y");
    if (!inside) { fit(f, 0, 0); return; }
    if (below && f.w >= z.w) { fit(f, X0, W); return; }
    fit(f, X0 + (f.x - z.x) * s, f.w * s);
  });
}
function reset_zoom() { frames.forEach(function(f) { fit(f, f.x, f.w); }); }
function search_prompt() {
  var term = prompt("Search frames (regular expression):", "");
  if (term !== null) search(term);
}
function search(term) {
  var re = new RegExp(term), total = frames.length ? frames[0].w : 1, spans = [];
  frames.forEach(function(f) {
    var hit = term !== "" && re.test(f.label);
    f.r.setAttribute("fill", hit ? "rgb(230,0,230)" : f.fill);
    if (hit) spans.push([f.x, f.x + f.w]);
  });
  spans.sort(function(a, b) { return a[0] - b[0]; });
  var covered = 0, end = -1;
  spans.forEach(function(s) {
    if (s[1] <= end) return;
    covered += s[1] - Math.max(s[0], end); end = s[1];
  });
  matched.nodeValue = term === "" ? " " : "Matched: " + (100 * covered / total).toFixed(1) + "%";
}
)JS";

void WriteHeader(const Layout& l, std::ostream& out) {
  const FlameGraphOptions& o = l.options;
  out << fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
      "<svg version=\"1.1\" width=\"{8}\" height=\"{9}\" viewBox=\"0 0 {0} {1}\" "
      "onload=\"init(evt)\" xmlns=\"http://www.w3.org/2000/svg\">\n"
      "<style>text {{ font-family: Verdana, sans-serif; font-size: 12px; fill: #000; }}\n"
      ".f:hover rect {{ stroke: #000; stroke-width: 0.5; cursor: pointer; }}\n"
      ".b {{ cursor: pointer; fill: #225; }}</style>\n"
      "<script type=\"text/ecmascript\"><![CDATA[{2}]]></script>\n"
      "<rect width=\"100%\" height=\"100%\" fill=\"#f8f8f0\"/>\n"
      "<text x=\"{3}\" y=\"24\" text-anchor=\"middle\" style=\"font-size:17px\">{4}</text>\n"
      "<text x=\"{3}\" y=\"44\" text-anchor=\"middle\" style=\"fill:#555\">{5}</text>\n"
      "<text class=\"b\" x=\"10\" y=\"24\" onclick=\"reset_zoom()\">Reset zoom</text>\n"
      "<text class=\"b\" x=\"{6}\" y=\"24\" text-anchor=\"end\" "
      "onclick=\"search_prompt()\">Search</text>\n"
      "<text id=\"matched\" x=\"{6}\" y=\"{7}\" text-anchor=\"end\"> </text>\n"
      "<text id=\"details\" x=\"10\" y=\"{7}\"> </text>\n",
      o.width, l.height, kScript, o.width / 2, XmlEscape(o.title), XmlEscape(o.subtitle),
      o.width - 10, l.height - 10, o.fill_container ? "100%" : std::to_string(o.width),
      o.fill_container ? "100%" : std::to_string(l.height));
}

}  // namespace

void WriteFlameGraphSvg(const std::map<std::string, std::uint64_t>& folded,
                        const FlameGraphOptions& options, std::ostream& out) {
  const std::vector<Node> nodes = BuildTree(folded);
  Layout l{options, nodes};
  l.px_per_sample = (options.width - 20.0) / AsDouble(std::max<std::uint64_t>(nodes[0].samples, 1));
  l.depth = DepthOf(l, 0);
  l.top = 60;
  l.height = l.top + l.depth * options.frame_height + 30;
  WriteHeader(l, out);
  if (HasScannedFrames(nodes)) out << kScannedPattern;
  WriteFrames(l, 0, 10, 0, out);
  out << "</svg>\n";
}

std::vector<LeafCall> BottomUp(const std::map<std::string, std::uint64_t>& folded) {
  std::map<std::pair<std::string, std::string>, std::uint64_t> by_leaf;
  for (const auto& [stack, samples] : folded) {
    const std::string_view frames = stack;
    const std::size_t last = frames.rfind(';');
    const std::string_view leaf = last == std::string_view::npos ? frames : frames.substr(last + 1);
    std::string_view caller;
    if (last != std::string_view::npos) {
      const std::string_view before = frames.substr(0, last);
      const std::size_t previous = before.rfind(';');
      caller = previous == std::string_view::npos ? before : before.substr(previous + 1);
    }
    by_leaf[{std::string(leaf), std::string(caller)}] += samples;
  }
  std::vector<LeafCall> calls;
  for (const auto& [key, samples] : by_leaf) calls.push_back({key.first, key.second, samples});
  std::stable_sort(calls.begin(), calls.end(),
                   [](const LeafCall& a, const LeafCall& b) { return a.samples > b.samples; });
  return calls;
}

void WriteFolded(const std::map<std::string, std::uint64_t>& folded, std::ostream& out) {
  for (const auto& [stack, samples] : folded) {
    std::string_view rest = stack;
    for (bool first = true; first || !rest.empty(); first = false) {
      const std::size_t semi = rest.find(';');
      if (!first) out << ';';
      out << FoldedFrame(rest.substr(0, semi));
      rest = semi == std::string_view::npos ? std::string_view() : rest.substr(semi + 1);
    }
    out << ' ' << samples << '\n';
  }
}

}  // namespace dlcheck::report
