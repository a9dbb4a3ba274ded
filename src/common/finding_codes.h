// SPDX-License-Identifier: Apache-2.0
#pragma once
// The codes of every finding dlcheck draws: stable identifiers that reports print, man pages
// document and consumers (`check`, `dispatch`, `whatif`, scripts) match. Each is spelled once,
// here, so that a code cannot be misspelled where it is made or matched.
//
//   findings.push_back({.severity = Severity::kWarning, .code = codes::kNoExec, ...});
//   if (f.code == codes::kPayoff) ...
//
// Character arrays, not string_views, so that they initialise Finding::code (a std::string).

namespace dlcheck::codes {

// the machine (platform, check)
inline constexpr char kAmxPermissionDenied[] = "amx-permission-denied";
inline constexpr char kAvx512On256BitUnits[] = "avx512-on-256-bit-units";
inline constexpr char kCoreKindsDiffer[] = "core-kinds-differ";
inline constexpr char kCoreOfSeveralParts[] = "core-of-several-parts";
inline constexpr char kCpuQuota[] = "cpu-quota";
inline constexpr char kDumpRepeatsCpus[] = "dump-repeats-cpus";
inline constexpr char kHypervisor[] = "hypervisor";
inline constexpr char kHypervisorHides[] = "hypervisor-hides";
inline constexpr char kModelContradictsFeatures[] = "model-contradicts-features";
inline constexpr char kKernelHidesFeatures[] = "kernel-hides-features";
inline constexpr char kKernelListsAbsentFeatures[] = "kernel-lists-absent-features";
inline constexpr char kLibcpuidDisagrees[] = "libcpuid-disagrees";
inline constexpr char kLibcpuidNoAvx512[] = "libcpuid-no-avx512";
inline constexpr char kLibcpuidSubleavesLeftOut[] = "libcpuid-subleaves-left-out";
inline constexpr char kLibcpuidUnavailable[] = "libcpuid-unavailable";
inline constexpr char kNotOnAarch64[] = "not-on-aarch64";
inline constexpr char kNoProcCpuinfo[] = "no-proc-cpuinfo";
inline constexpr char kOnednnIsaAboveDerived[] = "onednn-isa-above-derived";
inline constexpr char kOnednnIsaBelowDerived[] = "onednn-isa-below-derived";
inline constexpr char kOnednnIsaCapped[] = "onednn-isa-capped";
inline constexpr char kOsAmxDisabled[] = "os-amx-disabled";
inline constexpr char kOsAvxDisabled[] = "os-avx-disabled";
inline constexpr char kOsAvx512Disabled[] = "os-avx512-disabled";
inline constexpr char kProbeError[] = "probe-error";
inline constexpr char kProbeFaults[] = "probe-faults";
inline constexpr char kProbeFaultsAsExpected[] = "probe-faults-as-expected";
inline constexpr char kProbeFaultsOsDisabled[] = "probe-faults-os-disabled";
inline constexpr char kProbeRunsUnclaimed[] = "probe-runs-unclaimed";
inline constexpr char kRecording[] = "recording";
inline constexpr char kRecordingIncomplete[] = "recording-incomplete";
inline constexpr char kReportPartsLeftOut[] = "report-parts-left-out";
inline constexpr char kRestrictedCpus[] = "restricted-cpus";
inline constexpr char kSveLengthFromCore[] = "sve-length-from-core";
inline constexpr char kSveLengthUnknown[] = "sve-length-unknown";
inline constexpr char kUnknownMicroarchitecture[] = "unknown-microarchitecture";
inline constexpr char kXsaveLacksAmxState[] = "xsave-lacks-amx-state";
inline constexpr char kXsaveLacksAvx512State[] = "xsave-lacks-avx512-state";

// a verbose log (parse, run, verbose)
inline constexpr char kCacheThrash[] = "cache-thrash";
inline constexpr char kCallerChecks[] = "caller-checks";
inline constexpr char kCreateDominates[] = "create-dominates";
inline constexpr char kDiagnostics[] = "diagnostics";
inline constexpr char kDtypeNoNativePath[] = "dtype-no-native-path";
inline constexpr char kFirstExecSlow[] = "first-exec-slow";
inline constexpr char kGraphPatternMatcher[] = "graph-pattern-matcher";
inline constexpr char kIsaInferred[] = "isa-inferred";
inline constexpr char kNoExec[] = "no-exec";
inline constexpr char kPartialLog[] = "partial-log";
inline constexpr char kProviderCpuOnly[] = "provider-cpu-only";
inline constexpr char kProviderFallback[] = "provider-fallback";
inline constexpr char kReorderEveryStep[] = "reorder-every-step";
inline constexpr char kReorderShare[] = "reorder-share";
inline constexpr char kRowLimit[] = "row-limit";
inline constexpr char kScalarFallback[] = "scalar-fallback";
inline constexpr char kSkippedFasterKernel[] = "skipped-faster-kernel";

// runs and sweeps (run, dispatch, whatif)
inline constexpr char kBelowHostIsa[] = "below-host-isa";
inline constexpr char kBusyMachine[] = "busy-machine";
inline constexpr char kCapHidden[] = "cap-hidden";
inline constexpr char kCapModelFallback[] = "cap-model-fallback";
inline constexpr char kCapScalarFallback[] = "cap-scalar-fallback";
inline constexpr char kDeviation[] = "deviation";
inline constexpr char kInterrupted[] = "interrupted";
inline constexpr char kIsaAboveCap[] = "isa-above-cap";
inline constexpr char kModelFallback[] = "model-fallback";
inline constexpr char kNoVerbose[] = "no-verbose";
inline constexpr char kOnednnErrorsOnly[] = "onednn-errors-only";
inline constexpr char kOnednnNotLoaded[] = "onednn-not-loaded";
inline constexpr char kOutOfMemory[] = "out-of-memory";
inline constexpr char kOversubscribed[] = "oversubscribed";
inline constexpr char kPayoff[] = "payoff";
inline constexpr char kPeakBelowNarrower[] = "peak-below-narrower";
inline constexpr char kProgramEndedEarly[] = "program-ended-early";
inline constexpr char kProgramFailed[] = "program-failed";
inline constexpr char kProgramSignaled[] = "program-signaled";
inline constexpr char kThreadsCapped[] = "threads-capped";
inline constexpr char kThreadsOverridden[] = "threads-overridden";
inline constexpr char kTimeOutsideOnednn[] = "time-outside-onednn";
inline constexpr char kTimelineCapped[] = "timeline-capped";
inline constexpr char kTooFewRuns[] = "too-few-runs";
inline constexpr char kTooNoisy[] = "too-noisy";
inline constexpr char kVerboseSettingKept[] = "verbose-setting-kept";
inline constexpr char kWorkerFailed[] = "worker-failed";

// whatif
inline constexpr char kEnvironmentRemoved[] = "environment-removed";
inline constexpr char kThreadsAboveCpus[] = "threads-above-cpus";

// tune
inline constexpr char kBudgetEnded[] = "budget-ended";
inline constexpr char kKnobNotApplicable[] = "knob-not-applicable";
inline constexpr char kVariantFailed[] = "variant-failed";
// tune's audit of the running program (also reference-blas, of profile)
inline constexpr char kPoolsOversubscribed[] = "pools-oversubscribed";
inline constexpr char kThreadsShareACore[] = "threads-share-a-core";
inline constexpr char kTwoOnednnCopies[] = "two-onednn-copies";
inline constexpr char kTwoOpenmpRuntimes[] = "two-openmp-runtimes";

// profile
inline constexpr char kNoExecJoin[] = "no-exec-join";
inline constexpr char kNoJitNames[] = "no-jit-names";
inline constexpr char kNoOffCpu[] = "no-off-cpu";
inline constexpr char kNoPythonFrames[] = "no-python-frames";
inline constexpr char kNoStackScan[] = "no-stack-scan";
inline constexpr char kOpenmpShare[] = "openmp-share";
inline constexpr char kReferenceBlas[] = "reference-blas";
inline constexpr char kStackScanBounded[] = "stack-scan-bounded";

// diff
inline constexpr char kDiffEnginesDiffer[] = "diff-engines-differ";
inline constexpr char kDiffNoRegression[] = "diff-no-regression";
inline constexpr char kDiffRowsWithoutNumbers[] = "diff-rows-without-numbers";
inline constexpr char kDiffSlower[] = "diff-slower";
inline constexpr char kDiffWithinNoise[] = "diff-within-noise";
inline constexpr char kDiffWorseImplementation[] = "diff-worse-implementation";

// fleet
inline constexpr char kSameSiliconDiffers[] = "same-silicon-differs";

// the commands themselves
inline constexpr char kNoTopology[] = "no-topology";
inline constexpr char kTopologyUnavailable[] = "topology-unavailable";

// roofline and the machine profile
/// A prefix: the code ends in the thread count K past which DRAM bandwidth grows no more.
inline constexpr char kBandwidthSaturatedAt[] = "bandwidth-saturated-at-";
inline constexpr char kDramBelowReportedCache[] = "dram-below-reported-cache";
inline constexpr char kFarBelowRoof[] = "far-below-roof";
inline constexpr char kMachineProfileUnreadable[] = "machine-profile-unreadable";
inline constexpr char kMemoryBound[] = "memory-bound";
inline constexpr char kNoHardwareCounters[] = "no-hardware-counters";
inline constexpr char kNoPeakForDtype[] = "no-peak-for-dtype";
inline constexpr char kProfileStored[] = "profile-stored";
inline constexpr char kRooflineRoofs[] = "roofline-roofs";

}  // namespace dlcheck::codes
