#include "check/check_report.h"

#include <type_traits>

namespace dlcheck::check {
namespace {

template <typename T>
void AddIf(report::Section& section, const char* key, const std::optional<T>& value,
           int precision = 3) {
  if (!value) return;
  if constexpr (std::is_same_v<T, double>) {
    section.Add(key, report::Value(*value, precision));
  } else {
    section.Add(key, *value);
  }
}

// The timed phase's budget in seconds, null when --iters fixed the step count.
report::Value Budget(const dispatch::ModelRunOptions& run) {
  const std::optional<double> budget = dispatch::TimedBudget(run);
  return budget ? report::Value(*budget, 3) : report::Value();
}

// The worker's results, typed, under the keys of the worker protocol.
void AddResults(const dispatch::WorkerResults& r, report::Section& section) {
  namespace key = dispatch::result_key;
  AddIf(section, key::kBackend, r.backend);
  AddIf(section, key::kTrainSamples, r.train_samples);
  AddIf(section, key::kMaxDeviation, r.max_deviation, 9);
  AddIf(section, key::kDeviationTensor, r.deviation_tensor);
  AddIf(section, key::kTolerance, r.tolerance, 6);
  AddIf(section, key::kLossFirst, r.loss_first, 4);
  AddIf(section, key::kSamplesPerS, r.samples_per_s, 1);
  AddIf(section, key::kSamplesPerSMin, r.samples_per_s_min, 1);
  AddIf(section, key::kSamplesPerSMax, r.samples_per_s_max, 1);
  AddIf(section, key::kStepMsTimed, r.step_ms_timed, 4);
  AddIf(section, key::kStepMsTraced, r.step_ms_traced, 4);
  AddIf(section, key::kLossLast, r.loss_last, 4);
}

void AddRunSection(const Evidence& evidence, const ModelPass& ran, bool stable,
                   report::Report& report) {
  report::Section& run = report.AddSection("run", "Model run");
  run.Add("model", std::string(mlp::Name(ran.source.run.model.model)))
      .Add("batch", ran.source.run.model.batch)
      .Add("warmup_iters", ran.source.run.warmup)
      .Add("timed_s", Budget(ran.source.run))
      .Add("traced_iters", ran.source.run.traced)
      .Add("threads", ran.settings.threads);
  if (const auto cap = dispatch::IsaCapOf(ran.settings.config)) run.Add("max_cpu_isa", *cap);
  if (!evidence.run) return;
  if (!stable) {
    // The steps the timed phase ran (what fitted in timed_s, or --iters), as `verbose` says.
    const auto& steps = ModelOf(*evidence.run).results.timed_steps;
    if (steps) {
      run.Add("timed_iters", static_cast<std::int64_t>(*steps));
    } else if (ran.source.run.iters != dispatch::kItersByTime) {
      run.Add("timed_iters", ran.source.run.iters);
    }
    AddResults(ModelOf(*evidence.run).results, run);
  }
  run.Add("worker", evidence.run->outcome.ok() ? report::Value("ok")
                                               : report::Value(evidence.run->outcome.Describe()));
}

}  // namespace

void AddCheckReport(const CheckResult& result, const Evidence& evidence, const ModelPass& ran,
                    report::Report& report, bool stable) {
  report.command = "check";
  report.headline = stable ? result.StableHeadline() : result.Headline();
  report::Section& check = report.AddSection("check", "Check");
  check.Add("status", std::string(StateName(result.state)))
      .Add("exit_status", ToInt(result.state))
      .Add("summary", result.summary);
  if (!stable) check.Add("perfdata", result.perfdata);
  report::Table& t = report.AddTable("checks", {"check", "status", "detail"}, "Checks");
  t.answer_columns = {"status"};
  for (const auto& i : result.items) {
    t.rows.push_back(
        {i.check, std::string(StateName(i.state)), stable ? i.StableDetail() : i.detail});
  }
  AddRunSection(evidence, ran, stable, report);
  report.primary_table = "checks";
}

}  // namespace dlcheck::check
