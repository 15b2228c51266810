// SPDX-License-Identifier: Apache-2.0
#include "core/report/ReportJson.h"

#include "core/inference/InferenceJson.h"
#include "core/io/ScenarioIo.h"
#include "core/schedule/PipelineSchedule.h"

namespace parallax::core {

using nlohmann::json;

namespace {
json messages(const std::vector<Message>& list)
{
    json out = json::array();
    for (const auto& m : list)
        out.push_back(m.field.empty() ? m.text : m.field + ": " + m.text);
    return out;
}
// The figures SCENARIO.md lists for every evaluate --json object, as null: a configuration that cannot
// run has none, and a script reading them gets null rather than a missing key.
void addUnmeasuredFields(json& j)
{
    for (const char* key : { "step_time_s", "step_time_range_s", "tflops_per_gpu", "mfu", "hfu", "tokens_per_s",
             "bubble_fraction", "memory_verdict", "peak_memory_range_bytes" })
        j[key] = nullptr;
    j["memory"] = { { "hbm_bytes", nullptr }, { "peak_bytes", nullptr }, { "stages", json::array() } };
    j["comm"]
        = { { "tp_s", nullptr }, { "pp_s", nullptr }, { "dp_s", nullptr }, { "ep_s", nullptr }, { "cp_s", nullptr } };
    if (!j.contains("rank_map"))
        j["rank_map"] = { { "groups_crossing_domains", nullptr } };
}
} // namespace

json invalidReportJson(const std::string& error)
{
    json j { { "valid", false }, { "fits", false }, { "errors", json::array({ error }) }, { "warnings", json::array() },
        { "notes", json::array() }, { "params_total", nullptr }, { "params_active", nullptr } };
    addUnmeasuredFields(j);
    return j;
}

json parallelConfigToJson(const ParallelConfig& p, const TrainingConfig& t)
{
    json j { { "tp", p.tp }, { "sp", p.sp }, { "cp", p.cp }, { "pp", p.pp }, { "vpp", p.vpp }, { "dp", p.dp },
        { "ep", p.ep }, { "etp", p.etp }, { "zero", p.zero }, { "schedule", toString(p.schedule) },
        { "micro_batch", t.microBatch }, { "recompute", toString(t.recompute) } };
    if (t.recompute == Recompute::Selective && t.recomputeModules != recompute_module::kDefault)
        j["recompute_modules"] = recomputeModuleNames(t.recomputeModules);
    if (!(t.optimizer == OptimizerPrecision {}))
        j["optimizer"] = optimizerPrecisionToJson(t.optimizer);
    // Present only where the context-parallel ranks do not run the ring (SCENARIO.md's config is unchanged for it).
    if (p.cp > 1 && p.cpCommType != CpCommType::P2p) {
        j["cp_comm_type"] = toString(p.cpCommType);
        if (p.cpCommType == CpCommType::A2aP2p)
            j["cp_a2a_size"] = p.cpA2aSize;
    }
    // Present only for an uneven split, so that even configurations read as before.
    if (p.firstStageLayers > 0)
        j["first_stage_layers"] = p.firstStageLayers;
    if (p.lastStageLayers > 0)
        j["last_stage_layers"] = p.lastStageLayers;
    if (p.accountForEmbedding)
        j["account_for_embedding"] = true;
    if (p.accountForLoss)
        j["account_for_loss"] = true;
    if (!p.pipelineLayout.empty())
        j["pipeline_layout"] = p.pipelineLayout;
    // Present only where DeepEP dispatches (a search dimension for MoE layouts with ep > 1).
    if (p.ep > 1 && t.moeTokenDispatcher == MoeDispatcher::DeepEp)
        j["moe_token_dispatcher"] = toString(t.moeTokenDispatcher);
    return j;
}

json timelineToJson(const SimulationResult& s)
{
    json ops = json::array();
    for (const TimedOp& op : s.ops) {
        json o { { "stage", op.rank }, { "kind", toString(op.kind) }, { "microbatch", op.microbatch },
            { "chunk", op.chunk }, { "direction", op.direction }, { "start", op.start }, { "end", op.end } };
        if (op.commSeconds > 0)
            o["comm_s"] = op.commSeconds; // exposed communication inside the op
        if (op.kind == OpKind::ForwardBackward) {
            o["microbatch2"] = op.microbatch2;
            o["chunk2"] = op.chunk2;
        }
        ops.push_back(o);
    }
    return json { { "makespan", s.makespan }, { "bubble_fraction", s.bubbleFraction },
        { "bubble_fraction_per_stage", s.bubbleFractionPerRank }, { "peak_inflight", s.peakInflightChunks },
        { "peak_inflight_weight", s.peakInflightWeight }, { "parameter_copies", s.parameterCopies }, { "ops", ops } };
}

json reportToJson(const Scenario& scenario, const Report& r)
{
    json j;
    j["scenario"] = scenario.name;
    j["valid"] = r.valid;
    j["fits"] = r.valid && r.fits;
    j["errors"] = messages(r.errors);
    j["warnings"] = messages(r.warnings);
    j["notes"] = messages(r.notes);
    j["params_total"] = r.paramsTotal;
    j["params_active"] = r.paramsActive;
    j["gpus"] = r.gpus;
    j["seq_len"] = r.seqLen;
    j["microbatches"] = r.microbatches;
    j["config"] = parallelConfigToJson(scenario.parallel, scenario.training);
    if (!r.valid) {
        addUnmeasuredFields(j);
        return j;
    }
    j["step_time_s"] = r.stepTimeSeconds;
    j["step_time_range_s"] = { r.stepTimeLowSeconds, r.stepTimeHighSeconds };
    j["step_time_family"] = r.stepTimeFamily;
    if (r.stepTimeFamilyMostGpus > 0)
        j["step_time_family_gpus"] = { r.stepTimeFamilyFewestGpus, r.stepTimeFamilyMostGpus };
    j["memory_verdict"] = toString(r.memoryVerdict);
    j["peak_memory_range_bytes"] = { r.peakMemoryLowBytes, r.peakMemoryHighBytes };
    j["tflops_per_gpu"] = r.tflopsPerGpu;
    j["mfu"] = r.mfu;
    j["hfu"] = r.hfu;
    j["tokens_per_s"] = r.tokensPerSecond;
    j["bubble_fraction"] = r.bubbleFraction;
    j["model_flops_per_step"] = r.modelFlopsPerStep;
    j["hardware_flops_per_step"] = r.hardwareFlopsPerStep;
    j["peak_flops_per_gpu"] = r.peakFlopsPerSecond;
    json stages = json::array();
    for (const auto& s : r.stages) {
        stages.push_back({ { "stage", s.stage }, { "layers", s.layers }, { "weights_bytes", s.weightsBytes },
            { "grads_bytes", s.gradsBytes }, { "optimizer_bytes", s.optimizerBytes },
            { "activations_bytes", s.activationsBytes }, { "other_bytes", s.otherBytes },
            { "total_bytes", s.totalBytes() }, { "range_bytes", { s.lowBytes, s.highBytes } },
            { "inflight_microbatches", s.inflightMicrobatches }, { "hbm_bytes", s.hbmBytes } });
    }
    j["memory"] = { { "hbm_bytes", r.hbmBytes }, { "peak_bytes", r.peakMemoryBytes },
        { "peak_stage", r.peakMemoryStage }, { "stages", stages } };
    j["comm"] = { { "tp_s", r.comm.tpSeconds }, { "pp_s", r.comm.ppSeconds }, { "dp_s", r.comm.dpSeconds },
        { "dp_total_s", r.comm.dpTotalSeconds }, { "ep_s", r.comm.epSeconds }, { "cp_s", r.comm.cpSeconds } };
    j["step"] = { { "pipeline_s", r.step.pipelineSeconds }, { "bubble_s", r.step.bubbleSeconds },
        { "compute_s", r.step.computeSeconds }, { "dp_exposed_s", r.step.dpExposedSeconds },
        { "optimizer_s", r.step.optimizerSeconds } };
    json crossing;
    for (Dim d : { Dim::Tp, Dim::Cp, Dim::Ep, Dim::Dp, Dim::Pp })
        crossing[toString(d)] = r.groupsCrossingDomains[static_cast<int>(d)];
    j["rank_map"] = { { "world_size", r.rankMap.worldSize() }, { "groups_crossing_domains", crossing } };
    // Only where the topology has more than one fabric or some group changes rail, so that flat
    // clusters read as before.
    int fabricOrRail = 0;
    json crossingFabrics, crossingRails;
    for (Dim d : { Dim::Tp, Dim::Cp, Dim::Ep, Dim::Dp, Dim::Pp }) {
        crossingFabrics[toString(d)] = r.groupsCrossingFabrics[static_cast<int>(d)];
        crossingRails[toString(d)] = r.groupsCrossingRails[static_cast<int>(d)];
        fabricOrRail += r.groupsCrossingFabrics[static_cast<int>(d)] + r.groupsCrossingRails[static_cast<int>(d)];
    }
    if (fabricOrRail > 0 || scenario.topology.fabrics.size() > 1) {
        j["rank_map"]["groups_crossing_fabrics"] = crossingFabrics;
        j["rank_map"]["groups_crossing_rails"] = crossingRails;
    }
    j["calibrated"] = r.calibrated;
    if (r.inference) {
        j["mode"] = "inference";
        j["inference"] = inferenceReportToJson(*r.inference);
    }
    return j;
}

} // namespace parallax::core
