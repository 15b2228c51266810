// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/validation/ServingRecord.h"
#include "core/validation/ValidationSuite.h"

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace parallax::core {

// One printed figure of a serving record against the serving engine.
struct ServingComparison {
    std::string id; // record id
    std::string source; // source label
    std::string framework;
    std::string gpu;
    ServingMetric metric = ServingMetric::TpotMs;
    double published = 0;
    double predicted = 0;
    double error = 0; // predicted / published - 1
    int concurrencyUsed = 0; // requests in flight the engine ran (time rows)
    bool concurrencyCapped = false; // the printed batch does not fit the engine's KV pool: it ran fewer
    std::vector<std::string> assumptions;
};

// The serving suite's bounds: the mean absolute error per metric and every row's error, chosen so that
// the present physics meets them honestly (docs/validation.md, "Serving rows").
struct ServingBounds {
    double memoryMean = 0.15; // kv_cache_tokens, kv_cache_gib, weights_gib_per_gpu
    double throughputMean = 0.25; // output tokens/s per GPU
    double latencyMean = 0.25; // ttft_ms, tpot_ms
    double worstRow = 0.60;
};

struct ServingValidationSummary {
    std::vector<ServingComparison> rows;
    std::vector<ServingRunConversion> notModelled; // records, with their reasons
    std::map<std::string, ErrorStats> perSource;
    std::map<std::string, ErrorStats> perMetric; // by toString(ServingMetric)
    ErrorStats all;
    ServingBounds bounds;
    std::vector<std::string> failures;
    bool withinBounds() const { return failures.empty(); }
};

// Every figure of one run through the serving engine (evaluateInference; for SGLang's pool the engine's
// weights and runtime memory under the mem_fraction_static rule). Empty with `reason` set when the engine
// rejects the layout.
std::vector<ServingComparison> evaluateServingRun(const PublishedServingRun& run, std::string& reason);

// Evaluates every record of a published-serving file (a JSON array; docs/validation.md schema).
ServingValidationSummary runServingValidation(const nlohmann::json& records);

std::string servingValidationTable(const ServingValidationSummary& summary);
nlohmann::json servingValidationJson(const ServingValidationSummary& summary);

} // namespace parallax::core
