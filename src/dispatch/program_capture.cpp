#include "dispatch/program_capture.h"

#include <unistd.h>

#include <cerrno>

#include "verbose/output_splitter.h"

namespace dlcheck::dispatch {
namespace {

// Takes the splitter's output: verbose lines to the session (and the raw log), the program's
// own bytes to stderr at once.
class ProgramSink : public verbose::OutputSink {
 public:
  ProgramSink(verbose::LogSession& session, std::ostream* raw_log,
              const std::function<void()>& on_output)
      : session_(session), raw_log_(raw_log), on_output_(on_output) {}

  void OnVerboseLine(std::string_view line) override {
    ++lines_;
    if (raw_log_ != nullptr) *raw_log_ << line << '\n';
    session_.Feed(line, lines_);
  }
  void OnTooLongLine() override { session_.FeedTooLong(++lines_); }
  void OnProgramOutput(std::string_view bytes) override {
    if (on_output_ && !bytes.empty()) on_output_();
    while (!bytes.empty()) {
      const ssize_t put = write(STDERR_FILENO, bytes.data(), bytes.size());
      if (put < 0 && errno == EINTR) continue;
      if (put <= 0) return;  // stderr closed: the program's output has nowhere to go
      bytes.remove_prefix(static_cast<std::size_t>(put));
    }
  }

 private:
  verbose::LogSession& session_;
  std::ostream* raw_log_;
  const std::function<void()>& on_output_;
  std::uint64_t lines_ = 0;
};

}  // namespace

const std::vector<std::pair<std::string, std::string>>& VerboseEnvironment() {
  static const std::vector<std::pair<std::string, std::string>> kEnvironment = {
      {"ONEDNN_VERBOSE", "2"},
      {"DNNL_VERBOSE", "2"},
      {"MKLDNN_VERBOSE", "2"},
      {"ONEDNN_VERBOSE_TIMESTAMP", "1"},
      {"DNNL_VERBOSE_TIMESTAMP", "1"}};
  return kEnvironment;
}

std::vector<std::pair<std::string, std::string>> MaxIsaEnvironment(const std::string& cap) {
  return {{"ONEDNN_MAX_CPU_ISA", cap}, {"DNNL_MAX_CPU_ISA", cap}, {"MKLDNN_MAX_CPU_ISA", cap}};
}

StatusOr<ProgramCapture> CaptureProgram(const ProgramCaptureOptions& options,
                                        verbose::LogSession& session) {
  ProgramCapture run;
  Timeline timeline(session, run.execs, options.max_timeline);
  timeline.set_recording(options.max_timeline > 0);
  session.AddListener(&timeline);
  session.StartInput(options.input_name.empty() ? "<" + options.spec.argv.front() + ">"
                                                : options.input_name);
  os::Spec spec = options.spec;
  spec.search_path = true;
  spec.terminal = true;
  for (const auto& kv : VerboseEnvironment()) spec.env.push_back(kv);
  ProgramSink sink(session, options.raw_log, options.on_output);
  verbose::OutputSplitter splitter(sink);
  StatusOr<os::Outcome> ended = os::RunProcess(spec, [&](std::string_view bytes) {
    splitter.Feed(bytes);
    if (options.on_chunk) options.on_chunk();
  });
  splitter.Finish();
  session.Finish();
  session.RemoveListener(&timeline);
  if (!ended.ok()) return ended.status();
  run.outcome = *ended;
  run.program_bytes = splitter.program_bytes();
  run.program_lines = splitter.program_lines();
  run.verbose_lines = splitter.verbose_lines();
  run.timeline_dropped = timeline.dropped();
  return run;
}

}  // namespace dlcheck::dispatch
