// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/Scenario.h"

#include <string>

namespace parallax::core {

// A Slurm batch script that runs a training design under Megatron-LM for a few iterations on mock data: the
// check of a design on the cluster it was planned for. It carries MegatronArgsWriter's flags (and its
// parallax-scenario marker, so import-args reads it back), the design's node and GPU counts as #SBATCH lines,
// a torchrun rendezvous per node under srun, and, as comments, what the engine predicts to compare with
// Megatron-LM's log: the step time with its range and the allocator's peak memory. Throws
// std::invalid_argument for a serving design or one the engine rejects (the message names the field).
class SlurmBenchmarkWriter {
public:
    static std::string write(const Scenario& s);
};

} // namespace parallax::core
