// SPDX-License-Identifier: Apache-2.0
#include "core/search/DecisionMatrix.h"

#include "core/Engine.h"
#include "core/Limits.h"
#include "core/Units.h"
#include "core/io/PresetLibrary.h"
#include "core/search/NumberText.h"

#include <algorithm>

namespace parallax::core {

namespace {
SearchResult quickSearch(const Scenario& s, const Calibration* calibration, const std::atomic<bool>* cancel)
{
    SearchOptions o;
    o.calibration = calibration;
    o.cancel = cancel;
    o.topK = 1;
    o.explain = false;
    return searchConfigurations(s, o);
}

std::string outcome(const Candidate& c)
{
    return describe(c.point) + ", " + secondsText(c.report.stepTimeSeconds) + " per step, MFU "
        + percentText(c.report.mfu) + ", peak " + gibText(c.report.peakMemoryBytes);
}

FitChange changeFrom(const std::string& kind, const std::string& what, const Scenario& s, const Candidate& c)
{
    FitChange f;
    f.kind = kind;
    f.description = what + ": " + outcome(c);
    f.gpus = s.topology.gpuCount();
    f.seqLen = s.seqLen();
    f.point = c.point;
    f.stepTimeSeconds = c.report.stepTimeSeconds;
    f.peakMemoryBytes = c.report.peakMemoryBytes;
    return f;
}

// The same kind of GPUs in `factor` times as many NVLink domains of the first domain's size.
Scenario scaledOut(const Scenario& base, int factor)
{
    Scenario s = base;
    const NvlinkDomain& d = base.topology.domains.front();
    const double nic = base.topology.fabrics.empty() ? d.gpu.nicGbps : base.topology.fabrics.front().nicGbps;
    const int nics = base.topology.fabrics.empty() ? 0 : base.topology.fabrics.front().nicsPerDomain;
    const int domains = static_cast<int>(base.topology.domains.size()) * factor;
    s.topology = Topology::regular(d.gpu, domains, d.gpuCount, nic, nics);
    s.regularCluster = true;
    s.nodes = domains;
    s.gpusPerNode = d.gpuCount;
    return s;
}
} // namespace

FitFix fixForNothingFits(
    const Scenario& base, const SearchResult& result, const Calibration* calibration, const std::atomic<bool>* cancel)
{
    FitFix fix;
    if (!result.candidates.empty() || !result.error.empty())
        return fix;
    // A shorter sequence at the same tokens per step: activations shrink, the states do not.
    for (int div : { 2, 4 }) {
        Scenario s = base;
        s.training.seqLen = base.seqLen() / div;
        s.training.globalBatch = base.training.globalBatch * div;
        if (s.training.seqLen < 512)
            break;
        const SearchResult r = quickSearch(s, calibration, cancel);
        if (!r.candidates.empty()) {
            fix.changes.push_back(changeFrom("shorter-sequence",
                "seq_len " + std::to_string(s.training.seqLen) + " (" + std::to_string(s.training.globalBatch)
                    + " sequences, the same tokens per step)",
                s, r.candidates.front()));
            break;
        }
    }
    const GpuSpec& gpu = base.topology.domains.front().gpu;
    if (base.training.dtype != DType::Fp8 && gpu.fp8FlopsPerSecond > 0) {
        Scenario s = base;
        s.training.dtype = DType::Fp8;
        const SearchResult r = quickSearch(s, calibration, cancel);
        if (!r.candidates.empty())
            fix.changes.push_back(changeFrom("fp8", "fp8", s, r.candidates.front()));
    }
    {
        SearchOptions o;
        o.calibration = calibration;
        o.topK = 1;
        o.explain = false;
        o.optimizerOffload = true;
        o.cancel = cancel;
        const SearchResult r = searchConfigurations(base, o);
        if (!r.candidates.empty()) {
            const Candidate& c = r.candidates.front();
            double onGpu = 0, optimizer = 0;
            for (const StageMemory& st : c.report.stages) {
                onGpu = std::max(onGpu, st.totalBytes() - st.optimizerBytes);
                optimizer = std::max(optimizer, st.optimizerBytes);
            }
            FitChange f;
            f.kind = "cpu-offload";
            const int perNode = base.topology.domains.front().gpuCount;
            f.description = "the optimizer states in CPU memory (ZeRO-Offload, arXiv:2101.06840): " + describe(c.point)
                + " then holds " + gibText(onGpu) + " per GPU and " + gibText(optimizer * perNode, 0)
                + " of optimizer states per node in host memory; " + secondsText(c.report.stepTimeSeconds)
                + " per step before the offload's PCIe traffic, which the engine does not model";
            f.gpus = base.topology.gpuCount();
            f.seqLen = base.seqLen();
            f.point = c.point;
            f.peakMemoryBytes = onGpu;
            fix.changes.push_back(f);
        }
    }
    int tried = base.topology.gpuCount();
    for (int factor = 2; factor <= 64 && static_cast<long long>(base.topology.gpuCount()) * factor <= kMaxGpus;
         factor *= 2) {
        const Scenario s = scaledOut(base, factor);
        tried = s.topology.gpuCount();
        const SearchResult r = quickSearch(s, calibration, cancel);
        if (!r.candidates.empty()) {
            fix.changes.push_back(changeFrom("more-gpus",
                std::to_string(s.topology.gpuCount()) + " GPUs (" + std::to_string(s.topology.domains.size())
                    + " nodes)",
                s, r.candidates.front()));
            break;
        }
    }
    if (cancel && cancel->load())
        return {}; // a cancelled search found nothing because it stopped, not because nothing fits
    if (fix.changes.empty()) {
        fix.text = "nothing tried fits: seq_len down to " + std::to_string(base.seqLen() / 4)
            + ", fp8, CPU offload, up to " + std::to_string(tried) + " GPUs";
        return fix;
    }
    fix.text = "fits with " + fix.changes.front().description;
    for (std::size_t i = 1; i < fix.changes.size(); ++i)
        fix.text += "; or " + fix.changes[i].description;
    return fix;
}

std::optional<MatrixSettingsProblem> checkDecisionMatrixSettings(const DecisionMatrixSettings& s)
{
    const auto& presets = PresetLibrary::instance();
    if (s.models.empty() || s.models.size() > kMaxMatrixModels)
        return MatrixSettingsProblem { "models",
            "give one to " + std::to_string(kMaxMatrixModels) + " model presets (" + std::to_string(s.models.size())
                + " given)" };
    for (const std::string& id : s.models)
        if (!presets.findModel(id))
            return MatrixSettingsProblem { "models",
                "no model preset \"" + id + "\"; use one of " + presets.modelIds() };
    const auto gpu = presets.gpu(s.gpu);
    if (!gpu) {
        std::string ids;
        for (const GpuSpec& g : presets.gpus())
            ids += (ids.empty() ? "" : ", ") + g.id;
        return MatrixSettingsProblem { "gpu", "no GPU preset \"" + s.gpu + "\"; use one of " + ids };
    }
    // Every configuration would be rejected (Validation.cpp's training.dtype check), each cell "nothing fits".
    if (s.dtype == DType::Fp8 && gpu->fp8FlopsPerSecond <= 0)
        return MatrixSettingsProblem { "dtype", gpu->name + " has no fp8 tensor cores: use bf16" };
    if (s.gpusPerNode < 1 || s.gpusPerNode > 1024)
        return MatrixSettingsProblem { "gpus-per-node",
            std::to_string(s.gpusPerNode) + " GPUs per NVLink domain: give 1 to 1024 (8 on HGX, 72 on NVL72)" };
    if (s.gpuCounts.empty() || s.gpuCounts.size() > kMaxMatrixGpuCounts)
        return MatrixSettingsProblem { "gpu-counts",
            "give one to " + std::to_string(kMaxMatrixGpuCounts) + " GPU counts (" + std::to_string(s.gpuCounts.size())
                + " given)" };
    for (int n : s.gpuCounts)
        if (n < 1 || n > kMaxGpus || n % s.gpusPerNode != 0)
            return MatrixSettingsProblem { "gpu-counts",
                std::to_string(n) + " is not a whole number of " + std::to_string(s.gpusPerNode) + "-GPU nodes up to "
                    + std::to_string(kMaxGpus) + " (the GPUs per node set the node)" };
    return std::nullopt;
}

std::optional<std::vector<int>> parseGpuCounts(const std::string& text, std::string& bad)
{
    std::vector<int> counts;
    std::size_t at = 0;
    while (at <= text.size()) {
        const std::size_t comma = std::min(text.find(',', at), text.size());
        std::string item = text.substr(at, comma - at);
        item.erase(0, item.find_first_not_of(" \t"));
        item.erase(item.find_last_not_of(" \t") + 1);
        at = comma + 1;
        if (item.empty())
            continue;
        const bool digits = item.size() <= 9 && item.find_first_not_of("0123456789") == std::string::npos;
        if (!digits || std::stoi(item) < 1) {
            bad = item;
            return std::nullopt;
        }
        counts.push_back(std::stoi(item));
    }
    return counts;
}

const DecisionMatrixCell* matrixCell(const DecisionMatrix& m, std::size_t model, std::size_t column)
{
    const std::size_t columns = m.settings.gpuCounts.size();
    const std::size_t index = model * columns + column;
    return model < m.settings.models.size() && column < columns && index < m.cells.size() ? &m.cells[index] : nullptr;
}

std::string matrixRowName(const DecisionMatrix& m, std::size_t model)
{
    const std::string& id = m.settings.models.at(model);
    const ModelSpec* spec = PresetLibrary::instance().findModel(id);
    return spec ? spec->name : id;
}

Scenario decisionMatrixScenario(const DecisionMatrixSettings& settings, const std::string& model, int gpus)
{
    Scenario s;
    const auto& lib = PresetLibrary::instance();
    s.modelPreset = model;
    if (auto m = lib.model(model))
        s.model = *m;
    const GpuSpec gpu = lib.gpu(settings.gpu).value_or(GpuSpec {});
    s.gpuPreset = settings.gpu;
    s.nodes = std::max(1, gpus / settings.gpusPerNode);
    s.gpusPerNode = settings.gpusPerNode;
    s.topology = Topology::regular(gpu, s.nodes, s.gpusPerNode, settings.nicGbps, s.gpusPerNode);
    s.name = s.model.name + " on " + std::to_string(gpus) + " " + gpu.name;
    s.parallel.dp = gpus;
    s.training.globalBatch = settings.globalBatch;
    s.training.seqLen = settings.seqLen;
    s.training.dtype = settings.dtype;
    return s;
}

DecisionMatrix buildDecisionMatrix(const DecisionMatrixSettings& settings, const Calibration* calibration,
    const std::function<void(int, int)>& progress, const std::atomic<bool>* cancel)
{
    DecisionMatrix matrix;
    matrix.settings = settings;
    const GpuSpec gpu = PresetLibrary::instance().gpu(settings.gpu).value_or(GpuSpec {});
    matrix.gpuName = gpu.name;
    matrix.hbmBytes = gpu.hbmBytes;
    const int total = static_cast<int>(settings.models.size() * settings.gpuCounts.size());
    for (const std::string& model : settings.models) {
        for (int gpus : settings.gpuCounts) {
            if (cancel && cancel->load())
                return matrix;
            const Scenario s = decisionMatrixScenario(settings, model, gpus);
            DecisionMatrixCell cell;
            cell.model = model;
            cell.modelName = s.model.name;
            cell.gpus = gpus;
            SearchOptions o;
            o.calibration = calibration;
            o.topK = 1;
            o.cancel = cancel;
            const SearchResult r = searchConfigurations(s, o);
            if (!r.candidates.empty()) {
                const Candidate& w = r.candidates.front();
                cell.recommended = w.point;
                cell.report = w.report;
                for (std::size_t i = 1; i < w.reasons.size() && i <= 3; ++i)
                    cell.why += (cell.why.empty() ? "" : "; ") + w.reasons[i].brief;
            } else {
                cell.leanest = r.leanest;
                cell.leanestPeakBytes = r.leanestPeakBytes;
                if (r.leanest && r.leanestReport) {
                    const Report& lr = *r.leanestReport;
                    const StageMemory& st = lr.stages[lr.peakMemoryStage];
                    cell.leanestPeakBytes = lr.peakMemoryBytes;
                    cell.why = "nothing fits: the leanest of " + std::to_string(r.stats.enumerated)
                        + " configurations (" + describe(*r.leanest) + ") needs " + gibText(lr.peakMemoryBytes)
                        + " on stage " + std::to_string(st.stage) + " > " + gibText(lr.hbmBytes, 0)
                        + "; weights + grads + optimizer alone are "
                        + gibText(st.weightsBytes + st.gradsBytes + st.optimizerBytes);
                } else {
                    cell.why = "nothing fits";
                }
                cell.fix = fixForNothingFits(s, r, calibration, cancel);
            }
            // A cell searched in part is no answer (its best so far, or "nothing fits" that is only "not yet"):
            // a cancelled fill keeps the cells it finished.
            if (r.cancelled || (cancel && cancel->load()))
                return matrix;
            matrix.cells.push_back(std::move(cell));
            if (progress)
                progress(static_cast<int>(matrix.cells.size()), total);
        }
    }
    return matrix;
}

} // namespace parallax::core
