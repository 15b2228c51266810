// SPDX-License-Identifier: Apache-2.0
#include "core/report/ReportMarkdown.h"

#include "core/model/ModelMath.h"

#include "core/Units.h"
#include "core/inference/InferenceMarkdown.h"
#include "core/memory/RangeText.h"
#include "core/search/NumberText.h"

#include <cmath>
#include <cstdio>
#include <sstream>

namespace parallax::core {

namespace {
std::string format(const char* fmt, double v)
{
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, fmt, v);
    return buffer;
}

std::string fixed(double v, int decimals)
{
    char fmt[8];
    std::snprintf(fmt, sizeof fmt, "%%.%df", decimals < 0 ? 0 : (decimals > 6 ? 6 : decimals));
    return format(fmt, v);
}

// Markdown table cells and list items: no pipes or line breaks inside.
std::string cell(const std::string& s)
{
    std::string out;
    for (char c : s) {
        if (c == '|')
            out += "\\|";
        else if (c == '\n')
            out += ' ';
        else
            out += c;
    }
    return out;
}

void messages(std::ostream& out, const char* heading, const std::vector<Message>& list)
{
    if (list.empty())
        return;
    out << "## " << heading << "\n\n";
    for (const Message& m : list)
        out << "- " << (m.field.empty() ? "" : "`" + m.field + "`: ") << cell(m.text) << "\n";
    out << "\n";
}
} // namespace

std::string formatSeconds(double s)
{
    const double a = std::abs(s);
    if (a >= 1 || a == 0)
        return fixed(s, a >= 100 ? 0 : (a >= 10 ? 1 : 2)) + " s";
    if (a >= 1e-3)
        return fixed(s * 1e3, a >= 0.1 ? 0 : (a >= 0.01 ? 1 : 2)) + " ms";
    return fixed(s * 1e6, a >= 1e-4 ? 0 : (a >= 1e-5 ? 1 : 2)) + " µs";
}

std::string describeModel(const Scenario& s, const Report& r)
{
    std::string text = s.model.name.empty() ? s.model.id : s.model.name;
    const double params = r.paramsTotal > 0 ? r.paramsTotal : s.model.publishedParams;
    if (params > 0)
        text += ", " + fixed(params / 1e9, params >= 1e11 ? 0 : 1) + " B parameters";
    if (s.model.isMoe() && r.paramsActive > 0)
        text += " (" + fixed(r.paramsActive / 1e9, 1) + " B active)";
    if (s.model.mtpLayers > 0 && !r.inference)
        text += ", " + fixed(mtpParameters(s.model) / 1e9, 1) + " B of them in multi-token prediction";
    if (const double published = publishedParamsIfDifferent(s.model, r.paramsTotal); published > 0)
        text += " (published: " + fixed(published / 1e9, published >= 1e11 ? 0 : 1) + " B)";
    if (s.model.parallelBlock)
        text += ", parallel attention + MLP blocks";
    if (s.seqLen() > 0)
        text += ", sequence " + std::to_string(s.seqLen());
    return text;
}

std::string describeCluster(const Scenario& s)
{
    const Topology& t = s.topology;
    if (t.domains.empty())
        return "no GPUs";
    std::string text = std::to_string(t.gpuCount()) + " x ";
    // Runs of equal domains: "8 NVLink domains of 8 H100 SXM" or a list when they differ.
    std::vector<std::pair<int, const NvlinkDomain*>> runs;
    for (const NvlinkDomain& d : t.domains) {
        if (!runs.empty() && runs.back().second->gpuCount == d.gpuCount && runs.back().second->gpu.id == d.gpu.id
            && runs.back().second->gpu.name == d.gpu.name)
            ++runs.back().first;
        else
            runs.emplace_back(1, &d);
    }
    if (runs.size() == 1) {
        const NvlinkDomain& d = *runs.front().second;
        text += (d.gpu.name.empty() ? d.gpu.id : d.gpu.name) + ": " + std::to_string(runs.front().first)
            + " NVLink domain" + (runs.front().first == 1 ? "" : "s") + " of " + std::to_string(d.gpuCount);
    } else {
        text = std::to_string(t.gpuCount()) + " GPUs:";
        for (std::size_t i = 0; i < runs.size(); ++i) {
            const NvlinkDomain& d = *runs[i].second;
            text += (i ? ", " : " ") + std::to_string(runs[i].first) + " x " + std::to_string(d.gpuCount) + " "
                + (d.gpu.name.empty() ? d.gpu.id : d.gpu.name);
        }
    }
    if (!t.fabrics.empty() && t.domains.size() > 1)
        text += ", IB " + fixed(t.fabrics.front().nicGbps, 0) + " Gb/s per NIC";
    return text;
}

std::string describeConfiguration(const Scenario& s)
{
    const ParallelConfig& p = s.parallel;
    const char* dot = " · ";
    std::string text = "TP " + std::to_string(p.tp) + (p.sp && p.tp > 1 ? " (SP)" : "");
    if (p.cp > 1)
        text += dot + std::string("CP ") + std::to_string(p.cp);
    text += dot + std::string("PP ") + std::to_string(p.pp);
    if (p.vpp > 1)
        text += dot + std::string("VPP ") + std::to_string(p.vpp);
    text += dot + std::string("DP ") + std::to_string(p.dp);
    if (p.ep > 1 || s.model.isMoe())
        text += dot + std::string("EP ") + std::to_string(p.ep);
    text += dot + std::string("ZeRO-") + std::to_string(p.zero);
    if (p.pp > 1)
        text += dot + std::string(toString(p.schedule));
    text += dot + std::string("micro-batch ") + std::to_string(s.training.microBatch) + ", global batch "
        + std::to_string(s.training.globalBatch);
    text += dot
        + (s.training.recompute == Recompute::None ? std::string("no recompute")
                                                   : recomputeText(s.training) + " recompute");
    text += dot + std::string(toString(s.training.dtype));
    for (const std::string& knob : nonDefaultSwitches(p, s.training))
        text += dot + knob;
    return text;
}

bool stagesShareOneHbm(const Report& r)
{
    for (const StageMemory& st : r.stages) {
        if (st.hbmBytes != r.stages.front().hbmBytes)
            return false;
    }
    return true;
}

std::string stageHbmText(const Report& r)
{
    if (stagesShareOneHbm(r))
        return "HBM per GPU: " + gibText(r.stages.empty() ? r.hbmBytes : r.stages.front().hbmBytes, 0) + ".";
    std::string text = "HBM per GPU, by stage (the smallest of its GPUs):";
    for (const StageMemory& st : r.stages)
        text += " " + std::to_string(st.stage) + ": " + gibText(st.hbmBytes, 0) + (&st == &r.stages.back() ? "." : ",");
    return text;
}

std::string reportToMarkdown(const Scenario& s, const Report& r, const MarkdownOptions& o)
{
    std::ostringstream out;
    out << "# " << cell(o.title.empty() ? s.name : o.title) << "\n\n";
    out << "- **Model:** " << cell(describeModel(s, r)) << "\n";
    out << "- **Cluster:** " << cell(describeCluster(s)) << "\n";
    out << "- **Configuration:** "
        << cell(r.inference ? describeServingConfiguration(*r.inference) : describeConfiguration(s)) << "\n\n";

    if (!r.valid) {
        out << "**This configuration cannot run as given.**\n\n";
    } else if (r.inference) {
        out << inferenceToMarkdown(*r.inference);
    } else {
        out << "| Step time | Tokens/s | TFLOP/s per GPU | MFU | HFU | Pipeline bubble | Peak memory | Memory |\n";
        out << "|---:|---:|---:|---:|---:|---:|---:|:---:|\n";
        const char* verdict = toString(r.memoryVerdict);
        out << "| " << stepTimeRangeText(r) << " | " << fixed(r.tokensPerSecond, 0) << " | " << fixed(r.tflopsPerGpu, 1)
            << " | " << percentText(r.mfu) << " | " << percentText(r.hfu) << " | " << percentText(r.bubbleFraction)
            << " | " << peakMemoryRangeText(r) << " of " << gibText(r.hbmBytes, 0) << " (stage " << r.peakMemoryStage
            << ") | "
            << (r.memoryVerdict == MemoryVerdict::Fits ? std::string(verdict) : "**" + std::string(verdict) + "**")
            << " |\n\n";
        out << "Ranges: the measured error of the engine on published runs (step time: "
            << cell(stepTimeRangeSourceText(r)) << "; memory: all memory rows); docs/validation.md.\n\n";
        out << "Step time = pipeline " << formatSeconds(r.step.pipelineSeconds) << " (of which bubble "
            << formatSeconds(r.step.bubbleSeconds) << ") + exposed data-parallel sync "
            << formatSeconds(r.step.dpExposedSeconds) << " + optimizer " << formatSeconds(r.step.optimizerSeconds)
            << "; " << r.microbatches << " micro-batches per pipeline.\n\n";
    }
    messages(out, "Errors", r.errors);
    messages(out, "Warnings", r.warnings);

    if (!o.reasons.empty()) {
        out << "## " << cell(o.reasonsHeading.empty() ? std::string("Why") : o.reasonsHeading) << "\n\n";
        for (const std::string& reason : o.reasons)
            out << "- " << cell(reason) << "\n";
        out << "\n";
    }

    if (r.valid && !r.stages.empty()) {
        out << "## Memory per GPU, by pipeline stage\n\n";
        out << "| Stage | Layers | Weights | Grads | Optimizer | Activations | Other | Total | Range | In flight |\n";
        out << "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
        for (const StageMemory& st : r.stages) {
            const bool over = st.hbmBytes > 0 && st.totalBytes() > st.hbmBytes;
            out << "| " << st.stage << " | " << st.layers << " | " << gibText(st.weightsBytes) << " | "
                << gibText(st.gradsBytes) << " | " << gibText(st.optimizerBytes) << " | "
                << gibText(st.activationsBytes) << " | " << gibText(st.otherBytes) << " | " << (over ? "**" : "")
                << gibText(st.totalBytes()) << (over ? "**" : "") << " | " << fixed(st.lowBytes / kGiB, 1) << "-"
                << fixed(st.highBytes / kGiB, 1) << " | " << fixed(st.inflightMicrobatches, 1) << " |\n";
        }
        out << "\n" << stageHbmText(r) << "\n\n";
    }

    const bool pictures
        = !o.ganttPicture.empty() || !o.rankMapPicture.empty() || !o.memoryPicture.empty() || !o.tracePath.empty();
    if (pictures) {
        out << "## Pictures\n\n";
        if (!o.ganttPicture.empty())
            out << "### Pipeline schedule\n\n![Pipeline schedule](" << o.ganttPicture << ")\n\n";
        if (!o.memoryPicture.empty()) {
            const char* heading = r.inference ? "Memory of the fullest GPU" : "Memory per stage";
            out << "### " << heading << "\n\n![" << heading << "](" << o.memoryPicture << ")\n\n";
        }
        if (!o.rankMapPicture.empty())
            out << "### Rank map\n\n![Rank map](" << o.rankMapPicture << ")\n\n";
        if (!o.tracePath.empty())
            out << "Timeline as a Chrome trace (open in https://ui.perfetto.dev): [" << o.tracePath << "]("
                << o.tracePath << ")\n\n";
    }
    messages(out, "Notes", r.notes);
    out << "_Generated by Parallax " << PARALLAX_VERSION << "._\n";
    return out.str();
}

} // namespace parallax::core
