// SPDX-License-Identifier: Apache-2.0
#include "core/launch/TorchtitanTomlWriter.h"

#include "core/parallel/PipelineLayout.h"
#include "core/search/NumberText.h"

#include "core/launch/FrameworkGaps.h"
#include "core/launch/LaunchMarker.h"

#include <map>
#include <sstream>

namespace parallax::core {

namespace {
const char* toml(bool b)
{
    return b ? "true" : "false";
}

// torchtitan model names and flavors (torchtitan/models/llama3, torchtitan/models/deepseek_v3,
// torchtitan/models/llama4: Maverick is "17bx128e", train_configs/llama4_17bx128e.toml).
std::pair<std::string, std::string> modelFor(const std::string& preset)
{
    static const std::map<std::string, std::pair<std::string, std::string>> models { { "llama3-8b",
                                                                                         { "llama3", "8B" } },
        { "llama3-70b", { "llama3", "70B" } }, { "llama3-405b", { "llama3", "405B" } },
        { "deepseek-v3", { "deepseek_v3", "671B" } }, { "llama4-maverick", { "llama4", "17bx128e" } } };
    const auto it = models.find(preset);
    return it == models.end() ? std::pair<std::string, std::string>() : it->second;
}

// torchtitan's pipeline_parallel_schedule names (torch.distributed.pipelining schedules).
std::string scheduleName(ScheduleKind k)
{
    switch (k) {
    case ScheduleKind::GPipe:
        return "GPipe";
    case ScheduleKind::OneFOneB:
        return "1F1B";
    case ScheduleKind::Interleaved1F1B:
        return "Interleaved1F1B";
    case ScheduleKind::ZbH1:
    case ScheduleKind::ZbH2:
        return "InterleavedZeroBubble";
    case ScheduleKind::ZbV:
        return "ZBVZeroBubble";
    case ScheduleKind::DualPipe:
    case ScheduleKind::DualPipeV:
        return "DualPipeV";
    }
    return "1F1B";
}
} // namespace

std::string TorchtitanTomlWriter::write(const Scenario& s)
{
    const ParallelConfig& p = s.parallel;
    const TrainingConfig& t = s.training;
    const ModelSpec& m = s.model;
    std::ostringstream o;
    o << "# torchtitan job config for \"" << LaunchMarker::oneLine(s.name) << "\", written by Parallax.\n"
      << "# Keys as in torchtitan v0.2.0 (torchtitan/config/job_config.py).\n";
    for (const auto& line : LaunchMarker::lines(s))
        o << line << "\n";
    // A TOML basic string: one line, with its backslashes and quotes escaped.
    std::string description;
    for (const char c : LaunchMarker::oneLine(s.name)) {
        if (c == '"' || c == '\\')
            description += '\\';
        description += c;
    }
    o << "\n[job]\ndescription = \"" << description << "\"\n";

    auto [name, flavor] = modelFor(s.modelPreset);
    o << "\n[model]\n";
    if (m.mtpLayers > 0)
        o << "# NOTE: the scenario trains " << m.mtpLayers << " multi-token-prediction depth"
          << (m.mtpLayers == 1 ? "" : "s") << "; torchtitan sets it in the model config (num_mtp_layers, "
          << "pytorch/torchtitan#3392), not in this file\n";
    if (m.parallelBlock)
        o << "# NOTE: torchtitan's models run attention then MLP; the scenario's parallel attention + MLP block "
             "(model.parallel_block) needs a model definition of its own\n";
    if (name.empty()) {
        o << "# NOTE: torchtitan has no model definition for " << LaunchMarker::oneLine(m.name) << " (" << m.layers
          << " layers, hidden " << m.hidden << ", " << m.heads << " heads";
        if (m.isMoe())
            o << ", " << m.moe->experts << " experts top-" << m.moe->topK;
        o << "); add a flavor to torchtitan/models/" << (m.isMoe() ? "deepseek_v3" : "llama3") << " with this shape\n";
        name = m.isMoe() ? "deepseek_v3" : "llama3";
        flavor = "parallax_custom";
    }
    o << "name = \"" << name << "\"\nflavor = \"" << flavor << "\"\n";
    if (t.dtype == DType::Fp8)
        o << "converters = [\"float8\"]\n";

    const int dpShard = p.zero >= 1 ? p.dp : 1;
    const int dpReplicate = p.zero >= 1 ? 1 : p.dp;
    // torchtitan's local_batch_size is per data-parallel rank and step; with PP it is cut into
    // micro-batches of pipeline_parallel_microbatch_size, without PP the rest is gradient accumulation.
    const long localBatch = p.dp > 0 ? t.globalBatch / p.dp : t.globalBatch;
    o << "\n[training]\n"
      << "local_batch_size = " << (p.pp > 1 ? localBatch : t.microBatch) << "\n"
      << "global_batch_size = " << t.globalBatch << "\n"
      << "seq_len = " << s.seqLen() << "\n"
      << "mixed_precision_param = \"bfloat16\"\n"
      << "mixed_precision_reduce = \"" << (p.gradReduceInFp32 ? "float32" : "bfloat16") << "\"\n";

    o << "\n[parallelism]\n"
      << "data_parallel_replicate_degree = " << dpReplicate << "\n"
      << "data_parallel_shard_degree = " << dpShard << "\n";
    o << gapNoteText(s, LaunchFramework::Torchtitan, GapPlace::DataParallel);
    // apply_fsdp (torchtitan/models/llama3/infra/parallelize.py): "default" reshards after the forward only
    // without PP, "always" does under PP too (a ZeRO-3 design), "never" keeps the parameters gathered (ZeRO-1/2).
    if (p.zero == 1 || p.zero == 2)
        o << "fsdp_reshard_after_forward = \"never\"\n";
    else if (p.zero == 3)
        o << "fsdp_reshard_after_forward = \"always\"\n";
    o << "tensor_parallel_degree = " << p.tp << "\n";
    o << "enable_async_tensor_parallel = " << toml(p.tpCommOverlap) << "\n"
      << "pipeline_parallel_degree = " << p.pp << "\n";
    if (p.pp > 1) {
        o << gapNoteText(s, LaunchFramework::Torchtitan, GapPlace::Pipeline);
        const std::string schedule = scheduleName(p.schedule);
        o << "pipeline_parallel_schedule = \"" << schedule << "\"\n"
          << "pipeline_parallel_microbatch_size = " << t.microBatch << "\n";
        const int stagesPerRank = p.vpp > 1 ? p.vpp : (schedule == "ZBVZeroBubble" || schedule == "DualPipeV" ? 2 : 1);
        std::string layoutError;
        const auto layout
            = p.pipelineLayout.empty() ? std::nullopt : parsePipelineLayout(p.pipelineLayout, layoutError);
        if (layout) {
            o << "# NOTE: the design's pipeline layout \"" << p.pipelineLayout << "\" places";
            for (int k = 0; k < layout->stages(); ++k)
                o << (k == 0 ? " " : ", ") << layout->layers[k];
            o << " layers on its " << layout->stages()
              << " stages; give them by hand (parallelism.module_fqns_per_model_part)\n";
        } else if (m.layers % (p.pp * stagesPerRank) == 0)
            o << "pipeline_parallel_layers_per_stage = " << m.layers / (p.pp * stagesPerRank) << "\n";
        else
            o << "# NOTE: " << m.layers << " layers do not split evenly into " << p.pp * stagesPerRank
              << " stages; give each stage's layers by hand (parallelism.module_fqns_per_model_part)\n";
    }
    o << "context_parallel_degree = " << p.cp << "\n";
    if (m.isMoe())
        o << "expert_parallel_degree = " << p.ep << "\n"
          << "expert_tensor_parallel_degree = " << p.etp << "\n";
    o << gapNoteText(s, LaunchFramework::Torchtitan, GapPlace::Parallel);
    o << gapNoteText(s, LaunchFramework::Torchtitan, GapPlace::Moe);

    o << "\n[activation_checkpoint]\n";
    if (t.recompute == Recompute::Selective)
        o << "mode = \"selective\"\nselective_ac_option = \"op\"\n";
    else
        o << "mode = \"" << (t.recompute == Recompute::Full ? "full" : "none") << "\"\n";
    o << gapNoteText(s, LaunchFramework::Torchtitan, GapPlace::Training);
    return o.str();
}

} // namespace parallax::core
