// SPDX-License-Identifier: Apache-2.0
#include "core/validation/PublishedRun.h"

#include "core/io/PresetLibrary.h"
#include "core/io/ScenarioIo.h"
#include "core/validation/RecordReading.h"
#include "core/validation/SourceConventions.h"

namespace parallax::core {

namespace {

using nlohmann::json;
using record::contains;
using record::number;
using record::text;

PublishedRunConversion skip(const std::string& id, std::string reason)
{
    PublishedRunConversion c;
    c.id = id;
    c.reason = std::move(reason);
    return c;
}

// Records that are not training steps, or not steady ones.
std::string notATrainingStep(const json& r)
{
    const std::string kind = text(r, "run_kind");
    if (contains(kind, "pipeline_bubble_reference"))
        return "theoretical bubble rates from profiled pass times, not an end-to-end run (the schedule simulator is "
               "checked against them: tests/validation/BubbleReferenceTest.cpp)";
    if (contains(kind, "ramp-up") || contains(kind, "start of training"))
        return "measured during the batch-size ramp-up at the start of a production run, not a steady-state step "
               "(data/README.md caveat 3)";
    if (contains(kind, "per_layer"))
        return "per-layer microbenchmark, not a training step";
    return {};
}

} // namespace

PublishedRunConversion convertPublishedRun(const json& r)
{
    const std::string id = text(r, "id");
    if (!r.is_object() || !r.contains("model") || !r.contains("hardware") || !r.contains("parallel")
        || !r.contains("measured"))
        return skip(id, "record lacks model, hardware, parallel or measured");
    if (std::string why = notATrainingStep(r); !why.empty())
        return skip(id, why);
    const json& hw = r["hardware"];
    const json& me = r["measured"];
    const auto iteration = number(me, "iteration_time_s");
    auto tokensPerSecond = number(me, "tokens_per_s");
    if (!tokensPerSecond) {
        if (auto perGpu = number(me, "tokens_per_s_per_gpu"))
            tokensPerSecond = *perGpu * number(hw, "gpu_count").value_or(0);
    }
    const auto tflops = number(me, "tflops_per_gpu");
    const auto mfu = number(me, "mfu");
    if (!iteration && !tokensPerSecond && !tflops && !mfu) {
        if (number(me, "tflops_per_gpu_up_to"))
            return skip(id, "only an upper bound (\"up to\" TFLOP/s) is printed");
        return skip(id, "nothing the engine predicts is printed (no step time, tokens/s, TFLOP/s or MFU)");
    }

    SourceConventions conv = sourceConventions(r);
    std::vector<std::string> assumed;
    PublishedRun run;
    run.id = id;
    run.source = conv.label;
    run.system = text(r, "system");
    if (r.contains("scenario")) {
        // A run of the user's own (check-log --record): the design as it ran, modelled as it is.
        LoadError error;
        const auto own = parseScenario(r["scenario"].dump(), error);
        if (!own || own->topology.domains.empty())
            return skip(id, "its scenario does not load: " + (own ? std::string("no GPUs") : error.text()));
        run.scenario = *own;
        run.source = "own runs";
        run.gpu = own->topology.domains.front().gpu.id;
        conv.flopConvention = FlopConvention::MegatronCore;
    } else {
        run.scenario.name = id;
        run.scenario.model.id = id;
        if (std::string why = record::readHardware(hw, conv, run.scenario, run.gpu, assumed); !why.empty())
            return skip(id, why);
        if (std::string why = record::readModel(r["model"], conv, run.scenario.model, assumed); !why.empty())
            return skip(id, why);
        if (std::string why = record::readLayout(r["parallel"], conv, run.scenario, assumed); !why.empty())
            return skip(id, why);
    }
    const TrainingConfig& train = run.scenario.training;
    const ModelSpec& model = run.scenario.model;
    const GpuSpec& gpuSpec = run.scenario.topology.domains.front().gpu;

    // The published figure.
    if (iteration) {
        run.metric = PublishedMetric::StepTime;
        run.published = *iteration;
    } else if (tokensPerSecond) {
        run.metric = PublishedMetric::StepTime;
        run.published = static_cast<double>(train.globalBatch) * model.seqLen / *tokensPerSecond;
        assumed.emplace_back("step time = global batch tokens / printed tokens/s");
    } else {
        run.metric = PublishedMetric::TflopsPerGpu;
        run.sourceFlopsPerStep = sourceFlopsPerStep(conv.flopConvention, run.scenario, r);
        if (run.sourceFlopsPerStep <= 0)
            return skip(id, "TFLOP/s printed but the source's FLOP convention is unknown");
        run.published = tflops.value_or(0);
        if (!tflops) {
            const double peak
                = (train.dtype == DType::Fp8 && gpuSpec.fp8FlopsPerSecond > 0 ? gpuSpec.fp8FlopsPerSecond
                                                                              : gpuSpec.bf16FlopsPerSecond);
            run.published = *mfu * peak / 1e12;
            assumed.push_back(
                "TFLOP/s per GPU = printed MFU x the " + gpuSpec.name + " dense peak of the run's precision");
        }
    }
    if (auto bytes = number(me, "peak_memory_bytes"))
        run.peakMemoryBytes = *bytes;
    else if (auto gb = number(me, "peak_memory_gb"))
        run.peakMemoryBytes = *gb * conv.memoryUnitBytes;
    run.assumptions = std::move(assumed);

    PublishedRunConversion out;
    out.id = id;
    out.run = std::move(run);
    return out;
}

} // namespace parallax::core
