// SPDX-License-Identifier: Apache-2.0
#include "detect/probe.h"

#include <fmt/format.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <csignal>
#include <cstdint>
#include <cstring>

#include "common/finding_codes.h"

namespace dlcheck::detect {
namespace {

// Each probe executes one instruction of its feature and nothing the feature does not imply.
// They are written as assembler mnemonics so the compiler's own target flags do not matter.
void ProbeSse41() {
  asm volatile("ptest %%xmm0, %%xmm0" ::: "xmm0", "cc");
}
void ProbeSse42() {
  asm volatile("pcmpgtq %%xmm0, %%xmm0" ::: "xmm0");
}
void ProbeAvx() {
  asm volatile("vaddps %%ymm0, %%ymm0, %%ymm0" ::: "xmm0");
}
void ProbeAvx2() {
  asm volatile("vpaddd %%ymm0, %%ymm0, %%ymm0" ::: "xmm0");
}
void ProbeFma() {
  asm volatile("vfmadd231ps %%ymm0, %%ymm0, %%ymm0" ::: "xmm0");
}
void ProbeF16c() {
  asm volatile("vcvtph2ps %%xmm0, %%ymm0" ::: "xmm0");
}
void ProbeAvx512f() {
  asm volatile("vpaddd %%zmm0, %%zmm0, %%zmm0" ::: "xmm0");
}
void ProbeAvx512cd() {
  asm volatile("vpconflictd %%zmm0, %%zmm0" ::: "xmm0");
}
void ProbeAvx512bw() {
  asm volatile("vpaddb %%zmm0, %%zmm0, %%zmm0" ::: "xmm0");
}
void ProbeAvx512dq() {
  asm volatile("vpmullq %%zmm0, %%zmm0, %%zmm0" ::: "xmm0");
}
// xmm16 exists only in EVEX encoding; a 128-bit EVEX operation needs AVX512VL.
// The compiler never allocates xmm16 (no AVX-512 target flags), so it needs no clobber.
void ProbeAvx512vl() {
  asm volatile("vpaddd %xmm16, %xmm16, %xmm16");
}
void ProbeAvx512ifma() {
  asm volatile("vpmadd52luq %%zmm0, %%zmm0, %%zmm0" ::: "xmm0");
}
void ProbeAvx512vbmi() {
  asm volatile("vpermb %%zmm0, %%zmm0, %%zmm0" ::: "xmm0");
}
void ProbeAvx512Vbmi2() {
  asm volatile("vpshldw $1, %%zmm0, %%zmm0, %%zmm0" ::: "xmm0");
}
void ProbeAvx512Vnni() {
  asm volatile("vpdpbusd %%zmm0, %%zmm0, %%zmm0" ::: "xmm0");
}
void ProbeAvx512Bitalg() {
  asm volatile("vpopcntb %%zmm0, %%zmm0" ::: "xmm0");
}
void ProbeAvx512Vpopcntdq() {
  asm volatile("vpopcntd %%zmm0, %%zmm0" ::: "xmm0");
}
void ProbeAvx512Bf16() {
  asm volatile("vdpbf16ps %%zmm0, %%zmm0, %%zmm0" ::: "xmm0");
}
void ProbeAvx512Fp16() {
  asm volatile("vaddph %%zmm0, %%zmm0, %%zmm0" ::: "xmm0");
}
void ProbeAvxVnni() {
  asm volatile("%{vex%} vpdpbusd %%ymm0, %%ymm0, %%ymm0" ::: "xmm0");
}

// AMX needs the kernel's permission for the tile data state, then a tile configuration.
constexpr int kArchReqXcompPerm = 0x1023;
constexpr int kXfeatureTileData = 18;

bool RequestAmx() {
  return syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureTileData) == 0;
}

void ConfigureTiles() {
  // Palette 1; tiles 0..2 with 16 rows of 64 bytes.
  alignas(64) std::array<std::uint8_t, 64> config{};
  config[0] = 1;
  for (int t = 0; t < 3; ++t) {
    config[16 + 2 * t] = 64;  // colsb (16-bit, little endian)
    config[48 + t] = 16;      // rows
  }
  asm volatile("ldtilecfg %0" ::"m"(config));
}

void ProbeAmxTile() {
  ConfigureTiles();
  asm volatile("tilezero %%tmm0" :::);
  asm volatile("tilerelease" :::);
}
void ProbeAmxBf16() {
  ConfigureTiles();
  asm volatile("tdpbf16ps %%tmm2, %%tmm1, %%tmm0" :::);
  asm volatile("tilerelease" :::);
}
void ProbeAmxInt8() {
  ConfigureTiles();
  asm volatile("tdpbssd %%tmm2, %%tmm1, %%tmm0" :::);
  asm volatile("tilerelease" :::);
}

void ProbeUd2() {
  asm volatile("ud2");
}

struct Probe {
  std::string_view feature;
  void (*run)();
  bool needs_amx_permission;
};

constexpr Probe kProbes[] = {
    {"sse4_1", ProbeSse41, false},
    {"sse4_2", ProbeSse42, false},
    {"avx", ProbeAvx, false},
    {"avx2", ProbeAvx2, false},
    {"fma", ProbeFma, false},
    {"f16c", ProbeF16c, false},
    {"avx512f", ProbeAvx512f, false},
    {"avx512cd", ProbeAvx512cd, false},
    {"avx512bw", ProbeAvx512bw, false},
    {"avx512dq", ProbeAvx512dq, false},
    {"avx512vl", ProbeAvx512vl, false},
    {"avx512ifma", ProbeAvx512ifma, false},
    {"avx512vbmi", ProbeAvx512vbmi, false},
    {"avx512_vbmi2", ProbeAvx512Vbmi2, false},
    {"avx512_vnni", ProbeAvx512Vnni, false},
    {"avx512_bitalg", ProbeAvx512Bitalg, false},
    {"avx512_vpopcntdq", ProbeAvx512Vpopcntdq, false},
    {"avx512_bf16", ProbeAvx512Bf16, false},
    {"avx512_fp16", ProbeAvx512Fp16, false},
    {"avx_vnni", ProbeAvxVnni, false},
    {"amx_tile", ProbeAmxTile, true},
    {"amx_bf16", ProbeAmxBf16, true},
    {"amx_int8", ProbeAmxInt8, true},
};

constexpr int kPermissionRefused = 3;

}  // namespace

const std::vector<std::string_view>& ProbedFeatures() {
  static const std::vector<std::string_view> kNames = [] {
    std::vector<std::string_view> names;
    for (const auto& p : kProbes) names.push_back(p.feature);
    return names;
  }();
  return kNames;
}

ProbeResult RunProbe(std::string_view feature) {
  ProbeResult result{.feature = std::string(feature)};
  const Probe* probe = nullptr;
  static constexpr Probe kUd2{kFaultingProbe, ProbeUd2, false};
  for (const auto& p : kProbes) {
    if (p.feature == feature) probe = &p;
  }
  if (feature == kFaultingProbe) probe = &kUd2;
  if (probe == nullptr) return result;

  const pid_t pid = fork();
  if (pid < 0) {
    result.state = ProbeState::kError;
    result.detail = fmt::format("cannot fork: {}", std::strerror(errno));
    return result;
  }
  if (pid == 0) {
    // No core dump for an expected fault.
    signal(SIGILL, SIG_DFL);
    if (probe->needs_amx_permission && !RequestAmx()) _exit(kPermissionRefused);
    probe->run();
    _exit(0);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    result.state = ProbeState::kPassed;
  } else if (WIFSIGNALED(status)) {
    result.state = ProbeState::kFaulted;
    const int sig = WTERMSIG(status);
    result.detail = sig == SIGILL ? "SIGILL" : fmt::format("signal {}", sig);
  } else if (WIFEXITED(status) && WEXITSTATUS(status) == kPermissionRefused) {
    result.state = ProbeState::kFaulted;
    result.detail = "the kernel refused the AMX tile state (arch_prctl ARCH_REQ_XCOMP_PERM)";
  } else {
    result.state = ProbeState::kError;
    result.detail = fmt::format("probe exited with status {}", WEXITSTATUS(status));
  }
  return result;
}

std::optional<std::string> CheckProbeName(const std::string& feature) {
  if (feature == kFaultingProbe) return std::nullopt;
  const auto& names = ProbedFeatures();
  if (std::find(names.begin(), names.end(), feature) != names.end()) return std::nullopt;
  std::string list;
  for (auto n : names) list += fmt::format("{}{}", list.empty() ? "" : ",", n);
  return fmt::format("--probe: dlcheck has no probe for '{}' (it has: {},{})", feature, list,
                     kFaultingProbe);
}

std::vector<std::string> ProbesToRun(const PlatformInfo& info, bool claimed,
                                     const std::vector<std::string>& forced) {
  std::vector<std::string> order;
  const auto& probed = ProbedFeatures();
  for (const FeatureLayers& f : info.features) {
    const bool has_probe = std::find(probed.begin(), probed.end(), f.name) != probed.end();
    const bool wanted =
        (claimed && f.cpu) || std::find(forced.begin(), forced.end(), f.name) != forced.end();
    if (has_probe && wanted) order.push_back(f.name);
  }
  for (const std::string& name : forced) {
    if (std::find(order.begin(), order.end(), name) == order.end()) order.push_back(name);
  }
  return order;
}

std::vector<ProbeResult> RunProbes(const PlatformInfo& info, bool claimed,
                                   const std::vector<std::string>& forced) {
  std::vector<ProbeResult> results;
  for (const std::string& name : ProbesToRun(info, claimed, forced)) {
    results.push_back(RunProbe(name));
  }
  return results;
}

const ProbeResult* FindProbe(const std::vector<ProbeResult>& probes, std::string_view feature) {
  for (const ProbeResult& p : probes) {
    if (p.feature == feature) return &p;
  }
  return nullptr;
}

namespace {

// The finding for a probe that faulted on a feature CPUID claims: expected when the OS has not
// enabled the feature's register state, otherwise something between CPUID and the CPU hides it.
Finding ClaimedButFaulted(const FeatureLayers* f, const ProbeResult& p) {
  if (f != nullptr && f->usable && !*f->usable) {
    return {Severity::kInfo, codes::kProbeFaultsOsDisabled,
            fmt::format("CPUID claims {} but the instruction faults ({}), as expected: the OS "
                        "has not enabled its register state",
                        p.feature, p.detail)};
  }
  return {Severity::kWarning, codes::kProbeFaults,
          fmt::format("CPUID claims {} but the instruction faults ({}): the hypervisor or "
                      "kernel hides it",
                      p.feature, p.detail)};
}

// The finding for one probe result, or nullopt when it only confirms CPUID.
std::optional<Finding> ProbeFinding(const PlatformInfo& info, const ProbeResult& p) {
  const FeatureLayers* f = info.FindFeature(p.feature);
  const bool claimed = f != nullptr && f->cpu;
  if (p.state == ProbeState::kError) {
    return Finding{Severity::kWarning, codes::kProbeError,
                   fmt::format("the probe of {} could not run: {}", p.feature, p.detail)};
  }
  if (p.state == ProbeState::kFaulted && claimed) return ClaimedButFaulted(f, p);
  if (p.state == ProbeState::kFaulted && p.feature == kFaultingProbe) {
    return Finding{Severity::kInfo, codes::kProbeFaultsAsExpected,
                   fmt::format("the {} probe faults ({}), as it always does: the fault path works",
                               p.feature, p.detail)};
  }
  if (p.state == ProbeState::kFaulted) {
    return Finding{Severity::kInfo, codes::kProbeFaultsAsExpected,
                   fmt::format("the {} instruction does not run ({}), as CPUID says: this CPU "
                               "does not have it",
                               p.feature, p.detail)};
  }
  if (p.state == ProbeState::kPassed && !claimed) {
    return Finding{Severity::kWarning, codes::kProbeRunsUnclaimed,
                   fmt::format("CPUID denies {} but its instruction runs", p.feature)};
  }
  return std::nullopt;
}

}  // namespace

std::vector<Finding> ProbeFindings(const PlatformInfo& info,
                                   const std::vector<ProbeResult>& probes) {
  std::vector<Finding> findings;
  for (const ProbeResult& p : probes) {
    if (std::optional<Finding> finding = ProbeFinding(info, p)) {
      findings.push_back(std::move(*finding));
    }
  }
  return findings;
}

}  // namespace dlcheck::detect
