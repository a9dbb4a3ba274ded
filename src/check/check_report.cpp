// SPDX-License-Identifier: Apache-2.0
#include "check/check_report.h"

#include <array>
#include <type_traits>

#include "detect/platform_report.h"
#include "dispatch/run_fields.h"

namespace dlcheck::check {
namespace {

namespace run_field = dispatch::model_run_field;

template <typename T>
void AddIf(report::Section& section, const report::Field& field, const std::optional<T>& value,
           int precision = 3) {
  if (!value) return;
  if constexpr (std::is_same_v<T, double>) {
    section.Add(field, report::Value(*value, precision));
  } else {
    section.Add(field, *value);
  }
}

// The timed phase's budget in seconds, null when --iters fixed the step count.
report::Value Budget(const dispatch::ModelRunOptions& run) {
  const std::optional<double> budget = dispatch::TimedBudget(run);
  return budget ? report::Value(*budget, 3) : report::Value();
}

// The worker's results, typed, under the model run's names.
void AddResults(const dispatch::WorkerResults& r, report::Section& section) {
  using namespace run_field;
  AddIf(section, kBackend, r.backend);
  AddIf(section, kTrainSamples, r.train_samples);
  AddIf(section, kMaxDeviation, r.max_deviation, 9);
  AddIf(section, kDeviationTensor, r.deviation_tensor);
  AddIf(section, kTolerance, r.tolerance, 6);
  AddIf(section, kLossFirst, r.loss_first, 4);
  AddIf(section, kSamplesPerS, r.samples_per_s, 1);
  AddIf(section, kSamplesPerSMin, r.samples_per_s_min, 1);
  AddIf(section, kSamplesPerSMax, r.samples_per_s_max, 1);
  AddIf(section, kStepMs, r.step_ms_timed, 4);
  AddIf(section, kStepMsTraced, r.step_ms_traced, 4);
  AddIf(section, kLossLast, r.loss_last, 4);
}

void AddRunSection(const Evidence& evidence, const ModelPass& ran, bool stable,
                   report::Report& report) {
  using namespace run_field;
  report::Section& run = report.AddSection(kRunSection);
  run.Add(kModel, std::string(mlp::Name(ran.source.run.model.model)))
      .Add(kBatch, ran.source.run.model.batch)
      .Add(kWarmupIters, ran.source.run.warmup)
      .Add(kTimedS, Budget(ran.source.run))
      .Add(kTracedIters, ran.source.run.traced)
      .Add(kThreads, ran.settings.threads);
  if (const auto cap = dispatch::IsaCapOf(ran.settings.config)) run.Add(kMaxCpuIsa, *cap);
  if (!evidence.run) return;
  if (!stable) {
    // The steps the timed phase ran (what fitted in timed_s, or --iters), as `verbose` says.
    const auto& steps = ModelOf(*evidence.run).results.timed_steps;
    if (steps) {
      run.Add(kTimedIters, static_cast<std::int64_t>(*steps));
    } else if (ran.source.run.iters != dispatch::kItersByTime) {
      run.Add(kTimedIters, ran.source.run.iters);
    }
    AddResults(ModelOf(*evidence.run).results, run);
  }
  run.Add(kWorker, evidence.run->outcome.ok() ? report::Value("ok")
                                              : report::Value(evidence.run->outcome.Describe()));
}

}  // namespace

const report::contract::Document& CheckDocument() {
  static const report::contract::Document kCheck = [] {
    using namespace check_field;
    using namespace run_field;
    namespace contract = report::contract;
    std::vector<contract::Member> members = {
        contract::Object(kCheckSection, {kStatus, kExitStatus, kSummary, kPerfdata, kHost}),
        contract::Rows(kChecksTable, {check_field::kCheck, kStatus, kDetail}),
        contract::Object(
            kRunSection,
            {kModel,           kBatch,          kWarmupIters, kTimedS,       kTracedIters,
             kThreads,         kMaxCpuIsa,      kBackend,     kTrainSamples, kMaxDeviation,
             kDeviationTensor, kTolerance,      kLossFirst,   kTimedIters,   kSamplesPerS,
             kSamplesPerSMin,  kSamplesPerSMax, kStepMs,      kStepMsTraced, kLossLast,
             kWorker})};
    return contract::Document{
        "check", "the provisioning smoke check: requirements, probes and a short model pass",
        contract::Joined(std::move(members), detect::PlatformMembers(/*with_probes=*/false)),
        std::string(kChecksTable.name)};
  }();
  return kCheck;
}

void AddCheckReport(const CheckResult& result, const Evidence& evidence, const ModelPass& ran,
                    report::Report& report, bool stable) {
  report.command = CheckDocument().command;
  report.document = &CheckDocument();
  report.headline = stable ? result.StableHeadline() : result.Headline();
  using namespace check_field;
  report::Section& check = report.AddSection(kCheckSection);
  check.Add(kStatus, std::string(StateName(result.state)))
      .Add(kExitStatus, ToInt(result.state))
      .Add(kSummary, result.summary);
  if (!stable) check.Add(kPerfdata, result.perfdata);
  report::Table& t =
      report.AddTable(kChecksTable, std::array{check_field::kCheck, kStatus, kDetail});
  t.answer_columns = {std::string(kStatus.name)};
  for (const auto& i : result.items) {
    t.AddRow()
        .Set(check_field::kCheck, i.check)
        .Set(kStatus, std::string(StateName(i.state)))
        .Set(kDetail, stable ? i.StableDetail() : i.detail);
  }
  AddRunSection(evidence, ran, stable, report);
}

}  // namespace dlcheck::check
