// SPDX-License-Identifier: Apache-2.0
#include "core/search/SearchJson.h"

#include "core/report/ReportJson.h"

namespace parallax::core {

using nlohmann::json;

json searchPointToJson(const SearchPoint& p)
{
    const Scenario s = applyPoint(Scenario {}, p);
    return parallelConfigToJson(s.parallel, s.training);
}

namespace {
json reasonsToJson(const std::vector<Reason>& reasons)
{
    json out = json::array();
    for (const Reason& r : reasons)
        out.push_back(r.text);
    return out;
}

json reasonKindsToJson(const std::vector<Reason>& reasons)
{
    json out = json::array();
    for (const Reason& r : reasons)
        out.push_back(toString(r.kind));
    return out;
}
} // namespace

json searchResultToJson(const Scenario& base, const SearchResult& r)
{
    json j;
    j["scenario"] = base.name;
    j["model"] = base.model.id.empty() ? base.model.name : base.model.id;
    j["gpus"] = base.topology.gpuCount();
    j["global_batch"] = base.training.globalBatch;
    j["seq_len"] = base.seqLen();
    j["dtype"] = toString(base.training.dtype);
    j["hbm_bytes"] = r.hbmBytes;
    if (!r.error.empty())
        j["error"] = r.error;
    j["search"] = json { { "layouts", r.stats.layouts }, { "enumerated", r.stats.enumerated },
        { "pruned_by_memory_bound", r.stats.prunedByMemoryBound }, { "scored", r.stats.scored },
        { "fitting", r.stats.fitting }, { "simulated", r.stats.simulated }, { "cancelled", r.cancelled } };
    json candidates = json::array();
    for (const Candidate& c : r.candidates) {
        candidates.push_back({ { "config", searchPointToJson(c.point) }, { "step_time_s", c.report.stepTimeSeconds },
            { "mfu", c.report.mfu }, { "peak_memory_bytes", c.report.peakMemoryBytes }, { "fits", c.report.fits },
            { "memory_verdict", toString(c.report.memoryVerdict) }, { "bubble_fraction", c.report.bubbleFraction },
            { "reasons", reasonsToJson(c.reasons) }, { "reason_kinds", reasonKindsToJson(c.reasons) } });
    }
    j["candidates"] = candidates;
    json rejected = json::array();
    for (const RejectedFamily& f : r.rejected) {
        rejected.push_back({ { "family", f.family }, { "config", searchPointToJson(f.point) },
            { "reason", f.reason.text }, { "reason_kind", toString(f.reason.kind) }, { "fits", f.fits },
            { "step_time_s", f.stepTimeSeconds }, { "peak_memory_bytes", f.peakMemoryBytes } });
    }
    j["rejected"] = rejected;
    if (r.baseline) {
        j["baseline"] = { { "config", searchPointToJson(pointOf(base)) },
            { "step_time_s", r.baseline->stepTimeSeconds }, { "mfu", r.baseline->mfu },
            { "peak_memory_bytes", r.baseline->peakMemoryBytes }, { "fits", r.baseline->fits } };
        if (r.baselineReason)
            j["baseline"]["reason"] = r.baselineReason->text;
    }
    return j;
}

json decisionMatrixToJson(const DecisionMatrix& m)
{
    const DecisionMatrixSettings& st = m.settings;
    json j;
    j["gpu"] = st.gpu;
    j["gpu_name"] = m.gpuName;
    j["hbm_bytes"] = m.hbmBytes;
    j["gpus_per_node"] = st.gpusPerNode;
    j["nic_gbps"] = st.nicGbps;
    j["global_batch"] = st.globalBatch;
    j["seq_len"] = st.seqLen;
    j["tokens_per_step"] = static_cast<double>(st.globalBatch) * st.seqLen;
    j["dtype"] = toString(st.dtype);
    json cells = json::array();
    for (const DecisionMatrixCell& c : m.cells) {
        json cell { { "model", c.model }, { "model_name", c.modelName }, { "gpus", c.gpus }, { "why", c.why } };
        if (c.recommended && c.report) {
            cell["recommended"] = searchPointToJson(*c.recommended);
            cell["step_time_s"] = c.report->stepTimeSeconds;
            cell["mfu"] = c.report->mfu;
            cell["peak_memory_bytes"] = c.report->peakMemoryBytes;
            cell["fix"] = nullptr;
        } else {
            cell["recommended"] = nullptr;
            cell["step_time_s"] = nullptr;
            cell["mfu"] = nullptr;
            cell["peak_memory_bytes"] = nullptr;
            cell["fix"] = c.fix.text;
            json changes = json::array();
            for (const FitChange& f : c.fix.changes) {
                json change { { "kind", f.kind }, { "description", f.description }, { "gpus", f.gpus },
                    { "seq_len", f.seqLen }, { "peak_memory_bytes", f.peakMemoryBytes } };
                change["config"] = f.point ? searchPointToJson(*f.point) : json(nullptr);
                change["step_time_s"] = f.stepTimeSeconds > 0 ? json(f.stepTimeSeconds) : json(nullptr);
                changes.push_back(change);
            }
            cell["fixes"] = changes;
            if (c.leanest) {
                cell["leanest"]
                    = { { "config", searchPointToJson(*c.leanest) }, { "peak_memory_bytes", c.leanestPeakBytes } };
            }
        }
        cells.push_back(cell);
    }
    j["cells"] = cells;
    return j;
}

} // namespace parallax::core
