// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/memory/PredictionBands.h"
#include "core/validation/ErrorStats.h"
#include "core/validation/PublishedRun.h"
#include "core/validation/ScaleTrend.h"

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace parallax::core {

// One run evaluated by the engine against what was published.
struct ValidationRow {
    PublishedRun run;
    bool valid = false; // the engine accepted the configuration
    std::string invalidReason;
    bool fits = false;
    MemoryVerdict memoryVerdict = MemoryVerdict::DoesNotFit;
    double predictedStepSeconds = 0;
    double predicted = 0; // in the run's metric (seconds or TFLOP/s per GPU)
    double error = 0; // predicted / published - 1
    double predictedPeakMemoryBytes = 0; // allocator view: total minus CUDA context, NCCL and fragmentation
    double memoryError = 0; // when the run printed its peak memory
};

// The bounds of issue 8, stated once.
struct ValidationBounds {
    double a100StepMean = 0.05;
    double allStepMean = 0.10;
    double worstRow = 0.25;
    double memoryMean = 0.10;
    double familyMean = 0.10; // every compared family (issue 12: Grok-1 MoE on H100, Llama 3.1 405B on GB200)
};

struct ValidationSummary {
    std::vector<ValidationRow> rows;
    std::vector<PublishedRunConversion> skipped; // with their reasons
    std::map<std::string, ErrorStats> perSource; // time or throughput error by source label
    // Time or throughput error by family, "GPU x dense|MoE" (e.g. "h100-sxm x MoE"); a family whose
    // rows are all skipped appears in familiesNotCompared only, so an uncovered family stays visible.
    std::map<std::string, ErrorStats> perFamily;
    std::map<std::string, int> familiesNotCompared; // family -> records listed as not modelled
    std::map<std::string, FamilyTrend> familyTrends; // signed error and weak-scaling trend per family
    ErrorStats stepTime; // every row with a step time
    ErrorStats a100StepTime;
    ErrorStats throughput; // rows compared by TFLOP/s
    ErrorStats memory;
    ValidationBounds bounds;
    std::vector<std::string> failures; // bounds exceeded, in words
    bool withinBounds() const { return failures.empty(); }
};

// The family a run belongs to: its GPU preset and whether the model is dense or MoE.
std::string validationFamily(const PublishedRun& run);
// One run through the engine, compared with what was published (whatever its family).
ValidationRow evaluatePublishedRun(PublishedRun run);

// Evaluates every record of a published-runs file (a JSON array; data/README.md schema).
ValidationSummary runValidation(const nlohmann::json& records);

std::string validationTable(const ValidationSummary& summary);
nlohmann::json validationJson(const ValidationSummary& summary);

} // namespace parallax::core
