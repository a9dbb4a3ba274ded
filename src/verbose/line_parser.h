// SPDX-License-Identifier: Apache-2.0
#pragma once
// One physical line of a log -> a VerboseEvent, a header update, or a skip with its reason.
//
//   LineParser parser;
//   VerboseEvent event;
//   for (each line) {
//     ParseResult r = parser.Parse(line, event);
//     if (r.kind == LineKind::kEvent) Use(event);
//   }
//
// The parser finds the marker anywhere in the line (`mkldnn_verbose,`, `dnnl_verbose,`,
// `onednn_verbose,`; foreign text before it is skipped), tells the era, the `vN` token, the
// timestamp and the component, and maps the fields by the log's template line when it has one
// (`info,prim_template:` / `primitive,info,template:`), else by the era's fixed layout. It is
// stateful only for the template and the header. It never throws and never allocates once its
// buffers and the event's strings have grown to the longest line.

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "verbose/dialect.h"
#include "verbose/hash.h"
#include "verbose/verbose_event.h"

namespace dlcheck::verbose {

/// Why a line gave no event. Names are stable (CSV/JSON keys, man page).
enum class SkipReason {
  kNone,
  kForeign,           ///< "foreign": no oneDNN marker (program output, other tools, garbage)
  kGraph,             ///< "graph": a oneDNN Graph API line (partitions, not primitives)
  kUnknownOperation,  ///< "unknown_operation": a marker, but an operation field not known
  kTruncated,         ///< "truncated": fewer fields than the format has (cut or wrapped paste)
  kFieldCount,        ///< "field_count": more fields than the template/format has
  kBadTime,           ///< "bad_time": time not a number, negative, infinite or nan
  kTooLong,           ///< "too_long": longer than the reader's line cap
};

std::string_view SkipReasonName(SkipReason reason);
/// One sentence for `--strict` errors and the man page.
std::string_view SkipReasonText(SkipReason reason);

enum class LineKind {
  kEvent,    ///< `event` holds a create, exec or diagnostic
  kInfo,     ///< a header (`info`) line; see header()
  kSkipped,  ///< see reason
  kBlank,    ///< an empty or all-blank line: ignored, not counted
};

struct ParseResult {
  LineKind kind = LineKind::kBlank;
  SkipReason reason = SkipReason::kNone;
};

/// Position of the oneDNN marker in `line` (the first `mkldnn_verbose,`, `dnnl_verbose,`,
/// `onednn_verbose,` or `onednn_graph_verbose,` not glued to a preceding word), or npos.
std::size_t FindMarker(std::string_view line);

/// Finds the timestamp field of a marker line (2.1+ with timestamps on): `[begin, end)` spans
/// the field and its comma, `value` is what the parser reads from it (nullopt when it does not
/// read as a number). False when the line has no timestamp field where the parser looks.
bool FindTimestampField(std::string_view line, std::size_t& begin, std::size_t& end,
                        std::optional<double>& value);

class LineParser {
 public:
  /// Parses one physical line without its line feed. `event.line` is left to the caller.
  ParseResult Parse(std::string_view line, VerboseEvent& event);
  /// Reads only the lines `choice` admits (`parse --dialect`); the others are foreign.
  void RestrictTo(DialectChoice choice) { dialect_ = choice; }

  const LogHeader& header() const { return header_; }
  /// True once a template line has been read (fields are then placed by it).
  bool has_template() const { return !template_.empty(); }
  /// Identifies what decides how a line parses (template and header ISA): equal ids, equal
  /// results for equal lines. Ids are reused when a log returns to an earlier state.
  std::uint32_t state_id() const { return state_id_; }
  /// Whether `other` parses every line as this parser does and has read the same header (its
  /// template and header are equal; ids and caches may differ).
  bool SameState(const LineParser& other) const {
    return template_ == other.template_ && header_ == other.header_ && dialect_ == other.dialect_;
  }

 private:
  enum class Slot : std::uint8_t {
    kEngine,
    kPrimitive,
    kImplementation,
    kPropKind,
    kMemory,
    kAttributes,
    kAuxiliary,
    kProblem,
    kTime,
    kIgnored
  };
  static constexpr std::size_t kMaxFields = 64;

  std::size_t Split(std::string_view text);
  std::string_view Join(std::size_t first, std::size_t last) const;  // fields [first, last)
  ParseResult ParseInfo(std::size_t first, std::string_view component);
  // The parts of an info line, each true when the line was theirs: a template line (the field
  // layout of later lines), `cpu,isa:` / `cpu,runtime:...,nthr:N`, the version line or
  // `Detected ISA is ...`.
  static Slot SlotNamed(std::string_view template_name);  // kIgnored for a name it lacks
  bool ReadTemplate(std::size_t first, std::string_view component);
  bool ReadCpuInfo(std::size_t first);
  bool ReadVersionOrIsa(std::size_t first);
  void SetHeaderIsa(std::string_view text);  // without oneDNN's `*` marks
  // How the fields of a create or exec line map onto the layout's slots.
  struct FieldPlan {
    std::span<const Slot> slots;  // the template's, or the era's fixed layout
    std::size_t first = 0;        // the first field after the operation
    std::size_t last = 0;         // one past the last field used
    std::size_t time_slot = 0;    // slots.size() when the layout has no time
    std::string_view time_text;   // the time field, or the time rebuilt from a decimal comma
    bool skip_aux = false;        // gemm_api (2.7): no auxiliary field
    bool no_time = false;         // a GPU exec line without a time
  };
  std::span<const Slot> SlotsFor(Era era) const;
  SkipReason PlanFields(FieldPlan& plan);
  void AssignFields(FieldPlan& plan, VerboseEvent& event) const;
  ParseResult ParseProfiling(Era era, std::size_t first, VerboseEvent& event);
  ParseResult ParseOperation(std::size_t op, std::string_view component, VerboseEvent& event);
  ParseResult ParseExternal(std::size_t op, VerboseEvent& event);
  ParseResult ParseDiagnostic(std::size_t first, VerboseEvent& event);
  ParseResult ParseGraph(std::size_t op, VerboseEvent& event);
  ParseResult ParsePartition(std::size_t first, VerboseEvent& event);
  // ZenDNN's field readers: its version line, the plug-in's profiling lines
  // (the text after `zendnn_primitive_`) and the profiler's (the text after `[PROF   ][`).
  ParseResult ParseZendnnInfo(std::size_t first);
  ParseResult ParseZendnnPrimitive(std::string_view text, VerboseEvent& event);
  ParseResult ParseZendnnProfile(std::string_view text, VerboseEvent& event);
  ParseResult ParseOrtProfile(std::string_view text, VerboseEvent& event);
  // Splits at the commas outside `[...]` (ZenDNN's tensors print `name[10,5]:f32:...`).
  std::size_t SplitOutsideBrackets(std::string_view text);
  void ClearEvent(VerboseEvent& event) const;
  void Classify(VerboseEvent& event);

  DialectChoice dialect_ = DialectChoice::kAuto;
  std::array<std::string_view, kMaxFields> fields_{};
  std::size_t count_ = 0;
  std::vector<Slot> template_;
  std::string time_buffer_;
  LogHeader header_;
  std::vector<std::pair<std::string, std::vector<Slot>>> states_;
  std::uint32_t state_id_ = 0;
  void UpdateState();
  // Implementation name -> (ISA token, fallback): logs repeat a few names millions of times.
  struct ClassHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return FastHash(s); }
  };
  std::unordered_map<std::string, std::pair<std::string, ImplClass>, ClassHash, std::equal_to<>>
      class_memo_;
};

/// A LineParser that re-joins lines hard-wrapped by a terminal or a paste: a marker line with
/// too few fields is held back, and the following lines without a marker are appended (up to
/// four) until the whole parses. What cannot be re-joined is reported as `truncated`.
class JoiningParser {
 public:
  /// Called with each outcome; for events, `event.line` is the first physical line. The sink
  /// may complete the event (its layer) before it uses it.
  using Sink = std::function<void(const ParseResult&, VerboseEvent&, std::uint64_t line)>;

  explicit JoiningParser(Sink sink) : sink_(std::move(sink)) {}
  void RestrictTo(DialectChoice choice) { parser_.RestrictTo(choice); }
  void Feed(std::string_view line, std::uint64_t line_number);
  /// Reports a line the reader could not deliver (too long), in order.
  void FeedSkip(SkipReason reason, std::uint64_t line_number);
  /// Flushes a held-back line at the end of the input.
  void Finish();

  const LogHeader& header() const { return parser_.header(); }
  /// True while a short line is held back waiting for its continuation.
  bool has_pending() const { return !pending_.empty(); }
  std::uint32_t state_id() const { return parser_.state_id(); }
  const LineParser& parser() const { return parser_; }
  /// Takes the state of `parser` (template and header; its caches too) and holds no line back:
  /// a reading that goes on from where `parser` stopped (ParallelFeed).
  void ResetTo(const LineParser& parser) {
    parser_ = parser;
    pending_.clear();
    pending_joins_ = 0;
  }
  /// Takes all the state of `other` (its parser and the line it holds back, whose number is
  /// moved by `line_offset`), but not its sink.
  void TakeState(const JoiningParser& other, std::uint64_t line_offset) {
    parser_ = other.parser_;
    TakePending(other, line_offset);
  }
  /// Takes only the line `other` holds back (its number moved by `line_offset`): where both
  /// parsers are in the same state, this one keeps its own state ids, and a memo keyed by them.
  void TakePending(const JoiningParser& other, std::uint64_t line_offset) {
    pending_ = other.pending_;
    pending_line_ = other.pending_line_ + line_offset;
    pending_joins_ = other.pending_joins_;
  }

 private:
  void Emit(const ParseResult& result, std::uint64_t line);
  void FlushPending();

  LineParser parser_;
  Sink sink_;
  VerboseEvent event_;
  std::string pending_;
  std::string joined_;
  std::uint64_t pending_line_ = 0;
  int pending_joins_ = 0;
};

/// Splits a raw memory-descriptor field into its tensors, any era (0.x `fsrc:nchw`, 1.0-3.1
/// `src_f32::blocked:abcd:f0`, 3.2-3.5 `src_f32:a:blocked:abcd::f0`, 3.6+
/// `src:f32::blocked:ab::f0`).
void ParseMemoryDescs(std::string_view raw, std::vector<MemoryDesc>& out);

/// `src:f32 wei:f32 dst:f32` from the tensors that are present (format kind not undef).
std::string DataTypesText(const std::vector<MemoryDesc>& mds);
/// `src:aBcd16b wei:ABcd16b16a dst:aBcd16b` (with `:p` etc. when padded), present tensors only.
std::string LayoutsText(const std::vector<MemoryDesc>& mds);

}  // namespace dlcheck::verbose
