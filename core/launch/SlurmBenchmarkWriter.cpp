// SPDX-License-Identifier: Apache-2.0
#include "core/launch/SlurmBenchmarkWriter.h"

#include "core/Engine.h"
#include "core/Units.h"
#include "core/launch/FrameworkGaps.h"
#include "core/launch/LaunchHosts.h"
#include "core/launch/LaunchMarker.h"
#include "core/launch/MegatronArgsWriter.h"
#include "core/launch/TrainingLogReader.h"
#include "core/memory/RangeText.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <sstream>
#include <stdexcept>
#include <vector>

namespace parallax::core {

namespace {

// "parallax-llama-3-70b-on-64-h100": Slurm's job name, letters, digits and dashes.
std::string jobName(const std::string& name)
{
    std::string out = "parallax";
    bool dash = true;
    for (const char c : name) {
        if (std::isalnum(static_cast<unsigned char>(c)) != 0) {
            if (dash)
                out += '-';
            out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
            dash = false;
        } else {
            dash = true;
        }
        if (out.size() >= 64)
            break;
    }
    return out;
}

std::string gib(double bytes)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f GiB", bytes / kGiB);
    return buf;
}

} // namespace

std::string SlurmBenchmarkWriter::write(const Scenario& s)
{
    if (s.mode == ScenarioMode::Inference)
        throw std::invalid_argument("this is a serving design (mode inference); a Slurm benchmark runs a training "
                                    "design under Megatron-LM");
    const Report design = evaluate(s);
    if (!design.valid)
        throw std::invalid_argument("the engine rejects the design: "
            + (design.errors.empty() ? std::string("?")
                                     : design.errors.front().field + ": " + design.errors.front().text));
    // The prediction to compare with the log is for what Megatron-LM runs with these flags.
    std::vector<std::string> changes;
    const Scenario run = runAs(s, LaunchFramework::MegatronLm, changes);
    const Report r = changes.empty() ? design : evaluate(run);
    if (!r.valid)
        throw std::invalid_argument("Megatron-LM would run the design " + changes.front()
            + ", which the engine rejects: "
            + (r.errors.empty() ? std::string("?") : r.errors.front().field + ": " + r.errors.front().text));
    const LaunchHosts hosts = launchHosts(s.topology);
    int allocatedStage = 0;
    const double allocated = allocatorPeakBytes(r, &allocatedStage);
    std::vector<std::string> arrays;
    const std::string argumentArrays = MegatronArgsWriter::argumentArrays(s, arrays);

    std::ostringstream o;
    o << "#!/bin/bash\n"
      << "# Slurm batch script for \"" << LaunchMarker::oneLine(s.name)
      << "\", written by Parallax: the design under Megatron-LM\n"
      << "# (flags of core_r0.14.0) on " << hosts.hosts << " nodes x " << hosts.gpusPerHost
      << " GPUs, on mock data for a few iterations, to check its predicted\n"
      << "# step time on this cluster. Submit with sbatch; set MEGATRON_LM to a Megatron-LM checkout (TRAIN_ITERS,\n"
      << "# MASTER_PORT optional). For a real run, replace BENCHMARK_ARGS with your data, tokenizer, optimizer and\n"
      << "# checkpoint arguments.\n"
      << "#\n";
    if (!changes.empty()) {
        o << "# NOTE: Megatron-LM runs this design otherwise than planned (the NOTE lines below say why):\n";
        for (const std::string& change : changes)
            o << "#   - " << change << "\n";
        o << "# The prediction below is for that; the design itself would take " << stepTimeRangeText(design)
          << " per iteration.\n";
    }
    o << "# Parallax predicts, for this design as Megatron-LM runs it:\n"
      << "#   step time    " << stepTimeRangeText(r) << " per iteration (the range: the engine's measured error\n"
      << "#                on published runs of " << r.stepTimeFamily << ")\n"
      << "#   memory       PyTorch's max allocated about " << gib(allocated) << " on pipeline stage " << allocatedStage
      << "; with the CUDA\n"
      << "#                context, NCCL and fragmentation " << peakMemoryRangeText(r) << " of " << gib(r.hbmBytes)
      << " HBM (" << toString(r.memoryVerdict) << ")\n"
      << "# Compare with Megatron-LM's log: \"elapsed time per iteration (ms)\" (the first iterations include\n"
      << "# warm-up) and the memory report after the first iteration (\"max allocated\", MB), or let Parallax:\n"
      << "#   parallax-cli check-log --log <job>.out --script <this file>\n";
    if (hosts.domainSpansHosts())
        o << "# NOTE: an NVLink domain spans " << hosts.gpusPerDomain / hosts.gpusPerHost
          << " hosts here: on a Slurm cluster with the topology/block plugin, add\n"
          << "# \"#SBATCH --segment=" << hosts.gpusPerDomain / hosts.gpusPerHost
          << "\" so that each domain's hosts come from one rack.\n";
    for (const auto& line : LaunchMarker::lines(s))
        o << line << "\n";
    o << "#SBATCH --job-name=" << jobName(s.name) << "\n"
      << "#SBATCH --nodes=" << hosts.hosts << "\n"
      << "#SBATCH --ntasks-per-node=1\n"
      << "#SBATCH --gpus-per-node=" << hosts.gpusPerHost << "\n"
      << "#SBATCH --exclusive\n"
      << "#SBATCH --output=%x-%j.out\n"
      << "set -euo pipefail\n\n"
      << "MEGATRON_LM=${MEGATRON_LM:?set MEGATRON_LM to a Megatron-LM checkout}\n"
      << "TRAIN_ITERS=${TRAIN_ITERS:-10}\n"
      << "MASTER_PORT=${MASTER_PORT:-29500}\n"
      << "MASTER_ADDR=$(scontrol show hostnames \"$SLURM_JOB_NODELIST\" | head -n 1)\n"
      << "# Megatron-LM's examples set one CUDA work queue per device, so that its tensor- and sequence-parallel\n"
      << "# communication is issued in the order it overlaps with compute.\n"
      << "export CUDA_DEVICE_MAX_CONNECTIONS=1\n"
      << argumentArrays << "\n"
      << "# A timing run: mock data (megatron/training/arguments.py --mock-data), a null tokenizer of the model's\n"
      << "# vocabulary, a constant learning rate, no evaluation and no checkpoint.\n"
      << "BENCHMARK_ARGS=(\n"
      << "    --mock-data\n"
      << "    --tokenizer-type NullTokenizer\n"
      << "    --train-iters \"$TRAIN_ITERS\"\n"
      << "    --lr 1.0e-4\n"
      << "    --lr-decay-style constant\n"
      << "    --eval-iters 0\n"
      << "    --log-interval 1\n"
      << "    --log-throughput\n"
      << ")\n\n"
      << "srun --ntasks-per-node=1 torchrun \\\n"
      << "    --nnodes " << hosts.hosts << " --nproc-per-node " << hosts.gpusPerHost << " \\\n"
      << "    --rdzv-id \"$SLURM_JOB_ID\" --rdzv-backend c10d --rdzv-endpoint \"$MASTER_ADDR:$MASTER_PORT\" \\\n"
      << "    \"$MEGATRON_LM/pretrain_gpt.py\"";
    for (const std::string& name : arrays)
        o << " \"${" << name << "[@]}\"";
    o << " \"${BENCHMARK_ARGS[@]}\"\n";
    return o.str();
}

} // namespace parallax::core
