// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/Scenario.h"
#include "core/report/Report.h"
#include "core/search/ConfigSearch.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace parallax::core {

struct Calibration;

// One change that makes a scenario fit, found by searching the changed scenario.
struct FitChange {
    std::string kind; // "shorter-sequence", "fp8", "cpu-offload", "more-gpus"
    std::string description; // "1024 GPUs: TP=8 PP=8 DP=16 ... 2.31 s, MFU 41.2%"
    int gpus = 0;
    int seqLen = 0;
    std::optional<SearchPoint> point;
    double stepTimeSeconds = 0; // 0 when the engine does not model the change's time (offload)
    double peakMemoryBytes = 0;
};

struct FitFix {
    std::string text; // one line: the smallest change first, then the others that work
    std::vector<FitChange> changes; // in the order tried: shorter sequence, fp8, CPU offload, more GPUs
};

// When nothing fits: re-runs the search with a halved (then quartered) sequence at the same tokens
// per step, with fp8, with the optimizer states offloaded to CPU memory (ZeRO-Offload,
// arXiv:2101.06840: the leanest configuration without its optimizer bytes), and with 2x, 4x, ...
// the GPUs (whole nodes of the same kind) until something fits. Empty text when something fits.
// `cancel` stops it between (and inside) its searches, with the changes found so far.
FitFix fixForNothingFits(const Scenario& base, const SearchResult& result, const Calibration* calibration,
    const std::atomic<bool>* cancel = nullptr);

// The guide's "Summary Decision Matrix" (shared/guide/parallelism-decision-guide.txt, sec. 5),
// computed: models x GPU counts on HGX H100 nodes.
struct DecisionMatrixSettings {
    std::vector<std::string> models { "llama3-70b", "llama3-405b", "moe-1t" };
    std::vector<int> gpuCounts { 8, 64, 1024 };
    std::string gpu = "h100-sxm";
    int gpusPerNode = 8;
    double nicGbps = 400; // NDR, one NIC per GPU
    // 1024 sequences of 4096 tokens = 4M tokens per step: Llama 3 405B's initial pre-training batch
    // (arXiv:2407.21783 sec. 3.4.1); 4096 is also DeepSeek-V3's pre-training length (arXiv:2412.19437 sec. 4.2).
    int globalBatch = 1024;
    int seqLen = 4096;
    DType dtype = DType::Bf16;
};

struct DecisionMatrixCell {
    std::string model; // preset id
    std::string modelName;
    int gpus = 0;
    std::optional<SearchPoint> recommended;
    std::optional<Report> report; // the recommendation's simulated report
    std::string why; // one line
    FitFix fix; // when nothing fits
    std::optional<SearchPoint> leanest; // when nothing fits: the configuration closest to fitting
    double leanestPeakBytes = 0;
};

struct DecisionMatrix {
    DecisionMatrixSettings settings;
    std::string gpuName;
    double hbmBytes = 0;
    std::vector<DecisionMatrixCell> cells; // model-major
};

// The cell of row `model` (settings.models) and column `column` (settings.gpuCounts); null outside the table or
// for a cell a cancelled fill did not reach (cells are model-major).
const DecisionMatrixCell* matrixCell(const DecisionMatrix& matrix, std::size_t model, std::size_t column);
// A row's model name ("Llama 3 70B"), or its preset id when the preset is gone.
std::string matrixRowName(const DecisionMatrix& matrix, std::size_t model);

// `progress(done, total)` after each cell; `cancel` stops between searches.
DecisionMatrix buildDecisionMatrix(const DecisionMatrixSettings& settings, const Calibration* calibration,
    const std::function<void(int, int)>& progress = {}, const std::atomic<bool>* cancel = nullptr);

// What keeps settings from being filled, naming the field as the CLI spells its option ("gpu-counts").
struct MatrixSettingsProblem {
    std::string field; // "models", "gpu", "gpu-counts", "gpus-per-node" or "dtype"
    std::string text;
};
// Each cell is a full search (about half a second for a 1024-GPU H100 cell): a bound keeps a typo in a
// list from running for hours.
inline constexpr std::size_t kMaxMatrixModels = 16;
inline constexpr std::size_t kMaxMatrixGpuCounts = 16;
// Known model and GPU presets, one to 16 of each list, every count a whole number of NVLink domains
// (gpusPerNode) up to kMaxGpus, fp8 only on a GPU with fp8 tensor cores; nullopt when the settings can be filled.
std::optional<MatrixSettingsProblem> checkDecisionMatrixSettings(const DecisionMatrixSettings& settings);
// "8, 64,1024" as counts; nullopt with `bad` set to the first item that is not a positive integer.
std::optional<std::vector<int>> parseGpuCounts(const std::string& text, std::string& bad);

// A regular cluster of `gpus` GPUs of the settings' kind with the settings' batch, for one model.
Scenario decisionMatrixScenario(const DecisionMatrixSettings& settings, const std::string& model, int gpus);

} // namespace parallax::core
