// SPDX-License-Identifier: Apache-2.0
#pragma once
// The environment whatif measures in: dlcheck's choice, not the user's. oneDNN's variables
// (ONEDNN_*, DNNL_*, MKLDNN_*) and OpenMP's (OMP_*, KMP_*, GOMP_*) that the user exported are
// removed before oneDNN or OpenMP read them, named in the report, and those that would have
// changed the figures are said in a finding (a cap below the host's ISA, verbose output, ISA
// hints, thread placement).
//
//   std::vector<EnvironmentVariable> found = MeasurementVariables(environ);
//   std::optional<Finding> f = RemovedEnvironmentFinding(found, "avx512_core");
//     // ONEDNN_MAX_CPU_ISA=avx2 would have capped the measurement below this host's avx512_core

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/finding.h"

namespace dlcheck::whatif {

struct EnvironmentVariable {
  std::string name;
  std::string value;
  bool operator==(const EnvironmentVariable&) const = default;
};

/// Whether `name` is oneDNN's or OpenMP's: it starts with ONEDNN_, DNNL_, MKLDNN_, OMP_, KMP_ or
/// GOMP_.
bool IsMeasurementVariable(std::string_view name);

/// The oneDNN and OpenMP variables of `environment` (entries `NAME=VALUE`, ended by nullptr, as
/// `environ`), in its order.
std::vector<EnvironmentVariable> MeasurementVariables(const char* const* environment);

/// How `v` would have changed whatif's figures on a host whose oneDNN ISA is `host_isa`
/// ("capped the measurement at avx2, below this host's avx512_core"); empty when it would not
/// have (a thread count whatif sets itself, a cap at or above the host's, verbose level 0).
std::string EffectOf(const EnvironmentVariable& v, std::string_view host_isa);

/// `environment-removed`: the removed variables that would have changed the figures (a warning),
/// or, when none would have, their names (info); nullopt when nothing was removed.
std::optional<Finding> RemovedEnvironmentFinding(const std::vector<EnvironmentVariable>& removed,
                                                 std::string_view host_isa);

/// `NAME=VALUE` of each, for the report.
std::vector<std::string> EnvironmentTexts(const std::vector<EnvironmentVariable>& variables);

/// The variables as one text for a child's environment, and back (a value may hold any byte but
/// NUL; the unit separator 0x1f ends each entry).
std::string EncodeEnvironment(const std::vector<EnvironmentVariable>& variables);
std::vector<EnvironmentVariable> DecodeEnvironment(std::string_view text);

}  // namespace dlcheck::whatif
