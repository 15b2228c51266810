// The engine against published training runs (../shared/data/published_runs_train.json): the step
// time it predicts for each run's own configuration, with no per-run factor. The data and its
// caveats are described in ../shared/data/README.md.
#include "core/Engine.h"
#include "core/PresetLibrary.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>

using namespace parallax::core;
using nlohmann::json;

namespace {
struct RunComparison {
    std::string id;
    double measured = 0;
    double predicted = 0;
    bool fits = false;
    double ratio() const { return predicted / measured; }
};

std::string gpuPresetFor(const std::string& gpu)
{
    if (gpu.find("H100") != std::string::npos)
        return "h100-sxm";
    if (gpu.find("A100") != std::string::npos && gpu.find("80") != std::string::npos)
        return "a100-sxm-80gb";
    return {};
}

int intOr(const json& j, const char* key, int fallback)
{
    return j.contains(key) && j[key].is_number() ? j[key].get<int>() : fallback;
}

// Builds the run's scenario from its record; returns false when the record lacks what the engine
// needs (MoE rows, proxies, missing dimensions, non-H100/A100 hardware).
bool scenarioFromRecord(const json& r, Scenario& s)
{
    const json& m = r["model"];
    const json& hw = r["hardware"];
    const json& p = r["parallel"];
    const json& me = r["measured"];
    if (!m["moe"].is_null() || !me.contains("iteration_time_s") || !me["iteration_time_s"].is_number())
        return false;
    if (r["run_kind"].get<std::string>().rfind("benchmark", 0) != 0)
        return false;
    for (const char* k : { "layers", "hidden", "ffn_hidden", "heads", "vocab", "seq_len" }) {
        if (!m.contains(k) || !m[k].is_number())
            return false;
    }
    const std::string gpu = gpuPresetFor(hw.value("gpu", ""));
    if (gpu.empty() || !p["tp"].is_number() || !p["pp"].is_number() || !p["global_batch"].is_number())
        return false;
    const std::string name = m.value("name", "");
    if (name.find("proxy") != std::string::npos)
        return false;

    s.name = r["id"].get<std::string>();
    s.model.name = name;
    s.model.layers = m["layers"].get<int>();
    s.model.hidden = m["hidden"].get<long long>();
    s.model.ffnHidden = m["ffn_hidden"].get<long long>();
    s.model.heads = m["heads"].get<int>();
    s.model.kvHeads = intOr(m, "kv_heads", s.model.heads);
    s.model.vocab = m["vocab"].get<long long>();
    s.model.seqLen = m["seq_len"].get<int>();
    const std::string arch = m.value("arch", "");
    s.model.activation = arch.find("SwiGLU") != std::string::npos ? Activation::SwiGlu : Activation::Gelu;
    const int gpus = hw["gpu_count"].get<int>();
    const int perNode = intOr(hw, "gpus_per_node", 8);
    if (gpus % perNode != 0)
        return false;
    s.topology = Topology::regular(
        *PresetLibrary::instance().gpu(gpu), gpus / perNode, perNode, gpu == "h100-sxm" ? 400 : 200);
    s.parallel.tp = p["tp"].get<int>();
    s.parallel.sp = p.value("sp", false) == true && s.parallel.tp > 1;
    s.parallel.pp = p["pp"].get<int>();
    s.parallel.cp = intOr(p, "cp", 1);
    s.parallel.dp = gpus / (s.parallel.tp * s.parallel.pp * s.parallel.cp);
    s.parallel.vpp = intOr(p, "vpp", 1);
    // A numeric ZeRO stage where the record states one, else the distributed optimizer (ZeRO-1-like)
    // of every Megatron-Core / NeMo recipe here.
    s.parallel.zero = p.contains("zero_stage") && p["zero_stage"].is_number() ? p["zero_stage"].get<int>() : 1;
    s.parallel.schedule = s.parallel.vpp > 1 ? ScheduleKind::Interleaved1F1B : ScheduleKind::OneFOneB;
    s.training.microBatch = intOr(p, "micro_batch", 1);
    s.training.globalBatch = p["global_batch"].get<int>();
    const std::string recompute = p.value("recompute", "");
    s.training.recompute = recompute.find("full") != std::string::npos ? Recompute::Full : Recompute::Selective;
    s.training.dtype = p.value("precision", "").find("fp8") != std::string::npos ? DType::Fp8 : DType::Bf16;
    return true;
}
} // namespace

TEST(PublishedRuns, StepTimeWithinStatedBand)
{
    std::ifstream in(std::string(PARALLAX_SHARED_DIR) + "/data/published_runs_train.json");
    if (!in)
        GTEST_SKIP() << "shared/data not found beside the repository";
    const json runs = json::parse(in);
    std::vector<RunComparison> rows;
    for (const json& r : runs) {
        Scenario s;
        if (!scenarioFromRecord(r, s))
            continue;
        const Report rep = evaluate(s);
        if (!rep.valid)
            continue;
        rows.push_back({ s.name, r["measured"]["iteration_time_s"].get<double>(), rep.stepTimeSeconds, rep.fits });
    }
    ASSERT_GE(rows.size(), 30u);
    std::vector<double> logErrors;
    for (const auto& row : rows) {
        std::printf("%-58s measured %8.3f s  predicted %8.3f s  ratio %5.2f%s\n", row.id.c_str(), row.measured,
            row.predicted, row.ratio(), row.fits ? "" : "  (engine: does not fit)");
        logErrors.push_back(std::fabs(std::log(row.ratio())));
    }
    std::sort(logErrors.begin(), logErrors.end());
    const double median = std::exp(logErrors[logErrors.size() / 2]) - 1;
    const double p90 = std::exp(logErrors[logErrors.size() * 9 / 10]) - 1;
    std::printf("%zu runs: median error %.1f%%, 90th percentile %.1f%%\n", rows.size(), 100 * median, 100 * p90);
    // Measured on 2026-11-30: median 6.0%, 90th percentile 14.8% over 112 runs. The outliers are
    // Narayanan's ZeRO-3 rows (DeepSpeed at 384-2240 A100s), 2-5x slower than the hierarchical
    // bandwidth bound the engine uses, and the 1.7B/3.6B rows where fixed per-step overheads dominate.
    EXPECT_LT(median, 0.10);
    EXPECT_LT(p90, 0.20);
}
