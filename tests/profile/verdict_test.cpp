// SPDX-License-Identifier: Apache-2.0
// Whether a recording can be reported, in the words `dlcheck profile` ends with.
#include "profile/verdict.h"

#include <gtest/gtest.h>

#include <string>

namespace dlcheck::profile {
namespace {

Profile Recorded(std::uint64_t samples, double first_s, double last_s) {
  Profile p;
  p.samples = samples;
  p.first_s = first_s;
  p.last_s = last_s;
  return p;
}

const PerfSettings kPerf{.event = "cycles", .frequency = 999};

TEST(VerdictTest, ALongEnoughRecordingWithSamplesIsReported) {
  EXPECT_TRUE(
      CheckReportable(Recorded(3000, 10.0, 13.0), "./train", "exited with status 0", kPerf).ok());
  EXPECT_TRUE(
      CheckReportable(Recorded(1, 0.0, kShortestProfileS), "./train", "exited with status 0", kPerf)
          .ok());
}

TEST(VerdictTest, AProgramThatEndedAtOnceIsTooShortToProfile) {
  const Status s =
      CheckReportable(Recorded(3, 10.0, 10.042), "./a.out", "exited with status 0", kPerf);
  EXPECT_EQ(s.code(), ExitCode::kUnsupported);
  EXPECT_EQ(s.message(),
            "./a.out exited with status 0 after 0.042 s, too soon to profile (3 samples at 999 per "
            "second); profile a run that lasts at least a second");
}

TEST(VerdictTest, ARecordingWithoutSamplesSaysToCheckTheEvent) {
  Profile p = Recorded(0, 10.0, 12.0);  // a span (from other records) but no sample in it
  const Status s = CheckReportable(p, "the model worker", "exited with status 0",
                                   {.event = "instructions", .frequency = 99});
  EXPECT_EQ(s.code(), ExitCode::kUnsupported);
  EXPECT_EQ(s.message(),
            "perf recorded no sample of the model worker in 2.000 s (exited with status 0): check "
            "that the event samples here ('perf record -e instructions -- the model worker')");
  // Off-CPU time alone is something to report.
  p.off_cpu[{"S", "main;sleep"}] = {};
  EXPECT_TRUE(CheckReportable(p, "./a.out", "exited with status 0", kPerf).ok());
}

TEST(VerdictTest, AnInterruptedRecordingSaysWhyThereIsNothingToReport) {
  EXPECT_EQ(NothingToReport(StatusOr<Profile>(Status(ExitCode::kFailure, "perf script failed"))),
            "perf's recording could not be read: perf script failed");
  EXPECT_EQ(NothingToReport(Recorded(0, 0, 0)), "perf recorded no sample before it");
  EXPECT_EQ(NothingToReport(Recorded(12, 5.0, 5.02)),
            "stopped after 0.020 s, too soon to report (12 samples)");
  EXPECT_EQ(NothingToReport(Recorded(400, 5.0, 5.4)), std::nullopt);
}

}  // namespace
}  // namespace dlcheck::profile
