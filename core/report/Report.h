// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/cluster/RankMap.h"
#include "core/inference/InferenceReport.h"
#include "core/memory/PredictionBands.h"
#include "core/schedule/PipelineSimulator.h"

#include <optional>

#include <string>
#include <vector>

namespace parallax::core {

// A finding about a scenario: `field` is the JSON path it concerns ("parallel.tp"), `text` says
// what is wrong and the fix.
struct Message {
    std::string field;
    std::string text;
};

struct StageMemory {
    int stage = 0; // pipeline rank
    double weightsBytes = 0;
    double gradsBytes = 0;
    double optimizerBytes = 0;
    double activationsBytes = 0;
    double otherBytes = 0; // CUDA context, NCCL buffers, allocator fragmentation, logits
    double runtimeBytes = 0; // the part of otherBytes outside PyTorch's allocated bytes (context, NCCL, fragmentation)
    double fragmentationBytes = 0; // the part of runtimeBytes the caching allocator reserves but has not allocated
    double inflightMicrobatches = 0; // peak activations / one micro-batch's activations of one stage
    int layers = 0; // transformer layers on this rank (all chunks)
    double denseParameters = 0; // parameters this GPU holds (all chunks, its TP share); experts: its EP x ETP share
    double expertParameters = 0;
    // Range of totalBytes() from the measured error of the memory model (core/memory/PredictionBands.h),
    // applied to the allocator-visible part; the CUDA context and NCCL buffers are taken as stated.
    double lowBytes = 0;
    double highBytes = 0;
    double hbmBytes = 0; // the smallest HBM among the GPUs of this pipeline rank (core/cluster/StageHbm.h)
    double totalBytes() const { return weightsBytes + gradsBytes + optimizerBytes + activationsBytes + otherBytes; }
};

// Communication seconds per step on the critical path of one GPU (exposed, not overlapped).
struct CommBreakdown {
    double tpSeconds = 0;
    double cpSeconds = 0;
    double epSeconds = 0;
    double ppSeconds = 0;
    double dpSeconds = 0;
    double dpTotalSeconds = 0; // before overlap with the backward
};

struct StepBreakdown {
    double computeSeconds = 0; // busiest pipeline rank's op time (compute + exposed TP/CP/EP comm)
    double pipelineSeconds = 0; // makespan of the simulated schedule
    double bubbleSeconds = 0;
    double dpExposedSeconds = 0;
    double optimizerSeconds = 0; // optimizer step + fixed per-step work (grad norm, clip, zero grad, batch, loss)
    double stepSeconds = 0;
};

struct Report {
    bool valid = false; // the configuration can be run as given
    bool fits = false; // memoryVerdict is not DoesNotFit: the memory range reaches below HBM on every GPU
    MemoryVerdict memoryVerdict = MemoryVerdict::DoesNotFit;
    std::vector<Message> errors;
    std::vector<Message> warnings;
    std::vector<Message> notes; // how the engine read the scenario (mappings, assumptions)

    double paramsTotal = 0;
    double paramsActive = 0;
    int microbatches = 0;
    int gpus = 0;
    int seqLen = 0;

    double stepTimeSeconds = 0;
    double stepTimeLowSeconds = 0; // range from the validation error of the closest family
    double stepTimeHighSeconds = 0;
    std::string stepTimeFamily; // that family ("h100-sxm x dense"), or why none was found
    int stepTimeFamilyFewestGpus = 0; // the GPU counts of the family's published runs (0: no family)
    int stepTimeFamilyMostGpus = 0;
    double tflopsPerGpu = 0; // model FLOPs / step / GPU
    double mfu = 0;
    double hfu = 0;
    double tokensPerSecond = 0;
    double bubbleFraction = 0;
    double modelFlopsPerStep = 0;
    double hardwareFlopsPerStep = 0;
    double peakFlopsPerSecond = 0; // per GPU, for the training dtype

    double hbmBytes = 0; // HBM of the peak stage's GPUs (in a cluster of one GPU type, the GPU's)
    std::vector<StageMemory> stages;
    double peakMemoryBytes = 0;
    double peakMemoryLowBytes = 0; // the highest stage's range
    double peakMemoryHighBytes = 0;
    int peakMemoryStage = 0;

    CommBreakdown comm;
    StepBreakdown step;
    RankMap rankMap;
    std::array<int, kDimCount> groupsCrossingDomains {};
    // Groups whose members sit on different leaf fabrics, and groups whose scale-out traffic changes
    // rail on a rail-optimised fabric (core/cluster/FabricPath.h).
    std::array<int, kDimCount> groupsCrossingFabrics {};
    std::array<int, kDimCount> groupsCrossingRails {};

    SimulationResult schedule; // simulated timeline of pipeline group 0
    std::vector<std::string> calibrated; // quantities taken from a probe calibration
    std::optional<InferenceReport> inference; // set in inference mode (core/inference/InferenceEngine.h)
};

} // namespace parallax::core
