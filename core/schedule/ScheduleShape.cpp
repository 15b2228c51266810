// SPDX-License-Identifier: Apache-2.0
#include "core/schedule/PipelineSchedule.h"
#include "core/schedule/ScheduleGenerators.h"

#include <string>

namespace parallax::core {

const char* toString(OpKind k)
{
    switch (k) {
    case OpKind::Forward:
        return "F";
    case OpKind::Backward:
    case OpKind::BackwardInput:
        return "B";
    case OpKind::BackwardWeight:
        return "W";
    case OpKind::ForwardBackward:
        return "F&B";
    }
    return "?";
}

const char* longName(OpKind k)
{
    switch (k) {
    case OpKind::Forward:
        return "forward";
    case OpKind::Backward:
        return "backward";
    case OpKind::BackwardInput:
        return "backward-input";
    case OpKind::BackwardWeight:
        return "backward-weight";
    case OpKind::ForwardBackward:
        return "forward+backward";
    }
    return "?";
}

namespace {

bool isVShaped(ScheduleKind k)
{
    return k == ScheduleKind::ZbV || k == ScheduleKind::DualPipeV;
}

} // namespace

int chunksPerRank(const ScheduleShape& s)
{
    switch (s.kind) {
    case ScheduleKind::Interleaved1F1B:
        return s.virtualStages;
    case ScheduleKind::ZbV:
    case ScheduleKind::DualPipe:
    case ScheduleKind::DualPipeV:
        return 2;
    default:
        return 1;
    }
}

int modelStageCount(const ScheduleShape& s)
{
    if (s.kind == ScheduleKind::Interleaved1F1B)
        return s.ranks * s.virtualStages;
    return isVShaped(s.kind) ? 2 * s.ranks : s.ranks;
}

int modelStageOf(const ScheduleShape& s, int rank, int chunk)
{
    switch (s.kind) {
    case ScheduleKind::Interleaved1F1B:
        return chunk * s.ranks + rank;
    case ScheduleKind::ZbV:
    case ScheduleKind::DualPipeV:
        return chunk == 0 ? rank : 2 * s.ranks - 1 - rank;
    case ScheduleKind::DualPipe:
        return chunk == 0 ? rank : s.ranks - 1 - rank;
    default:
        return rank;
    }
}

bool rankHoldsStage(const ScheduleShape& s, int rank, int stage)
{
    for (int c = 0; c < chunksPerRank(s); ++c)
        if (modelStageOf(s, rank, c) == stage)
            return true;
    return false;
}

int rankOfStage(const ScheduleShape& s, int stage, int direction)
{
    switch (s.kind) {
    case ScheduleKind::Interleaved1F1B:
        return stage % s.ranks;
    case ScheduleKind::ZbV:
    case ScheduleKind::DualPipeV:
        return stage < s.ranks ? stage : 2 * s.ranks - 1 - stage;
    case ScheduleKind::DualPipe:
        return direction == 0 ? stage : s.ranks - 1 - stage;
    default:
        return stage;
    }
}

// DualPipe keeps stage i and stage p-1-i on rank i: the parameters are held twice
// (arXiv:2412.19437 Table 2). DualPipeV places 2p distinct stages, one copy each.
int parameterCopies(const ScheduleShape& s)
{
    return s.kind == ScheduleKind::DualPipe ? 2 : 1;
}

int directionCount(const ScheduleShape& s)
{
    return s.kind == ScheduleKind::DualPipe ? 2 : 1;
}

std::string vppScheduleProblem(ScheduleKind kind, int vpp)
{
    if (vpp <= 1 || kind == ScheduleKind::Interleaved1F1B)
        return {};
    return "parallel.vpp: vpp=" + std::to_string(vpp) + " needs schedule interleaved-1f1b (" + toString(kind)
        + " places its own chunks): set vpp=1 or schedule=interleaved-1f1b";
}

std::string checkShape(const ScheduleShape& s)
{
    const std::string p = std::to_string(s.ranks);
    const std::string m = std::to_string(s.microbatches);
    if (s.ranks < 1)
        return "parallel.pp: needs at least 1 pipeline rank, got " + p;
    if (s.microbatches < 1)
        return "training.global_batch / micro-batches: needs at least 1 micro-batch per pipeline, got " + m;
    if (s.virtualStages < 1)
        return "parallel.vpp: needs at least 1 virtual stage per rank, got " + std::to_string(s.virtualStages);
    if (chunksPerRank(s) > kMaxChunksPerRank)
        return "parallel.vpp: at most " + std::to_string(kMaxChunksPerRank) + " virtual stages per rank, got "
            + std::to_string(s.virtualStages);
    if (std::string problem = vppScheduleProblem(s.kind, s.virtualStages); !problem.empty())
        return problem;
    switch (s.kind) {
    case ScheduleKind::Interleaved1F1B:
        // Megatron-LM's interleaved order groups micro-batches p at a time (arXiv:2104.04473 sec 2.2.2).
        if (s.virtualStages > 1 && s.microbatches % s.ranks != 0)
            return "training.global_batch / micro-batches: interleaved 1F1B needs a multiple of pp=" + p
                + " micro-batches, got " + m;
        break;
    case ScheduleKind::DualPipe:
        if (s.ranks % 2 != 0)
            return "parallel.pp: DualPipe needs an even number of pipeline ranks, got " + p;
        if (s.microbatches % 2 != 0 || s.microbatches < 2 * s.ranks)
            return "training.global_batch / micro-batches: DualPipe needs an even number of micro-batches, at "
                   "least 2 x pp = "
                + std::to_string(2 * s.ranks) + ", got " + m;
        break;
    case ScheduleKind::DualPipeV:
        if (s.microbatches < 2 * s.ranks)
            return "training.global_batch / micro-batches: DualPipeV needs at least 2 x pp = "
                + std::to_string(2 * s.ranks) + " micro-batches, got " + m;
        break;
    default:
        break;
    }
    return {};
}

std::vector<RankProgram> generateSchedule(const ScheduleShape& s)
{
    switch (s.kind) {
    case ScheduleKind::GPipe:
        return generateGPipe(s);
    case ScheduleKind::OneFOneB:
        return generateOneFOneB(s);
    case ScheduleKind::Interleaved1F1B:
        return generateInterleaved(s);
    case ScheduleKind::ZbH1:
        return generateZbH1(s);
    case ScheduleKind::ZbH2:
        return generateZbH2(s);
    case ScheduleKind::ZbV:
        return generateZbV(s);
    case ScheduleKind::DualPipe:
        return generateDualPipe(s);
    case ScheduleKind::DualPipeV:
        return generateDualPipeV(s);
    }
    return {};
}

} // namespace parallax::core
