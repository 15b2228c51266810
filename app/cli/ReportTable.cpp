// SPDX-License-Identifier: Apache-2.0
#include "ReportTable.h"

#include "TextFormat.h"

#include "core/Units.h"
#include "core/memory/RangeText.h"
#include "core/model/ModelMath.h"
#include "core/report/ReportMarkdown.h"
#include "core/search/NumberText.h"

#include <algorithm>
#include <iomanip>
#include <string>
#include <utility>
#include <vector>

namespace parallax::cli {

using namespace parallax::core;

namespace {
// "NVIDIA H100 SXM5 80GB", or for a cluster of several GPU types each with its count, in the order the
// domains list them: "8 NVIDIA H200 SXM 141GB, 8 NVIDIA H100 SXM5 80GB".
std::string gpuTypesText(const core::Topology& t)
{
    std::vector<std::pair<std::string, long long>> types;
    for (const core::NvlinkDomain& d : t.domains) {
        const auto it = std::find_if(types.begin(), types.end(), [&](const auto& e) { return e.first == d.gpu.name; });
        if (it != types.end())
            it->second += d.gpuCount;
        else
            types.emplace_back(d.gpu.name, d.gpuCount);
    }
    if (types.size() <= 1)
        return types.empty() ? std::string() : types.front().first;
    std::string text;
    for (const auto& [name, count] : types)
        text += (text.empty() ? "" : ", ") + std::to_string(count) + " " + name;
    return text;
}

// The verdict as the table prints it: upper case when it needs the reader's attention.
std::string memoryVerdictText(MemoryVerdict v)
{
    switch (v) {
    case MemoryVerdict::Fits:
        return "fits";
    case MemoryVerdict::Tight:
        return "TIGHT (the range straddles HBM)";
    case MemoryVerdict::DoesNotFit:
    default:
        return "DOES NOT FIT";
    }
}

std::string gibBoundsText(double low, double high)
{
    return fixedText(low / kGiB, 1) + "-" + fixedText(high / kGiB, 1);
}

void printMessages(std::ostream& out, const char* title, const std::vector<Message>& list)
{
    if (list.empty())
        return;
    out << title << ":\n";
    for (const auto& m : list)
        out << "  - " << (m.field.empty() ? "" : m.field + ": ") << m.text << "\n";
}

std::string configLine(const Scenario& s)
{
    const ParallelConfig& p = s.parallel;
    std::string line = "TP=" + std::to_string(p.tp) + (p.sp && p.tp > 1 ? " (SP)" : "") + "  CP=" + std::to_string(p.cp)
        + "  PP=" + std::to_string(p.pp) + "  DP=" + std::to_string(p.dp);
    if (p.vpp > 1)
        line += "  VPP=" + std::to_string(p.vpp);
    if (p.ep > 1 || s.model.isMoe())
        line += "  EP=" + std::to_string(p.ep);
    line += "  ZeRO-" + std::to_string(p.zero) + "  " + toString(p.schedule);
    line += "  micro-batch " + std::to_string(s.training.microBatch) + ", global "
        + std::to_string(s.training.globalBatch) + ", recompute " + core::recomputeText(s.training) + ", "
        + toString(s.training.dtype);
    for (const std::string& knob : core::nonDefaultSwitches(p, s.training))
        line += ", " + knob;
    return line;
}
} // namespace

void printReport(std::ostream& out, const Scenario& s, const Report& r)
{
    out << s.name << "\n";
    out << "  model    " << s.model.name << ": " << billions(r.paramsTotal) << " parameters";
    if (s.model.isMoe())
        out << " (" << billions(r.paramsActive) << " active)";
    if (s.model.mtpLayers > 0)
        out << ", " << billions(mtpParameters(s.model)) << " of them in multi-token prediction";
    if (const double published = publishedParamsIfDifferent(s.model, r.paramsTotal); published > 0)
        out << " (published: " << billions(published) << ")";
    if (s.model.parallelBlock)
        out << ", parallel attention + MLP blocks";
    out << ", sequence " << r.seqLen << "\n";
    out << "  cluster  " << r.gpus << " GPUs in " << s.topology.domains.size() << " NVLink domain"
        << (s.topology.domains.size() == 1 ? "" : "s") << " (" << gpuTypesText(s.topology) << ")\n";
    out << "  config   " << configLine(s) << "\n\n";
    if (!r.valid) {
        printMessages(out, "Invalid configuration", r.errors);
        printMessages(out, "Notes", r.notes);
        return;
    }
    out << "Step time        " << stepTimeRangeText(r) << "  (pipeline " << duration(r.step.pipelineSeconds)
        << ", exposed DP sync " << duration(r.step.dpExposedSeconds) << ", optimizer "
        << duration(r.step.optimizerSeconds) << ")\n";
    out << "Throughput       " << std::fixed << std::setprecision(0) << r.tokensPerSecond << " tokens/s, "
        << std::setprecision(1) << r.tflopsPerGpu << " TFLOP/s per GPU\n";
    out << "MFU / HFU        " << percent(r.mfu) << " / " << percent(r.hfu) << "\n";
    out << "Pipeline bubble  " << percent(r.bubbleFraction) << " over " << r.microbatches << " micro-batches\n";
    out << "Memory           peak " << peakMemoryRangeText(r) << " on stage " << r.peakMemoryStage << " of "
        << gib(r.hbmBytes) << " HBM: " << memoryVerdictText(r.memoryVerdict) << "\n";
    out << "Ranges           measured error on published runs (step time: " << stepTimeRangeSourceText(r)
        << "; memory: all memory rows)\n\n";

    out << "  stage  layers   weights     grads  optimizer  activations     other      total        range  in-flight\n";
    for (const auto& st : r.stages) {
        out << "  " << padLeft(std::to_string(st.stage), 5) << "  " << padLeft(std::to_string(st.layers), 6) << "  "
            << padLeft(gib(st.weightsBytes), 8) << "  " << padLeft(gib(st.gradsBytes), 8) << "  "
            << padLeft(gib(st.optimizerBytes), 9) << "  " << padLeft(gib(st.activationsBytes), 11) << "  "
            << padLeft(gib(st.otherBytes), 8) << "  " << padLeft(gib(st.totalBytes()), 9) << "  "
            << padLeft(gibBoundsText(st.lowBytes, st.highBytes), 11) << "  " << std::setprecision(2)
            << padLeft(std::to_string(st.inflightMicrobatches).substr(0, 5), 9) << "\n";
    }
    if (!core::stagesShareOneHbm(r))
        out << "\n" << core::stageHbmText(r) << "\n";
    out << "\nCommunication per step on the busiest stage: TP " << duration(r.comm.tpSeconds) << ", CP "
        << duration(r.comm.cpSeconds) << ", EP " << duration(r.comm.epSeconds) << ", PP " << duration(r.comm.ppSeconds)
        << ", DP " << duration(r.comm.dpTotalSeconds) << " (" << duration(r.comm.dpSeconds) << " exposed)\n";
    out << "Groups leaving their NVLink domain: TP " << r.groupsCrossingDomains[static_cast<int>(Dim::Tp)] << ", CP "
        << r.groupsCrossingDomains[static_cast<int>(Dim::Cp)] << ", EP "
        << r.groupsCrossingDomains[static_cast<int>(Dim::Ep)] << ", DP "
        << r.groupsCrossingDomains[static_cast<int>(Dim::Dp)] << ", PP "
        << r.groupsCrossingDomains[static_cast<int>(Dim::Pp)] << "\n";
    if (!r.calibrated.empty()) {
        out << "Calibrated from a probe:";
        for (const auto& c : r.calibrated)
            out << " " << c << ";";
        out << "\n";
    }
    out << "\n";
    printMessages(out, "Warnings", r.warnings);
    printMessages(out, "Notes", r.notes);
}

} // namespace parallax::cli
