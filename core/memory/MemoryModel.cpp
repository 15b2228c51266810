// SPDX-License-Identifier: Apache-2.0
#include "core/memory/MemoryModel.h"

#include "core/costs/GradBuckets.h"
#include "core/memory/ModelStateBytes.h"
#include "core/model/LayerShape.h"

#include <algorithm>
#include <iterator>

namespace parallax::core {

double lmHeadTransientBytes(double tokens, double vocab, double hidden, int tp, double replicatedShare)
{
    return 4.0 * tokens * vocab / tp + 4.0 * tokens * hidden * replicatedShare;
}

double largestModuleParameters(
    const ModelSpec& m, const ParallelConfig& p, int firstLayer, int endLayer, bool holdsVocab)
{
    double largest = holdsVocab ? static_cast<double>(m.vocab) * m.hidden / p.tp : 0.0;
    int lastKind = -1;
    for (int l = firstLayer; l < endLayer; ++l) {
        const int kind = m.isMoeLayer(l) ? 1 : 0;
        if (kind == lastKind)
            continue;
        lastKind = kind;
        for (const LinearShape& lin : layerShape(m, l).linears) {
            const double split = lin.routedExpert ? p.etp : lin.tensorParallel ? p.tp : 1;
            largest = std::max(largest, lin.inFeatures * lin.outFeatures / split);
        }
    }
    return largest;
}

ParameterShard rankParameters(const MemoryInputs& in, int rank)
{
    ParameterShard total;
    const int chunks = chunksPerRank(in.shape);
    const bool rankHoldsEmbedding = rankHoldsStage(in.shape, rank, 0);
    for (int c = 0; c < chunks; ++c) {
        const int stage = modelStageOf(in.shape, rank, c);
        total += stageParameters(in.model, in.parallel, in.layout.firstLayer(stage), in.layout.endLayer(stage),
            in.layout.holds(stage, in.model.mtpLayers, rankHoldsEmbedding));
    }
    return total;
}

std::vector<StageMemory> memoryPerStage(const MemoryInputs& in)
{
    const ParallelConfig& p = in.parallel;
    const OtherMemoryDefaults other;
    const double dpGroup = static_cast<double>(p.dp) * p.cp; // dense gradients and optimizer shards
    const double edpGroup
        = std::max(1.0, static_cast<double>(p.tp) * p.cp * p.dp / (static_cast<double>(p.ep) * p.etp));
    const int chunks = chunksPerRank(in.shape);
    const int last = in.layout.stages() - 1;
    int communicators = 0;
    for (int degree : { p.tp, p.cp, p.pp, p.dp * p.cp, p.ep })
        communicators += degree > 1;

    std::vector<StageMemory> out;
    out.reserve(p.pp);
    // One micro-batch's activations of 1/p of the model: the unit of "micro-batches in flight".
    double modelActivation = 0;
    for (const auto& row : in.simulation.activationWeight) {
        for (double w : row)
            modelActivation += w;
    }
    const double unit = modelActivation / std::max(1, p.pp);

    for (int r = 0; r < p.pp; ++r) {
        StageMemory st;
        st.stage = r;
        const ParameterShard params = rankParameters(in, r);
        st.denseParameters = params.dense;
        st.expertParameters = params.expert;
        const ModelStateBytes state
            = modelStateBytes(params, p.zero, p.gradReduceInFp32, in.training.optimizer, dpGroup, edpGroup);
        st.weightsBytes = state.weights;
        st.gradsBytes = state.grads;
        st.optimizerBytes = state.optimizer;
        for (int c = 0; c < chunks; ++c)
            st.layers += in.layout.layerCount(modelStageOf(in.shape, r, c));

        st.activationsBytes = in.schedule.peakInflightWeight.empty() ? 0 : in.schedule.peakInflightWeight[r];
        st.inflightMicrobatches = unit > 0 ? st.activationsBytes / unit : 0;
        const double tokens = in.context.seqLen / in.context.cp * in.context.microBatch;
        const double rep = in.context.sp ? 1.0 / in.context.tp : 1.0;
        bool holdsHead = false;
        for (int c = 0; c < chunks; ++c)
            holdsHead = holdsHead || modelStageOf(in.shape, r, c) == last;
        double transient = in.backwardWorkingSet[r];
        if (holdsHead) {
            transient = std::max(transient,
                lmHeadTransientBytes(
                    tokens, static_cast<double>(in.model.vocab), static_cast<double>(in.model.hidden), p.tp, rep));
        }
        if (p.zero >= 3) {
            double largest = 0;
            for (int c = 0; c < chunks; ++c) {
                const int stage = modelStageOf(in.shape, r, c);
                largest = std::max(largest,
                    largestModuleParameters(in.model, p, in.layout.firstLayer(stage), in.layout.endLayer(stage),
                        stage == 0 || stage == last || in.layout.mtpLayersIn(stage, in.model.mtpLayers) > 0));
            }
            transient += zeroThreeGatheredBytes(largest);
        }
        // The fp32 gradient shard of 16-bit gradient training exists only at the optimizer step, when the
        // activations are gone: it raises the peak only where it exceeds them.
        transient += std::max(0.0, state.mainGradShard - st.activationsBytes - transient);
        st.fragmentationBytes = other.fragmentationFraction * (st.activationsBytes + transient);
        st.runtimeBytes
            = other.cudaContextBytes + communicators * other.ncclBytesPerCommunicator + st.fragmentationBytes;
        st.otherBytes = st.runtimeBytes + transient;
        out.push_back(st);
    }
    return out;
}

DpSyncTimes dpSyncSeconds(const MemoryInputs& in, int rank, const CommGroup& dp, const CommGroup& edp,
    double forwardWindowSeconds, double backwardWindowSeconds, const ParameterShard* rankParams)
{
    const ParallelConfig& p = in.parallel;
    const int chunks = chunksPerRank(in.shape);
    // The simulator's ops are sorted by rank, then start.
    const auto byRank = [](const TimedOp& op, int r) { return op.rank < r; };
    const auto first = std::lower_bound(in.schedule.ops.begin(), in.schedule.ops.end(), rank, byRank);
    const auto end = std::lower_bound(first, in.schedule.ops.end(), rank + 1, byRank);
    if (p.zero >= 3 || first == end) {
        // ZeRO-3 gathers and reduces per micro-batch and layer (flat rings); without a timeline, the
        // windows the engine passed.
        const ParameterShard params = rankParams ? *rankParams : rankParameters(in, rank);
        const DpCollectives c = dpCollectives(dp, edp, params.dense, params.expert, p.gradReduceInFp32, p.zero);
        return dataParallelSync(p.zero, in.shape.microbatches, c, forwardWindowSeconds, backwardWindowSeconds);
    }
    // Each chunk's collectives placed on this rank's simulated timeline (core/costs/DataParallelSync.h).
    auto valid = [&](int c) { return c >= 0 && c < chunks; };
    const auto forwardChunk = [](const TimedOp& op) {
        return op.kind == OpKind::Forward || op.kind == OpKind::ForwardBackward ? int { op.chunk } : -1;
    };
    // The weight gradients are complete after B (unsplit), W (split) or an F&B pair's backward half.
    const auto gradChunk = [](const TimedOp& op) {
        return op.kind == OpKind::ForwardBackward                                ? int { op.chunk2 }
            : (op.kind == OpKind::Backward || op.kind == OpKind::BackwardWeight) ? int { op.chunk }
                                                                                 : -1;
    };
    // A rank's ops run one after another: starts and ends only grow along them, so its last op ends it,
    // a chunk's first forward in order is its earliest and its last gradient op its latest.
    const double rankEnd = std::prev(end)->end;
    std::vector<const TimedOp*> firstForward(chunks, nullptr), lastGrad(chunks, nullptr);
    int missing = chunks;
    for (auto it = first; it != end && missing > 0; ++it) {
        const int c = forwardChunk(*it);
        if (valid(c) && !firstForward[c]) {
            firstForward[c] = &*it;
            --missing;
        }
    }
    missing = chunks;
    for (auto it = end; it != first && missing > 0;) {
        --it;
        const int c = gradChunk(*it);
        if (valid(c) && !lastGrad[c]) {
            lastGrad[c] = &*it;
            --missing;
        }
    }
    std::vector<ChunkDpSync> sync(chunks);
    for (int c = 0; c < chunks; ++c) {
        const int stage = modelStageOf(in.shape, rank, c);
        const bool embedding = stage == 0;
        const StageHolds holds = in.layout.holds(stage, in.model.mtpLayers, rankHoldsStage(in.shape, rank, 0));
        const ParameterShard params
            = stageParameters(in.model, p, in.layout.firstLayer(stage), in.layout.endLayer(stage), holds);
        const double forwardStart = firstForward[c] ? firstForward[c]->start : in.schedule.makespan;
        const double forwardEnd = firstForward[c] ? firstForward[c]->end : in.schedule.makespan;
        sync[c].firstForwardStartSeconds = forwardStart;
        const auto seconds = [&](double dense, double expert) {
            const DpCollectives col = dpCollectives(dp, edp, dense, expert, p.gradReduceInFp32, p.zero);
            return std::pair(p.zero == 0 ? col.allReduce : col.reduceScatter, p.zero == 0 ? 0.0 : col.allGather);
        };
        if (p.zero == 2) {
            // ZeRO-2 (the FSDP of arXiv:2407.21783 sec. 3.3): the chunk's gradients after every micro-batch's
            // backward, and its gather behind its first forward.
            const auto [grad, gather] = seconds(params.dense, params.expert);
            for (auto it = first; it != end; ++it) {
                if (gradChunk(*it) == c)
                    sync[c].grads.push_back({ p.dpOverlap ? it->start : rankEnd, grad });
            }
            if (gather > 0)
                sync[c].gathers.push_back({ p.dpOverlap ? forwardEnd : forwardStart, gather });
            continue;
        }
        // ZeRO 0-1, Megatron-Core's DistributedDataParallel: only the first chunk of pipeline rank 0 is
        // bucketed (core/costs/GradBuckets.h); without --overlap-grad-reduce the buffers reduce after the
        // rank's last op and the gathers end before its first forward.
        const bool bucketed = p.dpOverlap && rank == 0 && c == 0;
        const double bucket = bucketed ? ddpBucketParams(p.ddpBucketSize, p.dp) : 0.0;
        // The input embedding's share of the dense parameters (the last gradients of the backward).
        const double layerDense = embedding
            ? stageParameters(in.model, p, in.layout.firstLayer(stage), in.layout.endLayer(stage),
                StageHolds { false, holds.head, holds.mtpLayers, false })
                  .dense
            : params.dense;
        const double backwardStart = lastGrad[c] ? lastGrad[c]->start : rankEnd;
        const double backwardEnd = lastGrad[c] ? lastGrad[c]->end : rankEnd;
        const auto place = [&](const std::vector<GradBucket>& buckets, bool expert) {
            double priced = -1; // full buckets repeat: price each size once
            std::pair<double, double> price;
            for (const GradBucket& b : buckets) {
                if (b.params != priced) {
                    price = expert ? seconds(0.0, b.params) : seconds(b.params, 0.0);
                    priced = b.params;
                }
                const auto [one, oneGather] = price;
                const double grad = b.count * one, gather = b.count * oneGather;
                const double ready
                    = p.dpOverlap ? backwardStart + b.readyFraction * (backwardEnd - backwardStart) : rankEnd;
                sync[c].grads.push_back({ ready, grad });
                if (gather > 0) {
                    const double needed
                        = p.dpOverlap ? forwardStart + b.neededFraction * (forwardEnd - forwardStart) : forwardStart;
                    sync[c].gathers.push_back({ needed, gather });
                }
            }
        };
        place(gradBuckets(layerDense, params.dense - layerDense, bucket), false);
        place(gradBuckets(params.expert, 0.0, bucket), true);
        // Gathers run in forward order: the bucket the forward needs first goes first.
        std::stable_sort(sync[c].gathers.begin(), sync[c].gathers.end(),
            [](const DpTimedCollective& a, const DpTimedCollective& b) { return a.atSeconds < b.atSeconds; });
    }
    return pipelinedDataParallelSync(sync, in.schedule.makespan, p.dpOverlap);
}

} // namespace parallax::core
