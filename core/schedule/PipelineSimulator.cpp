#include "core/schedule/PipelineSimulator.h"

#include <algorithm>
#include <cstddef>
#include <vector>

namespace parallax::core {

namespace {

constexpr double kNotDone = -1.0;

struct OpCost {
    double forward = 1;
    double backwardInput = 1;
    double backwardWeight = 1;
    double backward = 2;
    double forwardBackward = -1;
    double exposedComm = 0;
    double forwardComm = 0;
    double backwardComm = 0;
    double activation = 1;
    double wPending = 0;
};

// The simulation is a max-plus evaluation of the dependency graph: an op starts at the later of its
// rank's previous op end and its inputs' arrival. Ranks run their programs until an input is
// missing, park on that input, and are woken when it completes, so each op is evaluated once:
// O(total ops) time, O(micro-batches x stages) memory.
class Simulator {
public:
    Simulator(const SimulationInput& input, const std::vector<RankProgram>& programs)
        : shape_(input.shape)
        , programs_(programs)
        , ranks_(input.shape.ranks)
        , chunks_(chunksPerRank(input.shape))
        , stages_(modelStageCount(input.shape))
        , directions_(directionCount(input.shape))
        , microbatches_(input.shape.microbatches)
    {
        costs_.resize(static_cast<std::size_t>(ranks_) * chunks_);
        stageOf_.resize(costs_.size());
        for (int r = 0; r < ranks_; ++r) {
            for (int c = 0; c < chunks_; ++c) {
                OpCost& cost = costs_[index(r, c)];
                if (r < static_cast<int>(input.durations.size()) && c < static_cast<int>(input.durations[r].size())) {
                    const ChunkDurations& d = input.durations[r][c];
                    cost.forward = std::max(0.0, d.forward);
                    cost.backwardInput = std::max(0.0, d.backwardInput);
                    cost.backwardWeight = std::max(0.0, d.backwardWeight);
                    cost.backward = cost.backwardInput + cost.backwardWeight;
                    cost.forwardBackward = d.forwardBackward;
                    cost.exposedComm = std::max(0.0, d.overlapExposedComm);
                    cost.forwardComm = std::max(0.0, d.forwardComm);
                    cost.backwardComm = std::max(0.0, d.backwardComm);
                }
                cost.activation = weightAt(input.activationWeight, r, c, 1.0);
                cost.wPending = weightAt(input.wPendingWeight, r, c, 0.0);
                stageOf_[index(r, c)] = modelStageOf(shape_, r, c);
            }
        }
        producerRank_.resize(static_cast<std::size_t>(directions_) * stages_);
        for (int d = 0; d < directions_; ++d)
            for (int s = 0; s < stages_; ++s)
                producerRank_[static_cast<std::size_t>(d) * stages_ + s] = rankOfStage(shape_, s, d);
        p2p_.assign(static_cast<std::size_t>(ranks_) * ranks_, 0.0);
        for (int from = 0; from < ranks_ && from < static_cast<int>(input.p2pSeconds.size()); ++from)
            for (int to = 0; to < ranks_ && to < static_cast<int>(input.p2pSeconds[from].size()); ++to)
                if (from != to)
                    p2p_[index(from, to, ranks_)] = std::max(0.0, input.p2pSeconds[from][to]);
        const std::size_t keys = static_cast<std::size_t>(directions_) * microbatches_ * stages_;
        forwardEnd_.assign(keys, kNotDone);
        backwardEnd_.assign(keys, kNotDone);
        forwardWaiters_.assign(keys, -1);
        backwardWaiters_.assign(keys, -1);
        nextWaiter_.assign(ranks_, -1);
    }

    SimulationResult run()
    {
        SimulationResult result;
        if (static_cast<int>(programs_.size()) != ranks_ || ranks_ < 1 || microbatches_ < 1) {
            result.deadlock = true;
            return result;
        }
        std::vector<std::size_t> offset(ranks_ + 1, 0);
        for (int r = 0; r < ranks_; ++r)
            offset[r + 1] = offset[r] + programs_[r].size();
        result.ops.resize(offset[ranks_]);
        pc_.assign(ranks_, 0);
        free_.assign(ranks_, 0.0);
        firstStart_.assign(ranks_, 0.0);
        busy_.assign(ranks_, 0.0);
        inflight_.assign(ranks_, 0.0);
        inflightChunks_.assign(ranks_, 0);
        result.peakInflightWeight.assign(ranks_, 0.0);
        result.peakInflightChunks.assign(ranks_, 0);

        std::vector<int> ready(ranks_);
        for (int r = 0; r < ranks_; ++r)
            ready[r] = ranks_ - 1 - r;
        while (!ready.empty()) {
            const int r = ready.back();
            ready.pop_back();
            advance(r, result, offset[r], ready);
        }

        result.makespan = 0;
        for (int r = 0; r < ranks_; ++r) {
            if (pc_[r] < programs_[r].size())
                result.deadlock = true;
            result.makespan = std::max(result.makespan, free_[r]);
        }
        if (result.deadlock) {
            std::vector<TimedOp> ran;
            for (int r = 0; r < ranks_; ++r)
                ran.insert(ran.end(), result.ops.begin() + offset[r], result.ops.begin() + offset[r] + pc_[r]);
            result.ops = std::move(ran);
        }
        summarize(result);
        return result;
    }

private:
    std::size_t index(int a, int b, int width) const { return static_cast<std::size_t>(a) * width + b; }
    std::size_t index(int rank, int chunk) const { return index(rank, chunk, chunks_); }
    std::size_t key(int direction, int microbatch, int stage) const
    {
        return (static_cast<std::size_t>(direction) * microbatches_ + microbatch) * stages_ + stage;
    }

    static double weightAt(const std::vector<std::vector<double>>& table, int r, int c, double fallback)
    {
        if (r < static_cast<int>(table.size()) && c < static_cast<int>(table[r].size()))
            return table[r][c];
        return fallback;
    }

    bool valid(int microbatch, int chunk, int direction) const
    {
        return microbatch >= 0 && microbatch < microbatches_ && chunk >= 0 && chunk < chunks_ && direction >= 0
            && direction < directions_;
    }

    // Arrival time of the input a forward of (direction, microbatch, stage) on `rank` needs, or
    // kNotDone after parking the rank on it.
    double forwardInput(int rank, int direction, int microbatch, int stage)
    {
        if (stage == 0)
            return 0;
        const std::size_t k = key(direction, microbatch, stage - 1);
        if (forwardEnd_[k] < 0)
            return park(rank, forwardWaiters_[k]);
        const int from = producerRank_[static_cast<std::size_t>(direction) * stages_ + stage - 1];
        return forwardEnd_[k] + p2p_[index(from, rank, ranks_)];
    }

    // The last stage's backward starts from its own forward (the loss); the others from the
    // gradient the next stage's backward sends.
    double backwardInput(int rank, int direction, int microbatch, int stage)
    {
        if (stage == stages_ - 1) {
            const std::size_t k = key(direction, microbatch, stage);
            return forwardEnd_[k] < 0 ? park(rank, forwardWaiters_[k]) : forwardEnd_[k];
        }
        const std::size_t k = key(direction, microbatch, stage + 1);
        if (backwardEnd_[k] < 0)
            return park(rank, backwardWaiters_[k]);
        const int from = producerRank_[static_cast<std::size_t>(direction) * stages_ + stage + 1];
        return backwardEnd_[k] + p2p_[index(from, rank, ranks_)];
    }

    double park(int rank, int& head)
    {
        nextWaiter_[rank] = head;
        head = rank;
        return kNotDone;
    }

    void wake(int& head, std::vector<int>& ready)
    {
        for (int r = head; r >= 0;) {
            const int next = nextWaiter_[r];
            ready.push_back(r);
            r = next;
        }
        head = -1;
    }

    void finishForward(std::size_t k, double end, std::vector<int>& ready)
    {
        forwardEnd_[k] = end;
        if (forwardWaiters_[k] >= 0)
            wake(forwardWaiters_[k], ready);
    }

    void finishBackward(std::size_t k, double end, std::vector<int>& ready)
    {
        backwardEnd_[k] = end;
        if (backwardWaiters_[k] >= 0)
            wake(backwardWaiters_[k], ready);
    }

    void advance(int r, SimulationResult& result, std::size_t base, std::vector<int>& ready)
    {
        const RankProgram& program = programs_[r];
        std::size_t pc = pc_[r];
        double free = free_[r];
        double busy = busy_[r];
        double inflight = inflight_[r];
        int inflightChunks = inflightChunks_[r];
        double& peak = result.peakInflightWeight[r];
        int& peakChunks = result.peakInflightChunks[r];
        for (; pc < program.size(); ++pc) {
            const PipelineOp& op = program[pc];
            if (!valid(op.microbatch, op.chunk, op.direction))
                break;
            const std::size_t rc = index(r, op.chunk);
            const OpCost& cost = costs_[rc];
            const int stage = stageOf_[rc];
            const std::size_t k = key(op.direction, op.microbatch, stage);
            double inputAt = 0;
            double duration = 0;
            switch (op.kind) {
            case OpKind::Forward:
                inputAt = forwardInput(r, op.direction, op.microbatch, stage);
                duration = cost.forward;
                break;
            case OpKind::Backward:
                inputAt = backwardInput(r, op.direction, op.microbatch, stage);
                duration = cost.backward;
                break;
            case OpKind::BackwardInput:
                inputAt = backwardInput(r, op.direction, op.microbatch, stage);
                duration = cost.backwardInput;
                break;
            case OpKind::BackwardWeight:
                inputAt = backwardEnd_[k] < 0 ? park(r, backwardWaiters_[k]) : backwardEnd_[k];
                duration = cost.backwardWeight;
                break;
            case OpKind::ForwardBackward: {
                if (!valid(op.microbatch2, op.chunk2, op.direction2))
                    inputAt = kNotDone;
                else {
                    inputAt = forwardInput(r, op.direction, op.microbatch, stage);
                    if (inputAt >= 0) {
                        const double gradAt
                            = backwardInput(r, op.direction2, op.microbatch2, stageOf_[index(r, op.chunk2)]);
                        inputAt = gradAt < 0 ? kNotDone : std::max(inputAt, gradAt);
                    }
                }
                if (inputAt >= 0) {
                    const OpCost& other = costs_[index(r, op.chunk2)];
                    duration = cost.forwardBackward >= 0 ? cost.forwardBackward
                                                         : std::max(cost.forward, other.backward) + cost.exposedComm;
                }
                break;
            }
            }
            if (inputAt < 0)
                break;
            const double start = std::max(free, inputAt);
            const double end = start + duration;
            if (pc == 0)
                firstStart_[r] = start;
            free = end;
            busy += duration;
            const double comm = op.kind == OpKind::Forward                        ? cost.forwardComm
                : op.kind == OpKind::Backward || op.kind == OpKind::BackwardInput ? cost.backwardComm
                : op.kind == OpKind::ForwardBackward                              ? cost.exposedComm
                                                                                  : 0.0;
            result.ops[base + pc] = { r, op.kind, op.microbatch, op.chunk, op.direction, op.microbatch2, op.chunk2,
                op.direction2, start, end, std::min(comm, duration) };
            switch (op.kind) {
            case OpKind::Forward:
                inflight += cost.activation;
                ++inflightChunks;
                finishForward(k, end, ready);
                break;
            case OpKind::Backward:
                inflight -= cost.activation;
                --inflightChunks;
                finishBackward(k, end, ready);
                break;
            case OpKind::BackwardInput:
                inflight += cost.wPending - cost.activation;
                --inflightChunks;
                finishBackward(k, end, ready);
                break;
            case OpKind::BackwardWeight:
                inflight -= cost.wPending;
                break;
            case OpKind::ForwardBackward: {
                const std::size_t rc2 = index(r, op.chunk2);
                inflight += cost.activation - costs_[rc2].activation;
                finishForward(k, end, ready);
                finishBackward(key(op.direction2, op.microbatch2, stageOf_[rc2]), end, ready);
                break;
            }
            }
            peak = std::max(peak, inflight);
            peakChunks = std::max(peakChunks, inflightChunks);
        }
        pc_[r] = pc;
        free_[r] = free;
        busy_[r] = busy;
        inflight_[r] = inflight;
        inflightChunks_[r] = inflightChunks;
    }

    void summarize(SimulationResult& result) const
    {
        result.busySecondsPerRank = busy_;
        result.bubbleFractionPerRank.assign(ranks_, 0.0);
        result.spanSecondsPerRank.assign(ranks_, 0.0);
        result.parameterCopies.assign(ranks_, parameterCopies(shape_));
        double idle = 0;
        for (int r = 0; r < ranks_; ++r) {
            if (result.makespan > 0)
                result.bubbleFractionPerRank[r] = (result.makespan - busy_[r]) / result.makespan;
            idle += result.makespan - busy_[r];
            if (pc_[r] > 0)
                result.spanSecondsPerRank[r] = free_[r] - firstStart_[r];
        }
        if (result.makespan > 0)
            result.bubbleFraction = idle / (ranks_ * result.makespan);
    }

    const ScheduleShape& shape_;
    const std::vector<RankProgram>& programs_;
    int ranks_;
    int chunks_;
    int stages_;
    int directions_;
    int microbatches_;
    std::vector<OpCost> costs_; // [rank][chunk]
    std::vector<int> stageOf_; // [rank][chunk]
    std::vector<int> producerRank_; // [direction][stage]
    std::vector<double> p2p_; // [from][to]
    std::vector<double> forwardEnd_; // [direction][microbatch][stage]
    std::vector<double> backwardEnd_; // B or full backward end, same index
    std::vector<int> forwardWaiters_; // first rank parked on that forward, chained by nextWaiter_
    std::vector<int> backwardWaiters_;
    std::vector<int> nextWaiter_;
    std::vector<std::size_t> pc_;
    std::vector<double> free_;
    std::vector<double> firstStart_;
    std::vector<double> busy_;
    std::vector<double> inflight_;
    std::vector<int> inflightChunks_;
};

} // namespace

SimulationResult simulate(const SimulationInput& input, const std::vector<RankProgram>& programs)
{
    return Simulator(input, programs).run();
}

SimulationResult simulate(const SimulationInput& input)
{
    if (!checkShape(input.shape).empty()) {
        SimulationResult result;
        result.deadlock = true;
        return result;
    }
    return simulate(input, generateSchedule(input.shape));
}

} // namespace parallax::core
