// SPDX-License-Identifier: Apache-2.0
#include "core/parallel/PipelineSplit.h"

#include "core/model/ModelMath.h"
#include "core/parallel/PipelineLayout.h"
#include "core/parallel/StageLayout.h"

#include <algorithm>
#include <cmath>

namespace parallax::core {

namespace {

bool firstAndLastStagesOnEndRanks(ScheduleKind k)
{
    return k != ScheduleKind::ZbV && k != ScheduleKind::DualPipe && k != ScheduleKind::DualPipeV;
}

// Model stages of a V-shaped schedule, whose rank 0 holds the first and the last one: DualPipe's pp
// (ranks i and pp-1-i both run stages i and pp-1-i), ZB-V's and DualPipeV's 2 pp.
int vStages(ScheduleKind k, int pp)
{
    return k == ScheduleKind::DualPipe ? pp : 2 * pp;
}

// Layers of the middle model stages of a V schedule under first/last counts; 0 when they do not divide.
int vMiddleLayers(int layers, int stages, int first, int last)
{
    const int middleStages = stages - (first > 0) - (last > 0);
    const int rest = layers - first - last;
    if (middleStages <= 0 || rest <= 0 || rest % middleStages != 0)
        return 0;
    return rest / middleStages;
}

int chunksOf(const ParallelConfig& p)
{
    return p.schedule == ScheduleKind::Interleaved1F1B ? std::max(1, p.vpp) : 1;
}

std::string str(long long v)
{
    return std::to_string(v);
}

// Layers per pipeline rank under the first/last form; empty when the rest does not divide.
std::vector<int> firstLastRankCounts(int layers, int pp, int first, int last)
{
    const int middleRanks = pp - (first > 0) - (last > 0);
    const int rest = layers - first - last;
    if (rest < 0 || middleRanks < 0 || (middleRanks == 0 && rest != 0) || (middleRanks > 0 && rest % middleRanks != 0))
        return {};
    const int middle = middleRanks > 0 ? rest / middleRanks : 0;
    if (middleRanks > 0 && middle == 0)
        return {};
    std::vector<int> counts(pp, middle);
    if (first > 0)
        counts.front() = first;
    if (last > 0)
        counts.back() = last;
    return counts;
}

} // namespace

namespace {
// first_stage_layers / last_stage_layers or the account_for switches: Megatron-Core's other split forms.
bool hasCountedSplit(const ParallelConfig& p)
{
    return p.firstStageLayers > 0 || p.lastStageLayers > 0 || p.accountForEmbedding || p.accountForLoss;
}
} // namespace

bool hasUnevenSplit(const ParallelConfig& p)
{
    return hasCountedSplit(p) || !p.pipelineLayout.empty();
}

namespace {
std::string customLayoutProblem(int layers, const ParallelConfig& p, int mtpLayers)
{
    const std::string field = "parallel.pipeline_layout: ";
    if (hasCountedSplit(p))
        return field
            + "a custom layout replaces first_stage_layers / last_stage_layers and the account_for "
              "switches (Megatron-Core takes one form): keep one";
    if (p.pp <= 1)
        return field + "a pipeline layout needs pp > 1: clear it or raise pp";
    if (p.schedule != ScheduleKind::OneFOneB && p.schedule != ScheduleKind::Interleaved1F1B)
        return field + "Megatron-Core's layouts are for its 1F1B and interleaved schedules, not " + toString(p.schedule)
            + ": choose 1f1b or interleaved, or clear the layout";
    std::string error;
    const std::optional<PipelineLayoutStages> parsed = parsePipelineLayout(p.pipelineLayout, error);
    if (!parsed)
        return field + error;
    const std::string problem = pipelineLayoutProblem(*parsed, layers, mtpLayers, p.pp, p.pp * chunksOf(p));
    return problem.empty() ? problem : field + problem;
}
} // namespace

std::string pipelineSplitProblem(int layers, const ParallelConfig& p, int mtpLayers)
{
    if (!hasUnevenSplit(p))
        return {};
    if (!p.pipelineLayout.empty())
        return customLayoutProblem(layers, p, mtpLayers);
    const bool counts = p.firstStageLayers > 0 || p.lastStageLayers > 0;
    const std::string field = p.firstStageLayers > 0 ? "parallel.first_stage_layers"
        : p.lastStageLayers > 0                      ? "parallel.last_stage_layers"
        : p.accountForEmbedding                      ? "parallel.account_for_embedding"
                                                     : "parallel.account_for_loss";
    if (p.pp <= 1)
        return field + ": an uneven pipeline split needs pp > 1: remove it or raise pp";
    if (!firstAndLastStagesOnEndRanks(p.schedule)) {
        // A V schedule puts the first and the last model stage on one rank: first/last count model stages
        // (Parallax's reading; DualPipe is DeepSeek's, and Megatron-Core states such placements with
        // --pipeline-model-parallel-layout), the embedding and loss accounting does not apply.
        if (!counts)
            return field + ": schedule " + toString(p.schedule)
                + " places the first and last model stages on one rank, so the embedding / loss accounting "
                  "does not apply: set first_stage_layers / last_stage_layers (layers of the first and last "
                  "model stage) instead";
        const int stages = vStages(p.schedule, p.pp);
        if (vMiddleLayers(layers, stages, p.firstStageLayers, p.lastStageLayers) == 0)
            return field + ": the " + str(layers - p.firstStageLayers - p.lastStageLayers)
                + " layers left after first_stage_layers=" + str(p.firstStageLayers)
                + " and last_stage_layers=" + str(p.lastStageLayers) + " do not split evenly over the "
                + str(stages - (p.firstStageLayers > 0) - (p.lastStageLayers > 0)) + " other model stages of "
                + toString(p.schedule) + ": choose counts that leave a positive multiple of that many layers";
        return {};
    }
    // Megatron-Core rejects the two forms together (TransformerConfig.__post_init__).
    if (counts && (p.accountForEmbedding || p.accountForLoss))
        return field
            + ": first_stage_layers / last_stage_layers and account_for_embedding / account_for_loss "
              "exclude each other (Megatron-Core): keep one form";
    const int chunks = chunksOf(p);
    if (counts) {
        const int middleRanks = p.pp - (p.firstStageLayers > 0) - (p.lastStageLayers > 0);
        const std::vector<int> ranks = firstLastRankCounts(layers, p.pp, p.firstStageLayers, p.lastStageLayers);
        if (ranks.empty())
            return field + ": the " + str(layers - p.firstStageLayers - p.lastStageLayers)
                + " layers left after first_stage_layers=" + str(p.firstStageLayers)
                + " and last_stage_layers=" + str(p.lastStageLayers) + " do not split evenly over the "
                + str(middleRanks) + " other pipeline ranks: choose counts that leave a multiple of "
                + str(std::max(1, middleRanks)) + " layers";
        for (int r = 0; r < p.pp; ++r) {
            if (ranks[r] % chunks != 0)
                return field + ": pipeline rank " + str(r) + " holds " + str(ranks[r])
                    + " layers, not a multiple of vpp=" + str(chunks) + " (Megatron splits each rank's layers "
                    + "evenly over its virtual stages): choose layer counts divisible by " + str(chunks);
        }
        return {};
    }
    const int total = layers + p.accountForEmbedding + p.accountForLoss;
    const int stages = p.pp * chunks;
    if (total % stages != 0)
        return field + ": layers=" + str(layers) + " plus the embedding/loss counted as layers makes " + str(total)
            + ", not a multiple of the " + str(stages) + " model stages: change pp, vpp or the account_for switches";
    return {};
}

std::optional<PipelineLayoutStages> customLayoutStages(int layers, const ScheduleShape& shape, const ParallelConfig& p)
{
    // Virtual stage k is Megatron's model chunk k / pp of rank k % pp: modelStageOf's numbering. Its other
    // rules (embedding, loss, MTP placement) are validateScenario's; the counts are what the engine needs.
    if (p.pipelineLayout.empty())
        return std::nullopt;
    std::string error;
    std::optional<PipelineLayoutStages> l = parsePipelineLayout(p.pipelineLayout, error);
    if (!l || shape.ranks != p.pp || l->stages() != modelStageCount(shape) || l->transformerLayers() != layers)
        return std::nullopt;
    return l;
}

std::vector<int> unevenStageLayerCounts(int layers, const ScheduleShape& shape, const ParallelConfig& p)
{
    if (!p.pipelineLayout.empty()) {
        const std::optional<PipelineLayoutStages> l = customLayoutStages(layers, shape, p);
        return l ? l->layers : std::vector<int> {};
    }
    if (!hasUnevenSplit(p) || !pipelineSplitProblem(layers, p).empty() || shape.ranks != p.pp)
        return {};
    const int chunks = shape.kind == ScheduleKind::Interleaved1F1B ? std::max(1, shape.virtualStages) : 1;
    const int stages = modelStageCount(shape);
    std::vector<int> perStage(stages, 0);
    if (!firstAndLastStagesOnEndRanks(shape.kind)) {
        const int middle = vMiddleLayers(layers, stages, p.firstStageLayers, p.lastStageLayers);
        std::fill(perStage.begin(), perStage.end(), middle);
        if (p.firstStageLayers > 0)
            perStage.front() = p.firstStageLayers;
        if (p.lastStageLayers > 0)
            perStage.back() = p.lastStageLayers;
    } else if (p.firstStageLayers > 0 || p.lastStageLayers > 0) {
        const std::vector<int> ranks = firstLastRankCounts(layers, p.pp, p.firstStageLayers, p.lastStageLayers);
        for (int r = 0; r < p.pp; ++r) {
            for (int c = 0; c < chunks; ++c)
                perStage[modelStageOf(shape, r, c)] = ranks[r] / chunks;
        }
    } else {
        // The embedding sits in the first model stage and the loss in the last one
        // (transformer_block.py: the offset of every later stage drops by one).
        const int each = (layers + p.accountForEmbedding + p.accountForLoss) / stages;
        std::fill(perStage.begin(), perStage.end(), each);
        perStage.front() -= p.accountForEmbedding;
        perStage.back() -= p.accountForLoss;
    }
    return perStage;
}

namespace {
// The first/last pair with the lightest heaviest rank: worstOf(first, last) gives that rank's layers (the
// head counted as headLayerEquivalents), negative for a pair the rules reject. The even split's heaviest
// rank, as StageLayout places it, is the bar; ties go to fewer switches set, then to the counts nearest the
// even split.
template <class WorstOf>
StageSplit bestSplit(int layers, const ScheduleShape& shape, double headLayerEquivalents, WorstOf&& worstOf)
{
    const int stages = modelStageCount(shape);
    const StageLayout evenLayout(layers, stages);
    double bestWorst = 0;
    for (int r = 0; r < shape.ranks; ++r) {
        double rankLayers = rankHoldsStage(shape, r, stages - 1) ? headLayerEquivalents : 0.0;
        for (int c = 0; c < chunksPerRank(shape); ++c)
            rankLayers += evenLayout.layerCount(modelStageOf(shape, r, c));
        bestWorst = std::max(bestWorst, rankLayers);
    }
    const int evenBase = layers / (firstAndLastStagesOnEndRanks(shape.kind) ? shape.ranks : stages);
    StageSplit best;
    std::pair<int, int> bestSimplicity { 0, 0 }; // the even split: no switch set
    for (int first = 0; first <= layers; ++first) {
        for (int last = 0; last <= layers - first; ++last) {
            if (first == 0 && last == 0)
                continue;
            const double worst = worstOf(first, last);
            if (worst < 0)
                continue;
            const std::pair<int, int> simplicity { (first > 0) + (last > 0),
                (first > 0 ? std::abs(first - evenBase) : 0) + (last > 0 ? std::abs(last - evenBase) : 0) };
            if (worst < bestWorst - 1e-9 || (std::abs(worst - bestWorst) <= 1e-9 && simplicity < bestSimplicity)) {
                bestWorst = worst;
                best = { first, last };
                bestSimplicity = simplicity;
            }
        }
    }
    return best;
}
} // namespace

StageSplit balancedPipelineSplit(int layers, int pp, int vpp, ScheduleKind kind, double headLayerEquivalents)
{
    if (pp <= 1)
        return {};
    if (!firstAndLastStagesOnEndRanks(kind)) {
        // V schedules: rank 0 (and DualPipe's rank pp-1) runs the first and the last model stage, the head with
        // the last; every other rank two middle stages.
        const int stages = vStages(kind, pp);
        if (layers < stages)
            return {};
        return bestSplit(layers, ScheduleShape { kind, pp, pp, 1 }, headLayerEquivalents, [&](int first, int last) {
            const int middle = vMiddleLayers(layers, stages, first, last);
            if (middle == 0)
                return -1.0;
            const double ends = (first > 0 ? first : middle) + (last > 0 ? last : middle) + headLayerEquivalents;
            return std::max(ends, 2.0 * middle);
        });
    }
    if (layers < pp)
        return {};
    const int chunks = kind == ScheduleKind::Interleaved1F1B ? std::max(1, vpp) : 1;
    return bestSplit(layers, ScheduleShape { kind, pp, pp, chunks }, headLayerEquivalents, [&](int first, int last) {
        // firstLastRankCounts' ranks without building them (a search asks for every pipeline shape):
        // rank 0 holds `first` (or the middle count), rank pp-1 `last` (or the middle count).
        const int middleRanks = pp - (first > 0) - (last > 0);
        const int rest = layers - first - last;
        if (middleRanks < 0 || (middleRanks == 0 && rest != 0) || (middleRanks > 0 && rest % middleRanks != 0))
            return -1.0;
        const int middle = middleRanks > 0 ? rest / middleRanks : 0;
        if (middleRanks > 0 && middle == 0)
            return -1.0;
        const int rank0 = first > 0 ? first : middle;
        const int rankLast = last > 0 ? last : middle;
        const bool divides = rank0 % chunks == 0 && rank0 > 0 && rankLast % chunks == 0 && rankLast > 0
            && (middleRanks == 0 || middle % chunks == 0);
        if (!divides)
            return -1.0;
        double worst = std::max<double>(rank0, rankLast + headLayerEquivalents);
        if (middleRanks > 0)
            worst = std::max<double>(worst, middle);
        return worst;
    });
}

double lmHeadLayerEquivalents(const ModelSpec& m, int seqLen)
{
    const double layersFlops
        = sumOverLayers(m, 0, m.layers, 0.0, [&](int l) { return layerForwardFlopsPerToken(m, l, seqLen); });
    if (layersFlops <= 0 || m.layers <= 0)
        return 0;
    // Logits GEMM 2 h V per token (arXiv:2104.04473 eq. 3) and the multi-token-prediction depths that share
    // the last stage with it (mtpForwardFlopsPerToken) against the mean layer's forward FLOPs.
    return (lmHeadForwardFlopsPerToken(m) + m.mtpLayers * mtpForwardFlopsPerToken(m, seqLen))
        / (layersFlops / m.layers);
}

} // namespace parallax::core
