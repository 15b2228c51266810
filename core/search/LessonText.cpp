// SPDX-License-Identifier: Apache-2.0
#include "core/search/LessonText.h"

#include "core/Engine.h"
#include "core/Units.h"
#include "core/inference/InferenceLessonValues.h"
#include "core/model/ModelMath.h"
#include "core/parallel/ParameterShard.h"
#include "core/parallel/StageLayout.h"
#include "core/schedule/PipelineSchedule.h"
#include "core/search/ConfigSearch.h"
#include "core/search/DecisionMatrix.h"
#include "core/search/NumberText.h"

#include <functional>
#include <map>
#include <optional>
#include <regex>
#include <sstream>

namespace parallax::core {

namespace {
struct Context {
    const Scenario& scenario;
    const Report& report;
    const SearchResult* search;
    const Calibration* calibration;
};

// Parameters pipeline rank `rank` holds before ZeRO sharding (core/memory/MemoryModel.cpp rankParameters).
ParameterShard rankParameters(const Scenario& s, int rank)
{
    const ParallelConfig& p = s.parallel;
    ScheduleShape shape { p.schedule, p.pp, 1, p.vpp };
    if (p.pp == 1) {
        shape.kind = ScheduleKind::OneFOneB;
        shape.virtualStages = 1;
    }
    const StageLayout layout = StageLayout::of(s.model.layers, shape, p);
    ParameterShard total;
    for (int c = 0; c < chunksPerRank(shape); ++c) {
        const int stage = modelStageOf(shape, rank, c);
        total += stageParameters(s.model, p, layout.firstLayer(stage), layout.endLayer(stage),
            layout.holds(stage, s.model.mtpLayers, rankHoldsStage(shape, rank, 0)));
    }
    return total;
}

std::optional<double> stageField(const StageMemory& st, const std::string& field)
{
    if (field == "weights")
        return st.weightsBytes;
    if (field == "grads")
        return st.gradsBytes;
    if (field == "optimizer")
        return st.optimizerBytes;
    if (field == "activations")
        return st.activationsBytes;
    if (field == "other")
        return st.otherBytes;
    if (field == "states")
        return st.weightsBytes + st.gradsBytes + st.optimizerBytes;
    if (field == "weights_grads")
        return st.weightsBytes + st.gradsBytes;
    if (field == "total")
        return st.totalBytes();
    return std::nullopt;
}

std::string gib(double bytes)
{
    return fixedText(bytes / kGiB, 1);
}

// Values of one report (the scenario's or a variant's).
std::optional<std::string> reportValue(const std::string& name, const Scenario& s, const Report& r)
{
    static const std::map<std::string, std::function<std::string(const Scenario&, const Report&)>> kValues {
        { "step_time_s", [](auto&, auto& r) { return fixedText(r.stepTimeSeconds, 2); } },
        { "mfu_pct", [](auto&, auto& r) { return fixedText(100 * r.mfu, 1); } },
        { "hfu_pct", [](auto&, auto& r) { return fixedText(100 * r.hfu, 1); } },
        { "tflops_per_gpu", [](auto&, auto& r) { return fixedText(r.tflopsPerGpu, 0); } },
        { "hw_tflops_per_gpu", [](auto&, auto& r) { return fixedText(r.hfu * r.peakFlopsPerSecond / kTera, 0); } },
        { "tokens_per_s", [](auto&, auto& r) { return fixedText(r.tokensPerSecond, 0); } },
        { "tokens_per_gpu_s", [](auto&, auto& r) { return fixedText(r.tokensPerSecond / r.gpus, 0); } },
        { "gpu_khours_per_trillion_tokens",
            [](auto&, auto& r) { return fixedText(r.gpus * 1e12 / r.tokensPerSecond / 3600 / 1e3, 0); } },
        { "bubble_pct", [](auto&, auto& r) { return fixedText(100 * r.bubbleFraction, 1); } },
        // (p-1)/(v m + p-1): GPipe, 1F1B (v=1) and interleaved 1F1B with equal stages and free p2p
        // (arXiv:2104.04473 sec. 2.2.1-2.2.2); other schedules have no fraction of this form.
        { "closed_form_bubble_pct",
            [](auto& s, auto& r) {
                const ParallelConfig& p = s.parallel;
                const ScheduleKind k = p.pp == 1 ? ScheduleKind::OneFOneB : p.schedule;
                if (k != ScheduleKind::GPipe && k != ScheduleKind::OneFOneB && k != ScheduleKind::Interleaved1F1B)
                    return std::string();
                const double v = k == ScheduleKind::Interleaved1F1B ? p.vpp : 1;
                return fixedText(100.0 * (p.pp - 1) / (v * r.microbatches + p.pp - 1), 1);
            } },
        // How much longer the busiest pipeline rank computes than the average rank (stage imbalance).
        { "busiest_stage_excess_pct",
            [](auto&, auto& r) {
                const auto& busy = r.schedule.busySecondsPerRank;
                if (busy.empty())
                    return std::string("0.0");
                double sum = 0, top = 0;
                for (double b : busy) {
                    sum += b;
                    top = std::max(top, b);
                }
                return fixedText(sum > 0 ? 100.0 * (top * busy.size() / sum - 1.0) : 0.0, 1);
            } },
        { "microbatches", [](auto&, auto& r) { return std::to_string(r.microbatches); } },
        { "peak_memory_gib", [](auto&, auto& r) { return gib(r.peakMemoryBytes); } },
        { "peak_stage", [](auto&, auto& r) { return std::to_string(r.peakMemoryStage); } },
        { "hbm_gib", [](auto&, auto& r) { return fixedText(r.hbmBytes / kGiB, 0); } },
        { "fits", [](auto&, auto& r) { return std::string(toString(r.memoryVerdict)); } },
        { "oom_gib", [](auto&, auto& r) { return gib(std::max(0.0, r.peakMemoryBytes - r.hbmBytes)); } },
        { "headroom_gib", [](auto&, auto& r) { return gib(r.hbmBytes - r.peakMemoryBytes); } },
        { "params_b", [](auto&, auto& r) { return fixedText(r.paramsTotal / 1e9, 1); } },
        // 18 bytes per parameter (core/parallel/ParameterShard.h; fewer optimizer bytes with the
        // precision-aware optimizer) spread perfectly over every GPU: no layout can hold less.
        { "min_states_per_gpu_gib",
            [](auto& s, auto& r) {
                const double perParam
                    = kWeightBytesPerParam + kGradBytesPerParam + optimizerStateBytesPerParam(s.training.optimizer);
                return gib(perParam * r.paramsTotal / std::max(1, r.gpus));
            } },
        { "active_params_b", [](auto&, auto& r) { return fixedText(r.paramsActive / 1e9, 1); } },
        { "peak_params_b",
            [](auto& s, auto& r) { return fixedText(rankParameters(s, r.peakMemoryStage).total() / 1e9, 1); } },
        { "peak_dense_params_b",
            [](auto& s, auto& r) { return fixedText(rankParameters(s, r.peakMemoryStage).dense / 1e9, 1); } },
        { "peak_expert_params_b",
            [](auto& s, auto& r) { return fixedText(rankParameters(s, r.peakMemoryStage).expert / 1e9, 1); } },
        { "tp_comm_s", [](auto&, auto& r) { return fixedText(r.comm.tpSeconds, 2); } },
        { "cp_comm_s", [](auto&, auto& r) { return fixedText(r.comm.cpSeconds, 2); } },
        { "ep_comm_s", [](auto&, auto& r) { return fixedText(r.comm.epSeconds, 2); } },
        { "pp_comm_s", [](auto&, auto& r) { return fixedText(r.comm.ppSeconds, 2); } },
        { "dp_exposed_s", [](auto&, auto& r) { return fixedText(r.comm.dpSeconds, 2); } },
        { "dp_total_s", [](auto&, auto& r) { return fixedText(r.comm.dpTotalSeconds, 2); } },
        { "tp_groups_crossing",
            [](auto&, auto& r) { return std::to_string(r.groupsCrossingDomains[static_cast<int>(Dim::Tp)]); } },
        { "ep_groups_crossing",
            [](auto&, auto& r) { return std::to_string(r.groupsCrossingDomains[static_cast<int>(Dim::Ep)]); } },
        { "dp_groups_crossing",
            [](auto&, auto& r) { return std::to_string(r.groupsCrossingDomains[static_cast<int>(Dim::Dp)]); } },
        { "gpus", [](auto&, auto& r) { return std::to_string(r.gpus); } },
        { "global_batch", [](auto& s, auto&) { return std::to_string(s.training.globalBatch); } },
        { "seq_len", [](auto&, auto& r) { return std::to_string(r.seqLen); } },
        { "tokens_per_step_m",
            [](auto& s, auto& r) {
                return fixedText(static_cast<double>(s.training.globalBatch) * r.seqLen / 1e6, 1);
            } },
    };
    if (auto it = kValues.find(name); it != kValues.end()) {
        std::string v = it->second(s, r);
        if (v.empty())
            return std::nullopt;
        return v;
    }
    if (auto v = inferenceLessonValue(name, s, r))
        return v;
    // Memory of one stage: peak_<field>_gib or stage<N>_<field>_gib.
    static const std::regex kStage(
        R"((peak|stage(\d+))_(weights_grads|weights|grads|optimizer|activations|other|states|total)_gib)");
    std::smatch m;
    if (std::regex_match(name, m, kStage)) {
        if (r.stages.empty())
            return std::nullopt;
        const std::size_t stage = m[2].matched ? std::stoul(m[2].str()) : static_cast<std::size_t>(r.peakMemoryStage);
        if (stage >= r.stages.size())
            return std::nullopt;
        return gib(*stageField(r.stages[stage], m[3].str()));
    }
    return std::nullopt;
}

bool isSearchName(const std::string& name)
{
    return name.rfind("recommended", 0) == 0 || name == "fix" || name.rfind("leanest", 0) == 0;
}

// Whether the scenario's own layout is the one the search ranks first, in a sentence: a lesson
// that explains a layout must not present it as the best when the engine finds a faster one.
std::string verdict(const Context& c)
{
    const SearchResult& r = *c.search;
    if (r.cancelled)
        return "The search was cancelled before it ranked every configuration.";
    if (r.candidates.empty())
        return "No configuration of this model fits this cluster: "
            + fixForNothingFits(c.scenario, r, c.calibration).text + ".";
    const Candidate& w = r.candidates.front();
    const std::string best = "**" + describe(w.point) + "** (" + fixedText(w.report.stepTimeSeconds, 2)
        + " s per step, " + fixedText(100 * w.report.mfu, 1) + "% MFU)";
    if (r.baseline && !r.baselineReason)
        return "Yes: the engine's search over every configuration ranks this layout first, " + best + ".";
    if (!c.report.fits)
        return "No: this layout does not fit in HBM. The engine's search over every configuration recommends " + best
            + ".";
    std::string text = "No: the engine's search over every configuration finds a faster layout, " + best
        + "; this one takes " + fixedText(100 * (c.report.stepTimeSeconds / w.report.stepTimeSeconds - 1), 1)
        + "% longer per step (" + fixedText(c.report.stepTimeSeconds, 2) + " s)";
    if (r.baselineReason && !r.baselineReason->brief.empty())
        text += ": " + r.baselineReason->brief;
    return text + ".";
}

std::optional<std::string> searchValue(const std::string& name, const Context& c, std::string& error)
{
    if (!c.search) {
        error = "{{" + name + "}} needs a search result";
        return std::nullopt;
    }
    const SearchResult& r = *c.search;
    if (name == "fix")
        return fixForNothingFits(c.scenario, r, c.calibration).text;
    if (name == "leanest")
        return r.leanest ? describe(*r.leanest) : std::string("none");
    if (name == "leanest_peak_gib")
        return gib(r.leanestPeakBytes);
    if (name == "recommended_verdict")
        return verdict(c);
    if (r.candidates.empty()) {
        if (name == "recommended")
            return std::string("nothing fits");
        error = "{{" + name + "}}: nothing fits, so there is no recommendation";
        return std::nullopt;
    }
    const Candidate& w = r.candidates.front();
    if (name == "recommended")
        return describe(w.point);
    if (name == "recommended_why") {
        std::string why;
        for (std::size_t i = 1; i < w.reasons.size() && i <= 3; ++i)
            why += (why.empty() ? "" : "; ") + w.reasons[i].brief;
        return why;
    }
    if (name.rfind("recommended_", 0) == 0 && name != "recommended_why" && name != "recommended_speedup_pct"
        && name != "recommended_verdict") {
        if (auto v = reportValue(name.substr(12), applyPoint(c.scenario, w.point), w.report))
            return v;
        error = "unknown placeholder {{" + name + "}}";
        return std::nullopt;
    }
    if (name == "recommended_speedup_pct") {
        if (!c.report.fits)
            return std::string("n/a (this configuration does not fit)");
        return fixedText(100 * (c.report.stepTimeSeconds / w.report.stepTimeSeconds - 1), 1);
    }
    error = "unknown placeholder {{" + name + "}}";
    return std::nullopt;
}

// Applies "field=value" overrides; false (and `error`) on an unknown field or a bad value.
bool applyOverride(Scenario& s, const std::string& field, const std::string& value, std::string& error)
{
    auto integer = [&](int& out) {
        try {
            std::size_t used = 0;
            const int v = std::stoi(value, &used);
            if (used != value.size() || v < 0)
                throw std::invalid_argument(value);
            out = v;
            return true;
        } catch (const std::exception&) {
            error = field + "=" + value + ": expected a non-negative integer";
            return false;
        }
    };
    ParallelConfig& p = s.parallel;
    TrainingConfig& t = s.training;
    if (field == "tp")
        return integer(p.tp);
    if (field == "cp")
        return integer(p.cp);
    if (field == "cp_a2a_size")
        return integer(p.cpA2aSize);
    if (field == "pp")
        return integer(p.pp);
    if (field == "vpp")
        return integer(p.vpp);
    if (field == "dp")
        return integer(p.dp);
    if (field == "ep")
        return integer(p.ep);
    if (field == "zero")
        return integer(p.zero);
    if (field == "micro_batch")
        return integer(t.microBatch);
    if (field == "global_batch")
        return integer(t.globalBatch);
    if (field == "seq_len")
        return integer(t.seqLen);
    if (field == "first_stage_layers")
        return integer(p.firstStageLayers);
    if (field == "last_stage_layers")
        return integer(p.lastStageLayers);
    if (field == "sliding_window") { // 0: full attention on every layer (no window, no chunks)
        if (!integer(s.model.slidingWindow))
            return false;
        s.model.chunkedAttention = s.model.chunkedAttention && s.model.slidingWindow > 0;
        return true;
    }
    if (field == "sp") {
        if (value != "on" && value != "off") {
            error = "sp=" + value + ": expected on or off";
            return false;
        }
        p.sp = value == "on";
        return true;
    }
    if (field == "schedule" && parseSchedule(value, p.schedule))
        return true;
    if (field == "recompute" && parseRecompute(value, t.recompute))
        return true;
    if (field == "dtype" && parseDType(value, t.dtype))
        return true;
    if (field == "deepseek_activation_cache" && (value == "true" || value == "false")) {
        t.deepseekActivationCache = value == "true";
        return true;
    }
    if (field == "deepseek_fp8_dispatch" && (value == "true" || value == "false")) {
        t.deepseekFp8Dispatch = value == "true";
        return true;
    }
    if (field == "moe_token_dispatcher" && parseMoeDispatcher(value, t.moeTokenDispatcher))
        return true;
    if (field == "cp_comm_type" && parseCpCommType(value, p.cpCommType))
        return true;
    if (auto served = applyInferenceOverride(s, field, value, error))
        return *served;
    error = "unknown variant field or value " + field + "=" + value;
    return false;
}

std::vector<std::string> words(const std::string& text)
{
    std::istringstream in(text);
    std::vector<std::string> out;
    for (std::string w; in >> w;)
        out.push_back(w);
    return out;
}
} // namespace

const std::vector<std::pair<std::string, std::string>>& lessonPlaceholderNames()
{
    static const std::vector<std::pair<std::string, std::string>> kNames {
        { "step_time_s", "step time, seconds" },
        { "mfu_pct", "model FLOPs utilisation, percent" },
        { "hfu_pct", "hardware FLOPs utilisation (with recompute), percent" },
        { "tflops_per_gpu", "model TFLOP/s per GPU" },
        { "hw_tflops_per_gpu", "hardware TFLOP/s per GPU (counts the recomputed forward, as arXiv:2104.04473 eq. 3)" },
        { "tokens_per_s", "tokens per second, whole cluster" },
        { "tokens_per_gpu_s", "tokens per second per GPU" },
        { "gpu_khours_per_trillion_tokens", "thousands of GPU-hours per trillion tokens" },
        { "bubble_pct", "pipeline bubble, percent" },
        { "closed_form_bubble_pct", "(p-1)/(v m + p-1) for GPipe, 1F1B and interleaved 1F1B, percent" },
        { "busiest_stage_excess_pct", "how much longer the busiest pipeline rank computes than the average, percent" },
        { "microbatches", "micro-batches per pipeline per step" },
        { "peak_memory_gib", "peak memory of the fullest GPU, GiB" },
        { "peak_stage", "pipeline stage with the peak memory" },
        { "hbm_gib", "HBM per GPU, GiB" },
        { "fits", "\"fits\", \"tight\" or \"does not fit\"" },
        { "oom_gib", "GiB over HBM (0 when it fits)" },
        { "headroom_gib", "GiB under HBM (negative when it does not fit)" },
        { "peak_<part>_gib",
            "a part of the peak stage's memory: weights, grads, optimizer, activations, other, "
            "states (weights+grads+optimizer), weights_grads, total" },
        { "min_states_per_gpu_gib", "18 bytes per parameter over all GPUs: the least any layout can hold" },
        { "stage<N>_<part>_gib", "the same for pipeline stage N" },
        { "params_b", "total parameters, billions" },
        { "active_params_b", "parameters a token touches, billions" },
        { "peak_params_b", "parameters the peak stage's GPU holds before ZeRO sharding, billions" },
        { "peak_dense_params_b", "of which dense (attention, shared experts, embeddings)" },
        { "peak_expert_params_b", "of which routed experts" },
        { "tp_comm_s", "TP communication per step on the peak stage, seconds (cp_comm_s, ep_comm_s, pp_comm_s too)" },
        { "dp_exposed_s", "exposed data-parallel sync per step, seconds (dp_total_s: before overlap)" },
        { "tp_groups_crossing", "TP groups that leave their NVLink domain (ep_groups_crossing, dp_groups_crossing)" },
        { "gpus", "GPUs" },
        { "global_batch", "sequences per step" },
        { "seq_len", "sequence length" },
        { "tokens_per_step_m", "tokens per step, millions" },
        { "recommended", "the search's best configuration (or \"nothing fits\")" },
        { "recommended_<value>",
            "any value above for the winner: recommended_step_time_s, recommended_mfu_pct, "
            "recommended_peak_memory_gib, recommended_dp_total_s, ..." },
        { "recommended_why", "the winner's reasons, briefly" },
        { "recommended_speedup_pct",
            "how much longer the scenario's own configuration takes per step than the "
            "winner, percent" },
        { "recommended_verdict",
            "a sentence: whether the scenario's own layout is the search's best, and if not which is and by how much" },
        { "leanest", "the configuration with the least peak memory (leanest_peak_gib: its peak)" },
        { "fix", "when nothing fits: the smallest changes that make something fit" },
    };
    static const std::vector<std::pair<std::string, std::string>> kAll = [] {
        auto all = kNames;
        const auto& served = inferenceLessonPlaceholderNames();
        all.insert(all.end(), served.begin(), served.end());
        return all;
    }();
    return kAll;
}

bool lessonNeedsSearch(const std::string& text)
{
    static const std::regex kPlaceholder(R"(\{\{\s*(recommended\w*|fix|leanest\w*)\b)");
    return std::regex_search(text, kPlaceholder);
}

RenderedLesson renderLesson(
    const Scenario& scenario, const Report& report, const SearchResult* search, const Calibration* calibration)
{
    RenderedLesson out;
    const Context context { scenario, report, search, calibration };
    std::map<std::string, std::optional<Report>> variants;
    std::map<std::string, Scenario> variantScenarios;
    const std::string& text = scenario.description;
    std::size_t pos = 0;
    while (true) {
        const std::size_t open = text.find("{{", pos);
        if (open == std::string::npos) {
            out.markdown += text.substr(pos);
            break;
        }
        const std::size_t close = text.find("}}", open + 2);
        if (close == std::string::npos) {
            out.errors.push_back("unterminated placeholder at offset " + std::to_string(open));
            out.markdown += text.substr(pos);
            break;
        }
        out.markdown += text.substr(pos, open - pos);
        const std::string raw = text.substr(open, close + 2 - open);
        pos = close + 2;
        const std::vector<std::string> parts = words(text.substr(open + 2, close - open - 2));
        std::string error;
        std::optional<std::string> value;
        if (parts.empty()) {
            error = "empty placeholder";
        } else if (isSearchName(parts[0])) {
            if (parts.size() > 1)
                error = raw + ": search placeholders take no variant fields";
            else
                value = searchValue(parts[0], context, error);
        } else if (parts.size() == 1) {
            value = reportValue(parts[0], scenario, report);
            if (!value)
                error = "unknown placeholder " + raw;
        } else {
            // A variant: the scenario with the given fields changed, evaluated by the engine.
            std::string key;
            for (std::size_t i = 1; i < parts.size(); ++i)
                key += parts[i] + " ";
            auto it = variants.find(key);
            if (it == variants.end()) {
                Scenario v = scenario;
                bool ok = true;
                for (std::size_t i = 1; i < parts.size() && ok; ++i) {
                    const auto eq = parts[i].find('=');
                    if (eq == std::string::npos) {
                        error = raw + ": expected field=value, got \"" + parts[i] + "\"";
                        ok = false;
                    } else {
                        ok = applyOverride(v, parts[i].substr(0, eq), parts[i].substr(eq + 1), error);
                    }
                }
                std::optional<Report> r;
                if (ok) {
                    EvaluateOptions options;
                    options.calibration = calibration;
                    options.keepTimeline = false;
                    Report rr = evaluate(v, options);
                    if (rr.valid)
                        r = std::move(rr);
                    else
                        error
                            = raw + ": the variant is not valid: " + (rr.errors.empty() ? "?" : rr.errors.front().text);
                }
                it = variants.emplace(key, std::move(r)).first;
                variantScenarios.emplace(key, v);
            }
            if (it->second) {
                value = reportValue(parts[0], variantScenarios.at(key), *it->second);
                if (!value)
                    error = "unknown placeholder " + raw;
            } else if (error.empty()) {
                error = raw + ": the variant is not valid";
            }
        }
        if (value) {
            out.markdown += *value;
        } else {
            out.errors.push_back(error.empty() ? "cannot render " + raw : error);
            out.markdown += raw;
        }
    }
    if (!report.valid && out.markdown.find("{{") != std::string::npos)
        out.errors.emplace_back("the scenario is not valid: its numbers cannot be rendered");
    return out;
}

RenderedLesson renderLesson(const Scenario& scenario, const Calibration* calibration, const SearchResult* search)
{
    EvaluateOptions options;
    options.calibration = calibration;
    options.keepTimeline = false;
    const Report report = evaluate(scenario, options);
    return renderLesson(scenario, report, search, calibration);
}

} // namespace parallax::core
