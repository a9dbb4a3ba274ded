// SPDX-License-Identifier: Apache-2.0
#include "verbose/line_parser.h"

#include <array>
#include <charconv>
#include <cmath>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <utility>

#include "common/primitive_kinds.h"
#include "verbose/dialect.h"
#include "verbose/exec_time.h"
#include "verbose/isa.h"

namespace dlcheck::verbose {
namespace {

bool IsWordChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// The marker's start and family; `end` is just past its comma.
std::size_t LocateMarker(std::string_view line, Family& family, std::size_t& end) {
  const Dialect& first = kDialects.front();  // most lines: at the start, the most frequent
  if (line.starts_with(first.marker)) {
    family = first.family;
    end = first.marker.size();
    return 0;
  }
  for (std::size_t p = line.find(kMarkerTail); p != std::string_view::npos;
       p = line.find(kMarkerTail, p + 1)) {
    std::size_t start = p;
    while (start > 0 && IsWordChar(line[start - 1])) --start;
    if (const Dialect* dialect = FindDialect(line.substr(start, p - start));
        dialect != nullptr && dialect->verbose_tail) {
      family = dialect->family;
      end = p + kMarkerTail.size();
      return start;
    }
  }
  // The markers that are not `<word>_verbose,` (ZenDNN's plug-in and profiler lines): rarer,
  // looked for only in a line without a verbose marker.
  for (const Dialect& dialect : kDialects) {
    if (dialect.verbose_tail) continue;
    if (const std::size_t p = line.find(dialect.marker); p != std::string_view::npos) {
      family = dialect.family;
      end = p + dialect.marker.size();
      return p;
    }
  }
  family = Family::kNone;
  return std::string_view::npos;
}

std::string_view TrimRight(std::string_view s) {
  while (!s.empty() &&
         (s.back() == ' ' || s.back() == '\t' || s.back() == '\r' || s.back() == '\n')) {
    s.remove_suffix(1);
  }
  return s;
}

std::string_view Trim(std::string_view s) {
  s = TrimRight(s);
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  return s;
}

bool IsDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

// `<digits>.<digits>`: the shape of a timestamp (std::to_string of a double).
bool IsTimestamp(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size() && static_cast<unsigned>(s[i] - '0') < 10) ++i;
  if (i == 0 || i == s.size() || s[i] != '.') return false;
  const std::size_t fraction = ++i;
  while (i < s.size() && static_cast<unsigned>(s[i] - '0') < 10) ++i;
  return i == s.size() && i > fraction;
}

bool IsVersionToken(std::string_view s) {
  return s.size() >= 2 && s[0] == 'v' && IsDigits(s.substr(1));
}

bool IsComponent(std::string_view s) {
  return s == "primitive" || s == "graph" || s == "ukernel" || s == "common";
}

bool IsEngine(std::string_view s) {
  if (s == "cpu2gpu" || s == "gpu2cpu") return true;
  if (!s.starts_with("cpu") && !s.starts_with("gpu")) return false;
  return s.size() == 3 || (s[3] == ':' && IsDigits(s.substr(4)));
}

bool IsKnownOperation(std::string_view head) {
  return head == "info" || head == "create" || head == "create_nested" || head == "exec" ||
         head == "compile" || head == "error" || head == "warning" || head == "warn" ||
         head == "debuginfo";
}

// Parses a number printed with %g, tolerating markdown `**` and a trailing full stop.
bool ParseNumber(std::string_view text, double& value) {
  text = Trim(text);
  while (!text.empty() && text.front() == '*') text.remove_prefix(1);
  while (!text.empty() && (text.back() == '*' || text.back() == '.')) text.remove_suffix(1);
  if (text.empty()) return false;
  if (text.front() == '+') text.remove_prefix(1);
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  return ec == std::errc() && ptr == end;
}

// `text` as an execution time: a number from 0 to kMaxExecMs (exec_time.h).
bool ParseExecTime(std::string_view text, double& ms) {
  return ParseNumber(text, ms) && IsExecTime(ms);
}

void Assign(std::string& out, std::string_view in) {
  out.assign(in.data(), in.size());
}

}  // namespace

std::string_view OperationName(Operation op) {
  switch (op) {
    case Operation::kCreate:
      return "create";
    case Operation::kCreateNested:
      return "create_nested";
    case Operation::kExec:
      return "exec";
    case Operation::kInfo:
      return "info";
    case Operation::kDiagnostic:
      return "diagnostic";
  }
  return "exec";
}

std::string_view ImplClassName(ImplClass impl_class) {
  switch (impl_class) {
    case ImplClass::kUnknown:
      return "unknown";
    case ImplClass::kJit:
      return "jit";
    case ImplClass::kGemm:
      return "gemm";
    case ImplClass::kScalar:
      return "scalar";
    case ImplClass::kExternal:
      return "external";
    case ImplClass::kAcl:
      return "acl";
  }
  return "unknown";
}

ImplClass ImplClassFromName(std::string_view name) {
  for (const ImplClass c : {ImplClass::kJit, ImplClass::kGemm, ImplClass::kScalar,
                            ImplClass::kExternal, ImplClass::kAcl}) {
    if (ImplClassName(c) == name) return c;
  }
  return ImplClass::kUnknown;
}

std::string_view SkipReasonName(SkipReason reason) {
  switch (reason) {
    case SkipReason::kNone:
      return "none";
    case SkipReason::kForeign:
      return "foreign";
    case SkipReason::kGraph:
      return "graph";
    case SkipReason::kUnknownOperation:
      return "unknown_operation";
    case SkipReason::kTruncated:
      return "truncated";
    case SkipReason::kFieldCount:
      return "field_count";
    case SkipReason::kBadTime:
      return "bad_time";
    case SkipReason::kTooLong:
      return "too_long";
  }
  return "none";
}

std::string_view SkipReasonText(SkipReason reason) {
  switch (reason) {
    case SkipReason::kNone:
      return "parsed";
    case SkipReason::kForeign:
      return "no oneDNN verbose marker in the line";
    case SkipReason::kGraph:
      return "oneDNN Graph API line that is not a partition's compile or exec";
    case SkipReason::kUnknownOperation:
      return "unknown operation after the verbose marker";
    case SkipReason::kTruncated:
      return "too few fields: the line is cut or wrapped";
    case SkipReason::kFieldCount:
      return "more fields than the format or template line has";
    case SkipReason::kBadTime:
      return "the time field is not a finite non-negative number";
    case SkipReason::kTooLong:
      return "line longer than the 1 MiB line cap";
  }
  return "parsed";
}

std::size_t FindMarker(std::string_view line) {
  Family family;
  std::size_t end;
  return LocateMarker(line, family, end);
}

std::size_t LineParser::Split(std::string_view text) {
  count_ = 0;
  while (count_ + 1 < kMaxFields) {
    const void* hit = std::memchr(text.data(), ',', text.size());
    if (hit == nullptr) break;
    const std::size_t pos = static_cast<std::size_t>(static_cast<const char*>(hit) - text.data());
    fields_[count_++] = text.substr(0, pos);
    text.remove_prefix(pos + 1);
  }
  fields_[count_++] = text;  // the last field holds any remainder
  return count_;
}

std::string_view LineParser::Join(std::size_t first, std::size_t last) const {
  if (first >= last) return {};
  const char* begin = fields_[first].data();
  const char* end = fields_[last - 1].data() + fields_[last - 1].size();
  return std::string_view(begin, static_cast<std::size_t>(end - begin));
}

void LineParser::ClearEvent(VerboseEvent& e) const {
  e.era = Era::kUnknown;
  e.format_version = 0;
  e.cache_state.clear();
  e.operation_text.clear();
  e.component.clear();
  e.engine.clear();
  e.primitive.clear();
  e.implementation.clear();
  e.isa.clear();
  e.isa_inferred = false;
  e.impl_class = ImplClass::kUnknown;
  e.prop_kind.clear();
  e.memory_descriptors.clear();
  e.attributes.clear();
  e.auxiliary.clear();
  e.problem.clear();
  e.time_ms.reset();
  e.timestamp.reset();
  e.message.clear();
  e.layer.reset();
}

void LineParser::Classify(VerboseEvent& e) {
  auto it = class_memo_.find(std::string_view(e.implementation));
  if (it == class_memo_.end()) {
    if (class_memo_.size() >= 4096) class_memo_.clear();  // bounded: names are few in practice
    it = class_memo_
             .emplace(e.implementation,
                      std::pair(std::string(IsaOf(e.implementation)),
                                ClassifyImplementation(e.implementation).impl_class))
             .first;
  }
  e.impl_class = it->second.second;
  e.isa = it->second.first;
  if (e.isa.empty() && (e.impl_class == ImplClass::kJit || e.impl_class == ImplClass::kGemm) &&
      !header_.isa_short.empty() && (e.engine.empty() || e.engine.starts_with("cpu"))) {
    e.isa = header_.isa_short;
    e.isa_inferred = true;
  }
}

namespace {

// What comes before the operation field: the `vN` token (3.6+), the timestamp, the component.
struct LinePrefix {
  std::size_t op = 0;  // the index of the operation field
  int version = 0;
  std::optional<double> timestamp;
  std::string_view component;
};

LinePrefix ReadPrefix(std::span<const std::string_view> fields, Family family) {
  LinePrefix p;
  std::size_t& i = p.op;
  const std::size_t n = fields.size();
  const Dialect dialect = DialectOf(family);
  if (dialect.version_field && i < n && IsVersionToken(fields[i])) {
    std::from_chars(fields[i].data() + 1, fields[i].data() + fields[i].size(), p.version);
    ++i;
  }
  if (dialect.timestamp_field && i < n && IsTimestamp(fields[i])) {
    double ts = 0;
    if (ParseNumber(fields[i], ts) && IsTimestampMs(ts)) p.timestamp = ts;
    ++i;
  }
  if (i < n && IsComponent(fields[i])) {
    p.component = fields[i++];
  } else if (p.version >= 1 && i + 1 < n &&
             !IsKnownOperation(fields[i].substr(0, fields[i].find(':')))) {
    p.component = fields[i++];  // `v1,cpu,debuginfo,...`, `v1,cpu,acl,...`
  }
  return p;
}

Era EraOf(Family family, const LinePrefix& p, bool engine_after_op) {
  if (family == Family::kMkldnn) return engine_after_op ? Era::kMkldnn1 : Era::kMkldnn0;
  if (family == Family::kOnednn || family == Family::kNone) {
    return p.version >= 1 ? Era::kOnednnV1
                          : (p.component.empty() ? Era::kOnednn : Era::kOnednnComponent);
  }
  return OnlyEraOf(family);
}

bool IsDiagnosticOperation(std::string_view head, std::string_view sub) {
  return (head == "create" &&
          (sub == "check" || sub == "dispatch" || sub == "debug" || sub == "start")) ||
         (head == "exec" && sub == "check") || head == "error" || head == "warning" ||
         head == "warn" || head == "debuginfo";
}

}  // namespace

// The same rule as ReadPrefix, on the raw line: after the marker, an optional `vN` token, then a
// `<digits>.<digits>` field, where the dialect has them (dialect.h).
bool FindTimestampField(std::string_view line, std::size_t& begin, std::size_t& end,
                        std::optional<double>& value) {
  Family family;
  std::size_t at = 0;
  if (LocateMarker(line, family, at) == std::string_view::npos) return false;
  const Dialect dialect = DialectOf(family);
  if (!dialect.timestamp_field) return false;
  auto field_end = [&](std::size_t from) {
    const std::size_t comma = line.find(',', from);
    return comma == std::string_view::npos ? line.size() : comma;
  };
  std::size_t stop = field_end(at);
  if (dialect.version_field && IsVersionToken(line.substr(at, stop - at))) {
    if (stop == line.size()) return false;
    at = stop + 1;
    stop = field_end(at);
  }
  // A timestamp is never the last field: the operation follows it.
  if (stop == line.size() || !IsTimestamp(line.substr(at, stop - at))) return false;
  begin = at;
  end = stop + 1;
  double ts = 0;
  value = ParseNumber(line.substr(at, stop - at), ts) && IsTimestampMs(ts)
              ? std::optional<double>(ts)
              : std::nullopt;
  return true;
}

ParseResult LineParser::Parse(std::string_view line, VerboseEvent& e) {
  line = TrimRight(line);
  if (Trim(line).empty()) return {LineKind::kBlank, SkipReason::kNone};
  Family family;
  std::size_t end = 0;
  if (LocateMarker(line, family, end) == std::string_view::npos || !Admits(dialect_, family)) {
    return {LineKind::kSkipped, SkipReason::kForeign};
  }
  if (family == Family::kZendnnPrimitive) return ParseZendnnPrimitive(line.substr(end), e);
  if (family == Family::kZendnnProfile) return ParseZendnnProfile(line.substr(end), e);
  if (family == Family::kOrtProfile) return ParseOrtProfile(line.substr(end), e);
  const std::size_t n = Split(line.substr(end));
  // oneDNN never prints a blank after the marker: `dnnl_verbose, create ...` is prose about it.
  if (fields_[0].starts_with(' ')) return {LineKind::kSkipped, SkipReason::kForeign};

  const LinePrefix p = ReadPrefix(std::span(fields_.data(), n), family);
  const std::size_t i = p.op;
  if (i >= n || (i + 1 == n && fields_[i].empty())) {
    return {LineKind::kSkipped, SkipReason::kTruncated};
  }
  const std::string_view head = fields_[i].substr(0, fields_[i].find(':'));
  if (head == "info" && family == Family::kZendnn) return ParseZendnnInfo(i + 1);
  if (head == "info") {
    const ParseResult r = ParseInfo(i + 1, p.component);
    UpdateState();
    return r;
  }
  ClearEvent(e);
  e.format_version = p.version;
  e.timestamp = p.timestamp;
  Assign(e.component, p.component);
  e.era = EraOf(family, p, i + 1 < n && IsEngine(fields_[i + 1]));
  if (family == Family::kGraph || p.component == "graph" || head == "compile") {
    if (family == Family::kGraph) e.component = "graph";
    return ParseGraph(i, e);
  }
  return ParseOperation(i, p.component, e);
}

// A oneDNN Graph API line (FORMATS.md section 7): `exec` and `compile:<cache state>` of a
// compiled partition become events of the partition's row; `create:dispatch` (the pattern
// matcher's trace) and the other diagnostics become diagnostics; anything else is skipped.
ParseResult LineParser::ParseGraph(std::size_t i, VerboseEvent& e) {
  const std::string_view op = fields_[i];
  const std::size_t colon = op.find(':');
  const std::string_view head = op.substr(0, colon);
  const std::string_view sub = colon == std::string_view::npos ? "" : op.substr(colon + 1);
  if (IsDiagnosticOperation(head, sub)) return ParseDiagnostic(i, e);
  if (head != "exec" && head != "compile") return {LineKind::kSkipped, SkipReason::kGraph};
  e.operation = head == "exec" ? Operation::kExec : Operation::kCreate;
  Assign(e.cache_state, sub);
  return ParsePartition(i + 1, e);
}

// The fields of a partition line, in the order every version's graph template shares:
// engine, partition_id, partition_kind, op_names, data_formats, logical_tensors, fpmath_mode,
// [implementation (3.6+)], backend, exec_time; 3.13 adds `scratchpad:<...>` before the
// implementation, not in its template. A partition is a row: the kind is its primitive, the
// backend (and implementation) its implementation, the op names its layer, the id its problem.
ParseResult LineParser::ParsePartition(std::size_t first, VerboseEvent& e) {
  const std::size_t n = count_;
  if (n < first + 4) return {LineKind::kSkipped, SkipReason::kTruncated};
  double ms = 0;
  if (!ParseExecTime(fields_[n - 1], ms)) {
    return {LineKind::kSkipped, n < first + 9 ? SkipReason::kTruncated : SkipReason::kBadTime};
  }
  e.time_ms = ms;
  Assign(e.engine, fields_[first]);
  if (n < first + 9) {
    // Internal executables print their own fields (`_gen_index(_gen_index),<id>,attrs:{...},
    // inputs:{...},outputs:{...}`): kind, id, and the rest as the tensors.
    Assign(e.primitive, fields_[first + 1]);
    e.problem = "partition:";
    e.problem.append(fields_[first + 2]);
    Assign(e.memory_descriptors, Join(first + 3, n - 1));
    e.impl_class = ImplClass::kUnknown;
    return {LineKind::kEvent, SkipReason::kNone};
  }
  e.problem = "partition:";
  e.problem.append(Trim(fields_[first + 1]));
  Assign(e.primitive, fields_[first + 2]);
  e.layer.emplace(fields_[first + 3]);
  Assign(e.auxiliary, TrimRight(fields_[first + 4]));
  Assign(e.memory_descriptors, TrimRight(fields_[first + 5]));
  Assign(e.attributes, TrimRight(fields_[first + 6]));
  // Between fpmath_mode and the backend: the 3.13 scratchpad, then the implementation.
  Assign(e.implementation, fields_[n - 2]);
  for (std::size_t k = first + 7; k + 2 < n; ++k) {
    if (fields_[k].starts_with("scratchpad:")) {
      e.attributes.push_back(' ');
      e.attributes.append(fields_[k]);
    } else if (!fields_[k].empty()) {
      e.implementation.push_back(':');
      e.implementation.append(fields_[k]);
    }
  }
  e.impl_class = ImplClass::kUnknown;
  return {LineKind::kEvent, SkipReason::kNone};
}

// Dispatches on the operation field `fields_[i]` of a line that is not a header line.
ParseResult LineParser::ParseOperation(std::size_t i, std::string_view component, VerboseEvent& e) {
  const std::size_t n = count_;
  const std::string_view op = fields_[i];
  const std::size_t colon = op.find(':');
  const std::string_view head = op.substr(0, colon);
  const std::string_view sub = colon == std::string_view::npos ? "" : op.substr(colon + 1);
  if (IsDiagnosticOperation(head, sub)) return ParseDiagnostic(i, e);
  if (head == "exec" && sub == "external") return ParseExternal(i, e);
  if (head == "create" || head == "create_nested" || head == "exec") {
    e.operation = head == "exec"     ? Operation::kExec
                  : head == "create" ? Operation::kCreate
                                     : Operation::kCreateNested;
    Assign(e.cache_state, sub);
    return ParseProfiling(e.era, i + 1, e);
  }
  const bool engine_component = !component.empty() && !IsComponent(component);
  if (!IsKnownOperation(head) &&
      (engine_component || head == "cpu" || head == "gpu" || head == "jit_perf")) {
    // Legacy error and ACL lines: `dnnl_verbose,gpu,ocl_error,<n>`, `v1,cpu,acl,unsupported: ..`.
    e.operation = Operation::kDiagnostic;
    Assign(e.operation_text, op);
    Assign(e.message, Join(i + 1, n));
    return {LineKind::kEvent, SkipReason::kNone};
  }
  return {LineKind::kSkipped, SkipReason::kUnknownOperation};
}

// ACL kernel timing (3.2+): `exec:external,<kernel>,<ms>`.
ParseResult LineParser::ParseExternal(std::size_t i, VerboseEvent& e) {
  if (i + 3 != count_) return {LineKind::kSkipped, SkipReason::kTruncated};
  double ms = 0;
  if (!ParseExecTime(fields_[i + 2], ms)) {
    return {LineKind::kSkipped, SkipReason::kBadTime};
  }
  e.operation = Operation::kExec;
  e.engine = "cpu";
  e.primitive = onednn::NameOf(onednn::Kind::kExternal);
  Assign(e.implementation, fields_[i + 1]);
  e.impl_class = ImplClass::kAcl;  // oneDNN times only ACL's kernels this way
  e.time_ms = ms;
  return {LineKind::kEvent, SkipReason::kNone};
}

void LineParser::UpdateState() {
  for (std::size_t k = 0; k < states_.size(); ++k) {
    if (states_[k].first == header_.isa_short && states_[k].second == template_) {
      state_id_ = static_cast<std::uint32_t>(k + 1);
      return;
    }
  }
  if (states_.size() >= 1024) states_.clear();  // bounded; ids restart
  states_.emplace_back(header_.isa_short, template_);
  state_id_ = static_cast<std::uint32_t>(states_.size());
}

LineParser::Slot LineParser::SlotNamed(std::string_view name) {
  static constexpr std::pair<std::string_view, Slot> kSlots[] = {
      {"engine", Slot::kEngine},
      {"primitive", Slot::kPrimitive},
      {"implementation", Slot::kImplementation},
      {"prop_kind", Slot::kPropKind},
      {"memory_descriptors", Slot::kMemory},
      {"attributes", Slot::kAttributes},
      {"auxiliary", Slot::kAuxiliary},
      {"problem_desc", Slot::kProblem},
      {"exec_time", Slot::kTime}};
  for (const auto& [slot_name, slot] : kSlots) {
    if (name == slot_name) return slot;
  }
  return Slot::kIgnored;
}

bool LineParser::ReadTemplate(std::size_t first, std::string_view component) {
  const std::string_view f0 = fields_[first];
  for (std::string_view prefix :
       {std::string_view("prim_template:"), std::string_view("template:")}) {
    if (!f0.starts_with(prefix)) continue;
    if (component == "graph") return true;  // the graph API's own layout: not the primitives'
    template_.clear();
    for (std::size_t k = first; k < count_; ++k) {
      const std::string_view name = Trim(k == first ? f0.substr(prefix.size()) : fields_[k]);
      if (name == "timestamp" || name == "operation") continue;
      template_.push_back(SlotNamed(name));
    }
    return true;
  }
  return false;
}

void LineParser::SetHeaderIsa(std::string_view text) {
  // Header lines repeat once per library load: reuse the strings, no allocation.
  header_.isa.clear();
  for (char c : text) {
    if (c != '*') header_.isa.push_back(c);
  }
  Assign(header_.isa_short, IsaFromHeaderText(header_.isa));
}

bool LineParser::ReadCpuInfo(std::size_t first) {
  if (fields_[first] != "cpu" || first + 1 >= count_) return false;
  const std::string_view f1 = fields_[first + 1];
  if (f1.starts_with("isa:")) {
    SetHeaderIsa(Trim(Join(first + 1, count_).substr(4)));
    return true;
  }
  if (!f1.starts_with("runtime:")) return false;
  Assign(header_.runtime, f1.substr(8));
  for (std::size_t k = first + 2; k < count_; ++k) {
    if (!fields_[k].starts_with("nthr:")) continue;
    int threads = 0;
    const std::string_view v = fields_[k].substr(5);
    const auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), threads);
    if (ec == std::errc() && ptr == v.data() + v.size()) header_.threads = threads;
  }
  return true;
}

bool LineParser::ReadVersionOrIsa(std::size_t first) {
  const std::string_view f0 = fields_[first];
  if (f0.starts_with("Detected ISA is ")) {
    SetHeaderIsa(Trim(Join(first, count_).substr(16)));
    return true;
  }
  if (f0.find(" v") == std::string_view::npos || f0.find("DNN") == std::string_view::npos) {
    return false;
  }
  Assign(header_.library_version, Trim(f0));
  if (first + 1 < count_) {  // 0.18-1.0.1: the ISA follows after a comma
    SetHeaderIsa(Trim(Join(first + 1, count_)));
  }
  return true;
}

ParseResult LineParser::ParseInfo(std::size_t first, std::string_view component) {
  const ParseResult info{LineKind::kInfo, SkipReason::kNone};
  if (first >= count_) return info;
  if (ReadTemplate(first, component) || ReadCpuInfo(first) || ReadVersionOrIsa(first)) {
    return info;
  }
  if (header_.other.size() < 64) header_.other.emplace_back(Join(first, count_));
  return info;
}

std::span<const LineParser::Slot> LineParser::SlotsFor(Era era) const {
  static constexpr Slot kEraA[] = {Slot::kPrimitive, Slot::kImplementation, Slot::kPropKind,
                                   Slot::kMemory,    Slot::kAuxiliary,      Slot::kProblem,
                                   Slot::kTime};
  static constexpr Slot kEraB[] = {Slot::kEngine,   Slot::kPrimitive, Slot::kImplementation,
                                   Slot::kPropKind, Slot::kMemory,    Slot::kAuxiliary,
                                   Slot::kProblem,  Slot::kTime};
  static constexpr Slot kDefault[] = {Slot::kEngine,    Slot::kPrimitive, Slot::kImplementation,
                                      Slot::kPropKind,  Slot::kMemory,    Slot::kAttributes,
                                      Slot::kAuxiliary, Slot::kProblem,   Slot::kTime};
  if (era == Era::kMkldnn0) return kEraA;
  if (era == Era::kMkldnn1) return kEraB;
  // ZenDNN prints oneDNN 2.x's fixed layout; a oneDNN template beside it is not its.
  if (!template_.empty() && LibraryOf(era) == Library::kOneDnn) return template_;
  return kDefault;
}

// Reconciles the line's field count with the layout: exact, one more (a decimal comma in the
// time), or one fewer in the two known shorter forms. kNone when the line fits.
SkipReason LineParser::PlanFields(FieldPlan& plan) {
  const std::span<const Slot> slots = plan.slots;
  const std::size_t expected = slots.size();
  const std::size_t n = count_;
  const std::size_t have = n - plan.first;
  plan.last = n;
  plan.time_slot = expected;
  for (std::size_t s = 0; s < expected; ++s) {
    if (slots[s] == Slot::kTime) plan.time_slot = s;
  }
  if (have == expected) return SkipReason::kNone;
  if (have == expected + 1 && plan.time_slot == expected - 1 && IsDigits(fields_[n - 2]) &&
      IsDigits(fields_[n - 1])) {
    // A decimal comma (non-C locale): `...,1,432` is 1.432 ms.
    time_buffer_.assign(fields_[n - 2]);
    time_buffer_.push_back('.');
    time_buffer_.append(fields_[n - 1]);
    plan.time_text = time_buffer_;
    plan.last = n - 1;
    return SkipReason::kNone;
  }
  if (have > expected) return SkipReason::kFieldCount;
  if (have + 1 != expected) return SkipReason::kTruncated;
  // Two known shorter forms: gemm_api in 2.7 (no auxiliary field) and GPU exec lines without a
  // time (1.0/1.1 default level, dev builds).
  std::string_view kind;
  for (std::size_t s = 0; s < expected && plan.first + s < n; ++s) {
    if (slots[s] == Slot::kPrimitive) kind = fields_[plan.first + s];
  }
  double probe = 0;
  if (onednn::IsKind(kind, onednn::Kind::kGemmApi)) {
    plan.skip_aux = true;
  } else if (plan.time_slot == expected - 1 && fields_[plan.first].starts_with("gpu") &&
             !ParseNumber(fields_[n - 1], probe)) {
    plan.no_time = true;
  } else {
    return SkipReason::kTruncated;
  }
  return SkipReason::kNone;
}

// Assigns the fields to the event's strings slot by slot; the time field's text goes to
// `plan.time_text` unless the plan rebuilt it.
void LineParser::AssignFields(FieldPlan& plan, VerboseEvent& e) const {
  std::size_t k = plan.first;
  for (const Slot slot : plan.slots) {
    if (slot == Slot::kAuxiliary && plan.skip_aux) continue;
    if (slot == Slot::kTime && plan.no_time) continue;
    if (k >= plan.last) break;
    const std::string_view field = fields_[k++];
    switch (slot) {
      case Slot::kEngine:
        Assign(e.engine, field);
        break;
      case Slot::kPrimitive:
        Assign(e.primitive, field);
        break;
      case Slot::kImplementation:
        Assign(e.implementation, field);
        break;
      case Slot::kPropKind:
        Assign(e.prop_kind, field);
        break;
      case Slot::kMemory:
        Assign(e.memory_descriptors, TrimRight(field));
        break;
      case Slot::kAttributes:
        Assign(e.attributes, TrimRight(field));
        break;
      case Slot::kAuxiliary:
        Assign(e.auxiliary, TrimRight(field));
        break;
      case Slot::kProblem:
        Assign(e.problem, Trim(field));
        break;
      case Slot::kTime:
        if (plan.time_text.empty()) plan.time_text = field;
        break;
      case Slot::kIgnored:
        break;
    }
  }
}

ParseResult LineParser::ParseProfiling(Era era, std::size_t first, VerboseEvent& e) {
  FieldPlan plan{.slots = SlotsFor(era), .first = first};
  if (const SkipReason reason = PlanFields(plan); reason != SkipReason::kNone) {
    return {LineKind::kSkipped, reason};
  }
  AssignFields(plan, e);
  if (!plan.no_time && plan.time_slot < plan.slots.size()) {
    double ms = 0;
    if (!ParseExecTime(plan.time_text, ms)) {
      return {LineKind::kSkipped, SkipReason::kBadTime};
    }
    e.time_ms = ms;
  }
  if (era == Era::kMkldnn0) e.engine = "cpu";  // 0.x had CPU only
  Classify(e);
  return {LineKind::kEvent, SkipReason::kNone};
}

ParseResult LineParser::ParseDiagnostic(std::size_t op_index, VerboseEvent& e) {
  const std::size_t n = count_;
  e.operation = Operation::kDiagnostic;
  Assign(e.operation_text, fields_[op_index]);
  std::size_t k = op_index + 1;
  // `create:start,<engine>,<kind>,...` carries the descriptor without a component; the others
  // name a component (convolution, primitive, runtime, ...) first.
  const bool has_component = !(k < n && IsEngine(fields_[k]) && n - k >= 8);
  if (has_component && k < n) Assign(e.primitive, fields_[k++]);
  if (k < n && IsEngine(fields_[k]) && n - k >= (has_component ? 9u : 8u)) {
    // The descriptor of the implementation (for dispatch: the one skipped), then the reason.
    Assign(e.engine, fields_[k]);
    Assign(e.primitive, fields_[k + 1]);
    Assign(e.implementation, fields_[k + 2]);
    Assign(e.prop_kind, fields_[k + 3]);
    Assign(e.memory_descriptors, TrimRight(fields_[k + 4]));
    Assign(e.attributes, TrimRight(fields_[k + 5]));
    Assign(e.auxiliary, TrimRight(fields_[k + 6]));
    Assign(e.problem, Trim(fields_[k + 7]));
    k += 8;
    Classify(e);
  }
  Assign(e.message, Join(k, n));
  return {LineKind::kEvent, SkipReason::kNone};
}

// ZenDNN's `zendnn_verbose,info,ZENDNN v5.0.0 (commit ...)`: its version, apart from oneDNN's.
// Its other header lines (runtime, ISA, template) would speak for oneDNN's lines: not read.
ParseResult LineParser::ParseZendnnInfo(std::size_t first) {
  if (first < count_ && fields_[first].starts_with("ZENDNN v")) {
    Assign(header_.zendnn_version, Trim(Join(first, count_)));
  }
  return {LineKind::kInfo, SkipReason::kNone};
}

// The plug-in's profiling lines of ZenDNN 4.x-5.x (ZENDNN_PRIMITIVE_LOG_ENABLE=1, after the log
// header `[PROF:I][<s>] `): `execute,<pd info>,<ms>,ms` and `create,<cache state>,<pd info>,
// <ms>,ms`, where the pd info is oneDNN 2.x's (engine, kind, implementation, prop kind,
// descriptors, attributes, auxiliary, problem), 5.1+ with `plugin_op:<framework op>` after the
// engine for matmul and embedding_bag; level 2 appends `;<counter>:<value>...` to the `ms`.
ParseResult LineParser::ParseZendnnPrimitive(std::string_view text, VerboseEvent& e) {
  const std::size_t n = Split(text);
  ClearEvent(e);
  e.era = Era::kZendnnPrimitive;
  std::size_t k = 1;
  if (fields_[0] == "execute") {
    e.operation = Operation::kExec;
  } else if (fields_[0] == "create") {
    e.operation = Operation::kCreate;
    if (k < n) Assign(e.cache_state, fields_[k++]);
  } else {
    return {LineKind::kSkipped, SkipReason::kUnknownOperation};
  }
  std::size_t unit = n;  // the `ms` field after the time
  for (std::size_t j = n; j-- > k;) {
    if (fields_[j] == "ms" || fields_[j].starts_with("ms;")) {
      unit = j;
      break;
    }
  }
  if (unit == n) return {LineKind::kSkipped, SkipReason::kTruncated};
  if (k < unit && !IsEngine(fields_[k])) return {LineKind::kSkipped, SkipReason::kUnknownOperation};
  const std::size_t time = unit - 1;
  Assign(e.engine, k < time ? fields_[k++] : std::string_view());
  if (k < time && fields_[k].starts_with("plugin_op:")) {
    if (fields_[k].size() > 10) e.layer.emplace(fields_[k].substr(10));
    ++k;
  }
  if (k + 7 > time) return {LineKind::kSkipped, SkipReason::kTruncated};
  double ms = 0;
  if (!ParseExecTime(fields_[time], ms)) return {LineKind::kSkipped, SkipReason::kBadTime};
  Assign(e.primitive, fields_[k]);
  Assign(e.implementation, fields_[k + 1]);
  Assign(e.prop_kind, fields_[k + 2]);
  Assign(e.memory_descriptors, TrimRight(fields_[k + 3]));
  Assign(e.attributes, TrimRight(fields_[k + 4]));
  Assign(e.auxiliary, TrimRight(fields_[k + 5]));
  Assign(e.problem, Trim(Join(k + 6, time)));  // embedding_bag's `;alg:` field stays with it
  e.time_ms = ms;
  Classify(e);
  return {LineKind::kEvent, SkipReason::kNone};
}

std::size_t LineParser::SplitOutsideBrackets(std::string_view text) {
  count_ = 0;
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i < text.size() && count_ + 1 < kMaxFields; ++i) {
    const char c = text[i];
    if (c == '[') ++depth;
    if (c == ']' && depth > 0) --depth;
    if (c == ',' && depth == 0) {
      fields_[count_++] = text.substr(start, i - start);
      start = i + 1;
    }
  }
  fields_[count_++] = text.substr(start);
  return count_;
}

namespace {

// `[10,5]` -> `10x5` appended to `out`; false when `dims` is not a bracketed list.
bool AppendDims(std::string& out, std::string_view dims) {
  if (dims.size() < 2 || dims.front() != '[' || dims.back() != ']') return false;
  for (const char c : dims.substr(1, dims.size() - 2)) out.push_back(c == ',' ? 'x' : c);
  return true;
}

// The operator kind a profiler line's name starts with (`matmul_f32` -> `matmul`), where the
// kind table knows it.
std::string_view KindOfOperatorName(std::string_view name) {
  const std::string_view head = name.substr(0, name.find('_'));
  return onednn::KindOf(head) ? head : name;
}

}  // namespace

// ZenDNN 5.1+'s profiler (ZENDNNL_PROFILE_LOG_LEVEL=4, ZENDNNL_ENABLE_PROFILER=1): after
// `[PROF   ][<level>][<s>]:`, `<Kind> operator execute - [<name>,]kernel:<kernel>,<tensors>,
// alpha:..,beta:..[,post-op:..][,weight_address:..],time:<ms>ms` (zendnnl operator_impl.hpp and
// each operator's op_execute_info), or the documented `Operator execute - <name>,<tensors>,...`;
// a tensor prints `name[d0,d1]:<dt>:<layout>`. The `Operator context - ...` lines say what was
// created, with no kind: header lines. A row's primitive is the kind as the engine names it
// (`MatMul`; the kind table maps it), its implementation the kernel, its problem the tensors'
// dims; the weights' address (one per tensor, not per shape) is left out of the row.
ParseResult LineParser::ParseZendnnProfile(std::string_view text, VerboseEvent& e) {
  const std::size_t header_end = text.find("]:");
  if (header_end == std::string_view::npos) return {LineKind::kSkipped, SkipReason::kTruncated};
  const std::string_view message = text.substr(header_end + 2);
  constexpr std::string_view kExecute = "perator execute - ";
  const std::size_t at = message.find(kExecute);
  if (at == std::string_view::npos || at == 0 ||
      (message[at - 1] != 'O' && message[at - 1] != 'o')) {
    return message.find("perator context - ") != std::string_view::npos
               ? ParseResult{LineKind::kInfo, SkipReason::kNone}
               : ParseResult{LineKind::kSkipped, SkipReason::kUnknownOperation};
  }
  ClearEvent(e);
  e.era = Era::kZendnnProfile;
  e.operation = Operation::kExec;
  e.engine = "cpu";
  const std::string_view kind = Trim(message.substr(0, at - 1));
  const std::size_t n = SplitOutsideBrackets(message.substr(at + kExecute.size()));
  const std::string_view last = Trim(fields_[n - 1]);
  if (!last.starts_with("time:") || !last.ends_with("ms")) {
    return {LineKind::kSkipped, SkipReason::kTruncated};
  }
  double ms = 0;
  if (!ParseExecTime(last.substr(5, last.size() - 7), ms)) {
    return {LineKind::kSkipped, SkipReason::kBadTime};
  }
  std::string_view name;
  for (std::size_t k = 0; k + 1 < n; ++k) {
    const std::string_view field = Trim(fields_[k]);
    const std::size_t bracket = field.find('[');
    const std::size_t colon = field.find(':');
    if (k == 0 && colon == std::string_view::npos && bracket == std::string_view::npos) {
      name = field;
    } else if (field.starts_with("kernel:")) {
      Assign(e.implementation, field.substr(7));
    } else if (field.starts_with("weight_address:")) {
      continue;
    } else if (bracket != std::string_view::npos && bracket < colon) {
      // `name[10,5]:f32:contiguous` -> the descriptor `name:f32::contiguous`, dims `10x5`.
      const std::size_t close = field.find(']', bracket);
      if (close == std::string_view::npos) return {LineKind::kSkipped, SkipReason::kTruncated};
      if (!e.problem.empty()) e.problem.push_back(':');
      AppendDims(e.problem, field.substr(bracket, close + 1 - bracket));
      if (!e.memory_descriptors.empty()) e.memory_descriptors.push_back(' ');
      const std::string_view rest = field.substr(close + 1);  // `:f32:contiguous`
      const std::size_t type_end = rest.find(':', 1);
      e.memory_descriptors.append(field.substr(0, bracket));
      e.memory_descriptors.append(rest.substr(0, type_end));
      if (type_end != std::string_view::npos) {
        e.memory_descriptors.append("::");
        e.memory_descriptors.append(rest.substr(type_end + 1));
      }
    } else if (!field.empty()) {
      if (!e.attributes.empty()) e.attributes.push_back(' ');
      e.attributes.append(field);
    }
  }
  Assign(e.primitive, kind.empty() ? KindOfOperatorName(name) : kind);
  if (e.primitive.empty()) return {LineKind::kSkipped, SkipReason::kTruncated};
  if (!name.empty()) {
    e.auxiliary = "name:";
    e.auxiliary.append(name);
  }
  e.time_ms = ms;
  Classify(e);
  return {LineKind::kEvent, SkipReason::kNone};
}

namespace {

// The value of `"key" :` in a line of ONNX Runtime's profile (one JSON object a line): a
// string's text between its quotes (escapes as printed), a bracketed list or object with its
// brackets, or a number; nullopt where the key is absent or its value is cut off. `quoted_key`
// holds the quotes (`"op_name"`): a key's name inside another's (`thread_pool_name`) or inside an
// escaped string (`\"name\"`) is not it.
std::optional<std::string_view> OrtValue(std::string_view text, std::string_view quoted_key) {
  const std::size_t key = text.find(quoted_key);
  if (key == std::string_view::npos) return std::nullopt;
  std::size_t at = text.find_first_not_of(' ', key + quoted_key.size());
  if (at == std::string_view::npos || text[at] != ':') return std::nullopt;
  at = text.find_first_not_of(' ', at + 1);
  if (at == std::string_view::npos) return std::nullopt;
  if (text[at] == '"') {
    for (std::size_t i = at + 1; i < text.size(); ++i) {
      if (text[i] == '\\') {
        ++i;
      } else if (text[i] == '"') {
        return text.substr(at + 1, i - at - 1);
      }
    }
    return std::nullopt;
  }
  if (text[at] == '[' || text[at] == '{') {
    int depth = 0;
    bool in_string = false;
    for (std::size_t i = at; i < text.size(); ++i) {
      const char c = text[i];
      if (in_string) {
        if (c == '\\') ++i;
        if (c == '"') in_string = false;
      } else if (c == '"') {
        in_string = true;
      } else if (c == '[' || c == '{') {
        ++depth;
      } else if ((c == ']' || c == '}') && --depth == 0) {
        return text.substr(at, i + 1 - at);
      }
    }
    return std::nullopt;
  }
  const std::size_t end = text.find_first_of(",} ", at);
  if (end == std::string_view::npos) return std::nullopt;
  return text.substr(at, end - at);
}

// ONNX Runtime's tensor element types as oneDNN spells data types (`float` -> `f32`); another
// is kept as ONNX Runtime prints it.
std::string_view OrtDataType(std::string_view type) {
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 10> kTypes = {{
      {"float", "f32"},
      {"float16", "f16"},
      {"bfloat16", "bf16"},
      {"double", "f64"},
      {"int8", "s8"},
      {"uint8", "u8"},
      {"int32", "s32"},
      {"int64", "s64"},
      {"int16", "s16"},
      {"uint16", "u16"},
  }};
  for (const auto& [ort, onednn] : kTypes) {
    if (type == ort) return onednn;
  }
  return type;
}

// `[{"float":[64,256]},{"int64":[]}]` (a node's input_type_shape or output_type_shape): each
// tensor's descriptor `<prefix><i>:<type>::` appended to `descriptors` and its dims (`64x256`, ``
// for a scalar) to `problem` where given, tensors apart by `:`. False where the list is not that
// shape.
bool AppendOrtTensors(std::string_view list, std::string_view prefix, std::string& descriptors,
                      std::string* problem) {
  if (list.size() < 2 || list.front() != '[' || list.back() != ']') return false;
  std::size_t index = 0;
  for (std::size_t at = list.find('{'); at != std::string_view::npos;
       at = list.find('{', at + 1), ++index) {
    const std::size_t open = list.find('"', at);
    const std::size_t close = open == std::string_view::npos ? open : list.find('"', open + 1);
    const std::size_t dims_open = close == std::string_view::npos ? close : list.find('[', close);
    const std::size_t dims_close =
        dims_open == std::string_view::npos ? dims_open : list.find(']', dims_open);
    if (dims_close == std::string_view::npos) return false;
    if (!descriptors.empty()) descriptors.push_back(' ');
    descriptors.append(prefix);
    descriptors.append(std::to_string(index));
    descriptors.push_back(':');
    descriptors.append(OrtDataType(list.substr(open + 1, close - open - 1)));
    descriptors.append("::");  // 3.6+'s field order; no layout: the profile says none
    if (problem != nullptr) {
      if (!problem->empty()) problem->push_back(':');
      AppendDims(*problem, list.substr(dims_open, dims_close + 1 - dims_open));
    }
    at = dims_close;
  }
  return true;
}

// The providers that run a node on a GPU (their rows' engine is `gpu`).
bool IsGpuProvider(std::string_view provider) {
  for (const std::string_view gpu : {"CUDA", "TensorRT", "ROCM", "MIGraphX", "Dml", "WebGpu"}) {
    if (provider.starts_with(gpu)) return true;
  }
  return false;
}

}  // namespace

// ONNX Runtime's profile (SessionOptions.enable_profiling; onnxruntime/core/common/profiler.cc
// writes one Chrome trace event a line): after `{"cat" : "Node",`, the node's `"name" :
// "<node>_kernel_time"` and `"dur" :<us>`, and in `args` its `op_name`, `provider` and, since
// about 1.8, `input_type_shape`/`output_type_shape`. A row's primitive is the operator as ONNX
// Runtime names it (`Conv`, `MatMul`: the kind table maps it), its implementation the execution
// provider that ran it, its problem the inputs' dims. `<node>_fence_before`/`_fence_after` (older
// versions: the wait around a node, 0-1 us) are info lines, not work.
ParseResult LineParser::ParseOrtProfile(std::string_view text, VerboseEvent& e) {
  const std::optional<std::string_view> name = OrtValue(text, R"("name")");
  const std::optional<std::string_view> dur = OrtValue(text, R"("dur")");
  if (!name || !dur) return {LineKind::kSkipped, SkipReason::kTruncated};
  constexpr std::string_view kKernelTime = "_kernel_time";
  if (!name->ends_with(kKernelTime)) {
    return name->ends_with("_fence_before") || name->ends_with("_fence_after")
               ? ParseResult{LineKind::kInfo, SkipReason::kNone}
               : ParseResult{LineKind::kSkipped, SkipReason::kUnknownOperation};
  }
  double us = 0;
  if (!ParseNumber(*dur, us) || !(us >= 0)) return {LineKind::kSkipped, SkipReason::kBadTime};
  ClearEvent(e);
  e.era = Era::kOrtProfile;
  e.operation = Operation::kExec;
  const std::optional<std::string_view> provider = OrtValue(text, R"("provider")");
  // No provider (ONNX Runtime before about 1.0, or for DirectML): the engine is not known.
  if (provider) e.engine = IsGpuProvider(*provider) ? "gpu" : "cpu";
  // A profile without args (ONNX Runtime for DirectML prints none) names no operator: `node`.
  const std::optional<std::string_view> op = OrtValue(text, R"("op_name")");
  Assign(e.primitive, op && !op->empty() ? *op : std::string_view("node"));
  if (provider) Assign(e.implementation, *provider);
  // The inputs' dims are the problem; the outputs' only their descriptors.
  for (const auto& [key, prefix, problem] :
       {std::tuple{R"("input_type_shape")", "in", &e.problem},
        std::tuple{R"("output_type_shape")", "out", static_cast<std::string*>(nullptr)}}) {
    const std::optional<std::string_view> tensors = OrtValue(text, key);
    // A list that is there but cut off, or not a list of tensors: the line is cut.
    if (!tensors && text.find(key) != std::string_view::npos) {
      return {LineKind::kSkipped, SkipReason::kTruncated};
    }
    if (tensors && !AppendOrtTensors(*tensors, prefix, e.memory_descriptors, problem)) {
      return {LineKind::kSkipped, SkipReason::kTruncated};
    }
  }
  const std::string_view node = name->substr(0, name->size() - kKernelTime.size());
  if (!node.empty()) {
    e.auxiliary = "name:";
    e.auxiliary.append(node);
  }
  e.time_ms = us / 1000.0;
  Classify(e);
  return {LineKind::kEvent, SkipReason::kNone};
}

void JoiningParser::Emit(const ParseResult& result, std::uint64_t line) {
  event_.line = line;
  sink_(result, event_, line);
}

void JoiningParser::FlushPending() {
  if (pending_.empty()) return;
  pending_.clear();
  pending_joins_ = 0;
  Emit({LineKind::kSkipped, SkipReason::kTruncated}, pending_line_);
}

void JoiningParser::Feed(std::string_view line, std::uint64_t line_number) {
  if (!pending_.empty()) {
    if (FindMarker(line) == std::string_view::npos && !TrimRight(line).empty()) {
      joined_.assign(pending_);
      joined_.append(line);
      const ParseResult r = parser_.Parse(joined_, event_);
      if (r.kind == LineKind::kSkipped && r.reason == SkipReason::kTruncated &&
          pending_joins_ < 4) {
        pending_.swap(joined_);
        ++pending_joins_;
        return;
      }
      if (r.kind != LineKind::kSkipped || r.reason != SkipReason::kTruncated) {
        pending_.clear();
        pending_joins_ = 0;
        Emit(r, pending_line_);
        return;
      }
    }
    FlushPending();
  }
  const ParseResult r = parser_.Parse(line, event_);
  if (r.kind == LineKind::kSkipped && r.reason == SkipReason::kTruncated) {
    pending_.assign(line.data(), line.size());
    pending_line_ = line_number;
    pending_joins_ = 0;
    return;
  }
  Emit(r, line_number);
}

void JoiningParser::FeedSkip(SkipReason reason, std::uint64_t line_number) {
  FlushPending();
  Emit({LineKind::kSkipped, reason}, line_number);
}

void JoiningParser::Finish() {
  FlushPending();
}

namespace {

constexpr std::string_view kDataTypes[] = {
    "undef", "f16", "bf16", "f32",     "f64",     "s32",  "s64",     "s16",     "s8",
    "u8",    "s4",  "u4",   "f8_e5m2", "f8_e4m3", "e8m0", "f4_e2m1", "f4_e3m0", "boolean"};

bool IsDataType(std::string_view s) {
  for (std::string_view dt : kDataTypes) {
    if (s == dt) return true;
  }
  return false;
}

// `src_layer_f32` -> {src_layer, f32}: split at the last `_` whose right part is a data type.
bool SplitNameType(std::string_view s, std::string_view& name, std::string_view& type) {
  for (std::size_t pos = s.rfind('_'); pos != std::string_view::npos && pos > 0;
       pos = s.rfind('_', pos - 1)) {
    if (IsDataType(s.substr(pos + 1))) {
      name = s.substr(0, pos);
      type = s.substr(pos + 1);
      return true;
    }
    if (pos == 0) break;
  }
  return false;
}

void ParseOne(std::string_view token, MemoryDesc& md) {
  md = MemoryDesc{};
  std::string_view parts[8];
  std::size_t count = 0;
  std::string_view rest = token;
  while (count < 7) {
    const std::size_t colon = rest.find(':');
    if (colon == std::string_view::npos) break;
    parts[count++] = rest.substr(0, colon);
    rest.remove_prefix(colon + 1);
  }
  parts[count++] = rest;  // remainder (flags may hold further colons)
  std::string_view name;
  std::string_view type;
  std::size_t next = 1;
  if (count <= 2) {
    // 0.x: `fsrc:nchw`, `in:f32_nchw`, `dt:f32`.
    Assign(md.name, parts[0]);
    if (count == 2) {
      std::string_view value = parts[1];
      const std::size_t us = value.find('_');
      if (us != std::string_view::npos && IsDataType(value.substr(0, us))) {
        Assign(md.data_type, value.substr(0, us));
        value.remove_prefix(us + 1);
      }
      Assign(md.tag, value);
      md.format_kind = md.tag.empty() ? "" : "blocked";
      if (md.tag == "undef") md.format_kind = "undef";
    }
    return;
  }
  if (SplitNameType(parts[0], name, type)) {
    next = 1;  // 1.0-3.5: name_dt:props:kind:tag[:strides]:flags
  } else {
    name = parts[0];  // 3.6+: name:dt:props:kind:tag:strides:flags
    type = parts[1];
    next = 2;
  }
  Assign(md.name, name);
  Assign(md.data_type, type);
  if (next < count) Assign(md.properties, parts[next++]);
  if (next < count) Assign(md.format_kind, parts[next++]);
  if (next < count) Assign(md.tag, parts[next++]);
  if (next < count) {
    // Pre-3.2 has no strides slot: the flags (`f0`, `f8`) follow the tag directly.
    const std::string_view slot = parts[next];
    const bool is_flags = slot.size() >= 2 && slot[0] == 'f' && slot[1] >= '0' && slot[1] <= '9';
    if (!is_flags) {
      Assign(md.strides, slot);
      ++next;
    }
  }
  if (next < count) {
    const char* begin = parts[next].data();
    const char* end = token.data() + token.size();
    md.flags.assign(begin, static_cast<std::size_t>(end - begin));
  }
}

bool Present(const MemoryDesc& md) {
  return md.format_kind != "undef" && md.data_type != "undef" && !md.name.empty();
}

}  // namespace

void ParseMemoryDescs(std::string_view raw, std::vector<MemoryDesc>& out) {
  out.clear();
  raw = Trim(raw);
  while (!raw.empty()) {
    const std::size_t space = raw.find(' ');
    const std::string_view token = raw.substr(0, space);
    if (!token.empty()) {
      out.emplace_back();
      ParseOne(token, out.back());
    }
    if (space == std::string_view::npos) break;
    raw.remove_prefix(space + 1);
  }
}

std::string DataTypesText(const std::vector<MemoryDesc>& mds) {
  std::string text;
  for (const MemoryDesc& md : mds) {
    if (!Present(md) || md.data_type.empty()) continue;
    if (!text.empty()) text.push_back(' ');
    text += md.name;
    text.push_back(':');
    text += md.data_type;
  }
  return text;
}

std::string LayoutsText(const std::vector<MemoryDesc>& mds) {
  std::string text;
  for (const MemoryDesc& md : mds) {
    // A descriptor that names no layout (ONNX Runtime's tensors, 0.x's `dt:f32`) has none to show.
    if (!Present(md) || (md.tag.empty() && md.format_kind.empty())) continue;
    if (!text.empty()) text.push_back(' ');
    text += md.name;
    text.push_back(':');
    text += md.tag.empty() ? md.format_kind : md.tag;
    if (md.properties.find('p') != std::string::npos) text += ":padded";
  }
  return text;
}

}  // namespace dlcheck::verbose
