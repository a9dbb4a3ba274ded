#pragma once
// `dlcheck dispatch [OPTIONS] -- CMD [ARGS...]`: the sweep of `dispatch` over a user's program.
// CMD runs once per configuration and repeat, as `run` runs it (verbose on for every oneDNN
// generation, its own output passed on to stderr): under each ISA cap (ONEDNN_MAX_CPU_ISA and its
// older spellings) and on each thread set (OMP_NUM_THREADS, MKL_NUM_THREADS and the affinity of
// the set's cores, one thread per core). The report: wall time per configuration (median and
// spread of the repeats), per primitive the implementation and time under each cap, and rankings
// only where the difference exceeds the spread.

#include <string>
#include <vector>

#include "common/status.h"
#include "report/printer.h"

namespace dlcheck::cli {

struct DispatchProgramOptions {
  std::vector<std::string> command;      ///< CMD and its arguments
  std::vector<std::string> isa;          ///< --isa; empty: every cap up to the machine's
  std::vector<std::string> thread_sets;  ///< --thread-sets; empty: none
  int threads = 0;                       ///< --threads of the ISA sweep; 0: chosen (idle cores)
  int repeat = 1;                        ///< --repeat: runs per configuration
  report::Format format = report::Format::kTable;
};

/// Runs the sweep and prints its report. Ends with 0 when every run of CMD exited 0, the first
/// other status of a run (128 + N for signal N) otherwise, 128 + N when dlcheck was interrupted
/// by signal N; errors: CMD cannot be started (127, 126), a bad cap or thread set (2, 7).
StatusOr<int> RunDispatchProgram(const DispatchProgramOptions& options);

}  // namespace dlcheck::cli
