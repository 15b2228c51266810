// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <span>
#include <string>

namespace parallax::core {

// How far the real value may lie from the engine's prediction, as measured on the published runs of
// data/published_runs_train.json: real / predicted is within [1 - below, 1 + above].
struct ErrorBand {
    double below = 0;
    double above = 0;
    double low(double predicted) const { return predicted * (1.0 - below); }
    double high(double predicted) const { return predicted * (1.0 + above); }
};

// One family of the step-time validation: a GPU type and dense or MoE.
struct StepTimeFamily {
    const char* gpu; // GPU preset id ("h100-sxm"); a family covers the ids in gpuAliases too
    const char* gpuAliases; // space-separated preset ids of the same silicon, or ""
    bool moe;
    ErrorBand band;
    int rows; // rows of the training file it was measured on
    // The GPU counts of those rows, and the weak-scaling trend within them (core/validation/ScaleTrend.h):
    // the change of the time-sense error (predicted / published - 1) per doubling of the GPUs, 0 where the
    // family has no weak-scaling series. Outside the span the band is widened along the trend.
    int fewestGpus;
    int mostGpus;
    double errorPerDoubling;
};

// The one table of bands (core/memory/PredictionBands.cpp; docs/validation.md says how they were measured).
std::span<const StepTimeFamily> stepTimeFamilies();
// The band of the allocator-visible peak memory (weights, gradients, optimizer, activations, transients),
// covering every memory row of the training file.
ErrorBand memoryBand();

// A family's name as `validate` and the report spell it: "h100-sxm x dense", "h100-sxm x MoE".
std::string familyName(const std::string& gpuId, bool moe);

struct StepTimeBand {
    ErrorBand band;
    std::string family; // familyName of the family, or why none was found
    bool measured = false; // false: no family of this GPU and kind; the widest band of the kind is used
    int fewestGpus = 0; // the GPU counts of the family's rows (0 where none was measured)
    int mostGpus = 0;
    // Doublings of the job's GPU count beyond the family's published rows: > 0 above the largest, < 0 below
    // the smallest, 0 inside the span (or where no family was measured).
    double doublingsOutside = 0;
    double errorPerDoubling = 0; // the family's trend, as in StepTimeFamily
    double widenedBy = 0; // how much the trend widened the band's side it points to (a fraction of the step)
    // The edge of the span the job lies beyond: the largest published GPU count above the span, else the smallest.
    int spanEdgeGpus() const { return doublingsOutside > 0 ? mostGpus : fewestGpus; }
};
// The family of gpuId x moe, else the same kind on the closest GPU (same silicon aliases), else the widest
// band of that kind. A job of `gpus` GPUs outside the family's published span gets the band widened by the
// family's weak-scaling trend carried over the doublings outside (gpus <= 0: no scale check).
StepTimeBand stepTimeBand(const std::string& gpuId, bool moe, int gpus = 0);

enum class MemoryVerdict { Fits, Tight, DoesNotFit };
const char* toString(MemoryVerdict v); // "fits" | "tight" | "does not fit"
// fits: even the high end of the range is within HBM; does not fit: even the low end exceeds it.
MemoryVerdict memoryVerdict(double lowBytes, double highBytes, double hbmBytes);

} // namespace parallax::core
