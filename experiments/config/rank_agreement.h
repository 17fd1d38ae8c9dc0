#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

#include "experiments/config/experiment_options.h"

namespace mnrl::distributed {
class Communicator;
}

namespace mnrl::experiments {

// The ranks of a job do not run the same experiment. Every rank throws it with the same
// message; nothing has been run or written.
class RanksDisagree : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Collective, before any work: every rank compares its resolved config, its env plugin's
// bytes (CRC-32C), the env's data files, its mnrl version and, for a resume, the step of the
// checkpoint it resumes from (`resume_step` >= 0) with rank 0's. Ranks that differ in what they
// compute corrupt each other's buffers or silently diverge, so a difference is refused:
// RanksDisagree names the ranks and the first key that differs, with both values.
void check_ranks_agree(distributed::Communicator& communicator, const ExperimentOptions& options,
                       std::int64_t resume_step = -1);

// What check_ranks_agree() compares, as one YAML document: the resolved config as config.yaml
// holds it, the program, the CRC-32C of the env plugin's bytes as loaded, and that of each file
// the env reads (its path kwargs, config_paths.h) as it is now.
std::string agreement_text(const ExperimentOptions& options, std::int64_t resume_step = -1);

}  // namespace mnrl::experiments
