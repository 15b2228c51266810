// SPDX-License-Identifier: Apache-2.0
#include "core/schedule/PipelineSimulator.h"
#include "core/schedule/SimulationPlan.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <vector>

namespace parallax::core {

namespace {

using KindPlan = SimulationPlan::KindPlan;

constexpr std::uint32_t kOverlapped = 0x80000000u; // CompiledOp::plan: index into overlapped_ instead

// One dependency slot: the end time of one (direction, stage, micro-batch)'s F or B once it is done
// (>= 0), else a negative code for "not done" that also names the first rank parked on it, so
// that completing a slot and checking for waiters is one 8-byte access.
constexpr double kNobodyWaits = -1.0;

// How far ahead of a woken rank's program counter to prefetch: one 64-byte line of CompiledOps.
constexpr std::size_t kPrefetchOps = 8;
// How many ops ahead to prefetch the two dependency slots of: each op's output slot is a cache miss
// (the slots, 8 bytes per micro-batch and stage, outgrow L2).
constexpr std::size_t kSlotPrefetchOps = 2;
double parkedCode(int rank)
{
    return -2.0 - rank;
}
int parkedRank(double code)
{
    return static_cast<int>(-2.0 - code);
}

// One op with its dependency resolved: the slot it waits for and its plan. The slot it completes is
// `input + plan.outputOffset`. No member initialisers: the array is written before it is read.
struct CompiledOp {
    std::uint32_t input;
    std::uint32_t plan;
};

// An overlapped F&B pair: the forward half's input and plan, the backward half's.
struct OverlappedOp {
    std::uint32_t activationInput = 0;
    std::uint32_t forwardPlan = 0;
    std::uint32_t gradientInput = 0;
    std::uint32_t backwardPlan = 0;
    int rank = 0, chunk = 0, chunk2 = 0; // what its duration is computed from (SimulationPlan::overlappedDuration)
    double duration = 0;
    double inflightDelta = 0; // the forward half's activation stored, the backward half's freed
};

// What compileRank found: the number of runnable ops (compilation stops at the first op naming a
// micro-batch, chunk, direction or kind outside the shape: the rank can never run it), and whether
// every runnable op but the overlapped pairs leaves its second half at the default (-1), so that its
// TimedOp can be written from its plan alone (every generated program; a hand-written one may not).
struct CompiledRank {
    std::size_t runnable = 0;
    bool plain = true;
};

// A shape's programs compiled against its plan's slot layout. The slots an op waits for and completes
// and its plan index depend on the shape only (SimulationPlan: blocks per direction and stage), never on
// the durations, so simulate(input) compiles a cached shape's programs once; only the overlapped pairs'
// durations are filled in per run.
struct CompiledPrograms {
    bool usable = false;
    std::vector<CompiledOp> code; // [rank][op]
    std::vector<std::size_t> begin; // per rank: its first op in `code`
    std::vector<CompiledRank> ranks; // per rank: its runnable ops, and whether they are plain
    std::vector<OverlappedOp> overlapped; // durations left at 0
};

// Compiles rank r's program into `code` (room for all its ops) and appends its overlapped pairs.
CompiledRank compileRank(const SimulationPlan& plan, const RankProgram& programOps, int r, CompiledOp* const code,
    std::vector<OverlappedOp>& overlapped)
{
    // Locals, not members: the stores below could otherwise alias them and force reloads.
    const PipelineOp* const program = programOps.data();
    const std::size_t count = programOps.size();
    const KindPlan* const kinds = plan.kinds();
    const std::uint32_t rankKinds = plan.kindIndex(r, 0, 0, OpKind::Forward);
    const unsigned microbatches = static_cast<unsigned>(plan.microbatches());
    const unsigned chunks = static_cast<unsigned>(plan.chunks());
    const unsigned directions = static_cast<unsigned>(plan.directions());
    std::size_t pc = 0;
    bool plain = true;
    for (; pc < count; ++pc) {
        const PipelineOp& op = program[pc];
        const unsigned kind = static_cast<unsigned>(op.kind);
        // Through int: a negative chunk or direction becomes a huge unsigned, outside the shape.
        const unsigned chunk = static_cast<unsigned>(int { op.chunk });
        const unsigned direction = static_cast<unsigned>(int { op.direction });
        if (static_cast<unsigned>(op.microbatch) >= microbatches || chunk >= chunks || direction >= directions)
            break;
        if (kind < SimulationPlan::kKinds) [[likely]] {
            const std::uint32_t index = rankKinds + (chunk * directions + direction) * SimulationPlan::kKinds + kind;
            code[pc] = { static_cast<std::uint32_t>(kinds[index].input + op.microbatch), index };
            // All three are -1 by default: their AND is -1 exactly when each is.
            plain = plain && (op.microbatch2 & op.chunk2 & op.direction2) == -1;
        } else if (op.kind == OpKind::ForwardBackward && plan.validOp(op.microbatch2, op.chunk2, op.direction2)) {
            OverlappedOp pair;
            pair.forwardPlan = plan.kindIndex(r, op.chunk, op.direction, OpKind::Forward);
            pair.activationInput = static_cast<std::uint32_t>(kinds[pair.forwardPlan].input + op.microbatch);
            pair.backwardPlan = plan.kindIndex(r, op.chunk2, op.direction2, OpKind::Backward);
            pair.gradientInput = static_cast<std::uint32_t>(kinds[pair.backwardPlan].input + op.microbatch2);
            pair.rank = r;
            pair.chunk = op.chunk;
            pair.chunk2 = op.chunk2;
            overlapped.push_back(pair);
            code[pc] = { 0, kOverlapped | static_cast<std::uint32_t>(overlapped.size() - 1) };
        } else {
            break;
        }
    }
    return { pc, plain };
}

CompiledPrograms compilePrograms(const ScheduleShape& shape, const std::vector<RankProgram>& programs)
{
    CompiledPrograms out;
    SimulationInput input;
    input.shape = shape;
    const SimulationPlan plan(input);
    if (!plan.usable() || static_cast<int>(programs.size()) != plan.ranks())
        return out;
    std::size_t total = 0;
    for (const RankProgram& program : programs)
        total += program.size();
    out.code.resize(total);
    total = 0;
    for (int r = 0; r < plan.ranks(); ++r) {
        out.begin.push_back(total);
        out.ranks.push_back(compileRank(plan, programs[r], r, out.code.data() + total, out.overlapped));
        total += programs[r].size();
    }
    out.usable = true;
    return out;
}

// Busy time and in-flight peaks of one rank, accumulated in program order.
struct RankTally {
    double busy = 0;
    double inflight = 0;
    double peak = 0;
    int inflightChunks = 0;
    int peakChunks = 0;

    void add(double duration, double inflightDelta, int inflightChunkDelta)
    {
        busy += duration;
        inflight += inflightDelta;
        inflightChunks += inflightChunkDelta;
        peak = std::max(peak, inflight);
        peakChunks = std::max(peakChunks, inflightChunks);
    }
};

// Where a rank stands in its program: all the run loop reads and writes per rank, so that a
// switch between ranks (every few ops once the pipeline is full) costs a few loads.
struct RankState {
    const CompiledOp* code = nullptr;
    double* starts = nullptr;
    std::size_t runnable = 0; // ops before the first one that names something outside the shape
    std::size_t pc = 0; // next op to run
    double free = 0; // end of the last op that ran
    int nextWaiter = -1; // next rank parked on the same slot
    bool plain = true; // CompiledRank::plain
    RankTally tally; // of the ops that ran, added as they run (program order)
};

// The simulation is a max-plus evaluation of the dependency graph: an op starts at the later of its
// rank's previous op end and its inputs' arrival. Three passes over flat arrays, no allocation per op:
// 1. compile: each rank's program into CompiledOps (dependency slot + plan index), in order;
// 2. run: ranks execute until an input is missing, park on that input, and are woken when it
//    completes, so each op is timed once (O(total ops); O(micro-batches x stages) slots). Only
//    start times are stored, 8 bytes per op, so the working set of 64 interleaved ranks stays in cache;
//    each rank's busy time and in-flight peaks, which depend on program order only, add up as it runs;
// 3. write: the TimedOps that ran, rank by rank, each written once and in order.
// The simulator's working arrays, kept between runs on a thread (simulate(input)): sized once for the
// largest shape, they are not allocated, and their pages not faulted in, again for every evaluation.
struct SimulatorScratch {
    std::vector<double> starts; // [rank][op] start times, written as the ops run
    std::vector<OverlappedOp> overlapped;
    std::vector<double> slots;
    std::vector<RankState> ranks;
    std::vector<int> ready;
};

class Simulator {
public:
    Simulator(const SimulationInput& input, const std::vector<RankProgram>& programs, SimulatorScratch& scratch,
        const CompiledPrograms* compiled = nullptr)
        : plan_(input)
        , shape_(input.shape)
        , programs_(programs)
        , compiled_(compiled && compiled->usable ? compiled : nullptr)
        , starts_(scratch.starts)
        , overlapped_(scratch.overlapped)
        , slots_(scratch.slots)
        , rank_(scratch.ranks)
        , ready_(scratch.ready)
    {
    }

    // Writes into `result`, whose vectors keep their capacity.
    void run(SimulationResult& result)
    {
        result.deadlock = false;
        result.makespan = 0;
        result.bubbleFraction = 0;
        result.ops.clear();
        if (!plan_.usable() || static_cast<int>(programs_.size()) != plan_.ranks()) {
            result.deadlock = true;
            return;
        }
        const int ranks = plan_.ranks();
        std::size_t total = 0;
        for (const RankProgram& program : programs_)
            total += program.size();
        if (starts_.size() < total)
            starts_.resize(total);
        overlapped_.clear();
        rank_.assign(ranks, RankState {});
        if (compiled_) {
            overlapped_ = compiled_->overlapped;
            for (int r = 0; r < ranks; ++r) {
                rank_[r].code = compiled_->code.data() + compiled_->begin[r];
                rank_[r].starts = starts_.data() + compiled_->begin[r];
                rank_[r].runnable = compiled_->ranks[r].runnable;
                rank_[r].plain = compiled_->ranks[r].plain;
            }
        } else {
            code_.reset(new CompiledOp[total]);
            total = 0;
            for (int r = 0; r < ranks; ++r) {
                rank_[r].code = code_.get() + total;
                rank_[r].starts = starts_.data() + total;
                const CompiledRank compiled = compileRank(plan_, programs_[r], r, code_.get() + total, overlapped_);
                rank_[r].runnable = compiled.runnable;
                rank_[r].plain = compiled.plain;
                total += programs_[r].size();
            }
        }
        for (OverlappedOp& pair : overlapped_) {
            pair.duration = plan_.overlappedDuration(pair.rank, pair.chunk, pair.chunk2);
            pair.inflightDelta
                = plan_.cost(pair.rank, pair.chunk).activation - plan_.cost(pair.rank, pair.chunk2).activation;
        }

        slots_.assign(plan_.slotCount(), kNobodyWaits);
        for (int d = 0; d < plan_.directions(); ++d)
            std::fill_n(slots_.begin() + static_cast<std::ptrdiff_t>(plan_.zeroBlock(d)), plan_.microbatches(), 0.0);
        // A rank is on the stack at most once: it is pushed when woken, and only a popped rank parks.
        ready_.resize(ranks);
        readySize_ = 0;
        for (int r = ranks - 1; r >= 0; --r)
            ready_[readySize_++] = r;
        while (readySize_ > 0)
            advance(ready_[--readySize_]);

        std::size_t ran = 0;
        for (int r = 0; r < ranks; ++r) {
            result.deadlock = result.deadlock || rank_[r].pc < programs_[r].size();
            result.makespan = std::max(result.makespan, rank_[r].free);
            ran += rank_[r].pc;
        }
        writeOps(result, ran);
        summarize(result);
    }

private:
    void park(int rank, double& slot)
    {
        rank_[rank].nextWaiter = slot == kNobodyWaits ? -1 : parkedRank(slot);
        slot = parkedCode(rank);
    }

    void complete(double& slot, double end)
    {
        const double before = slot;
        slot = end;
        if (before != kNobodyWaits) [[unlikely]]
            wake(before);
    }

    // `code` is a slot's value before it completed: ranks parked there, or a time when the slot was
    // already done (every W completes the sink), in which case nobody waits.
    void wake(double code)
    {
        if (code >= 0)
            return;
        for (int r = parkedRank(code); r >= 0; r = rank_[r].nextWaiter)
            ready_[readySize_++] = r;
    }

    // Waits for both halves' inputs and completes both; false when it parked.
    bool runOverlapped(int r, const OverlappedOp& pair, double& free, double& start, RankTally& tally)
    {
        const KindPlan& f = plan_.kinds()[pair.forwardPlan];
        const KindPlan& b = plan_.kinds()[pair.backwardPlan];
        double& activation = slots_[pair.activationInput];
        if (activation < 0) {
            park(r, activation);
            return false;
        }
        double& gradient = slots_[pair.gradientInput];
        if (gradient < 0) {
            park(r, gradient);
            return false;
        }
        start = std::max(free, std::max(activation + f.inputDelay, gradient + b.inputDelay));
        free = start + pair.duration;
        tally.add(pair.duration, pair.inflightDelta, 0);
        complete(slots_[pair.activationInput + f.outputOffset], free);
        complete(slots_[pair.gradientInput + b.outputOffset], free);
        return true;
    }

    // Runs rank r until an input is missing (it parks there) or its runnable ops are done.
    void advance(int r)
    {
        // Locals, not members: the slot and time stores could otherwise alias them and force reloads.
        RankState& state = rank_[r];
        const CompiledOp* const code = state.code;
        double* const starts = state.starts;
        const std::size_t runnable = state.runnable;
        const KindPlan* const kinds = plan_.kinds();
        double* const slots = slots_.data();
        std::size_t pc = state.pc;
        double free = state.free;
        // Added here, where its dependency chain overlaps the op timing's; a pass of its own after the
        // run waited on it, a ninth of the whole simulation (perf).
        RankTally tally = state.tally;
        // A rank runs a few ops per wake-up and 64 ranks interleave: too many streams for the hardware
        // prefetcher, so fetch the rank's next program and start-time lines while these ops run.
        const std::size_t ahead = std::min(pc + kPrefetchOps, runnable);
        __builtin_prefetch(code + ahead);
        __builtin_prefetch(starts + ahead, 1);
        for (; pc < runnable; ++pc) {
            const CompiledOp c = code[pc];
            if (c.plan & kOverlapped) [[unlikely]] {
                if (!runOverlapped(r, overlapped_[c.plan & ~kOverlapped], free, starts[pc], tally))
                    break;
                continue;
            }
            const KindPlan& k = kinds[c.plan];
            if (pc + kSlotPrefetchOps < runnable) {
                const CompiledOp n = code[pc + kSlotPrefetchOps];
                if (!(n.plan & kOverlapped)) {
                    __builtin_prefetch(slots + n.input);
                    __builtin_prefetch(slots + n.input + kinds[n.plan].outputOffset, 1);
                }
            }
            double& in = slots[c.input];
            if (in < 0) {
                park(r, in);
                break;
            }
            const double start = std::max(free, in + k.inputDelay);
            starts[pc] = start;
            free = start + k.duration;
            tally.add(k.duration, k.inflightDelta, k.inflightChunkDelta);
            complete(slots[c.input + k.outputOffset], free);
        }
        state.pc = pc;
        state.free = free;
        state.tally = tally;
    }

    // One rank's ops that ran, as TimedOps computed on the fly: vector::insert sizes the result from
    // the iterators' difference and constructs each element from operator*'s value, so every op is
    // written once, in place. Filling a resized vector instead wrote each line twice (value-initialised,
    // then assigned): a third of the simulation of 262,144 ops (perf, BM_Simulate/kind:2).
    class RankOps {
    public:
        using iterator_category = std::random_access_iterator_tag;
        using value_type = TimedOp;
        using difference_type = std::ptrdiff_t;
        using pointer = const TimedOp*;
        using reference = TimedOp; // a value: the iterator is only read once per element

        RankOps(const Simulator& sim, int rank, std::size_t pc)
            : sim_(&sim)
            , rank_(rank)
            , pc_(pc)
        {
        }
        TimedOp operator*() const { return sim_->timedOp(rank_, pc_); }
        RankOps& operator++()
        {
            ++pc_;
            return *this;
        }
        RankOps operator++(int)
        {
            RankOps before = *this;
            ++pc_;
            return before;
        }
        RankOps& operator--()
        {
            --pc_;
            return *this;
        }
        RankOps& operator+=(difference_type n)
        {
            pc_ += n;
            return *this;
        }
        difference_type operator-(const RankOps& other) const
        {
            return static_cast<difference_type>(pc_) - static_cast<difference_type>(other.pc_);
        }
        bool operator==(const RankOps& other) const { return pc_ == other.pc_; }

    private:
        const Simulator* sim_;
        int rank_;
        std::size_t pc_;
    };

    // The ops that ran (a prefix of each program), rank by rank in program order, which is start
    // order on a rank.
    void writeOps(SimulationResult& result, std::size_t ran)
    {
        std::vector<TimedOp>& ops = result.ops;
        ops.reserve(ran);
        for (int r = 0; r < plan_.ranks(); ++r)
            ops.insert(ops.end(), RankOps(*this, r, 0), RankOps(*this, r, rank_[r].pc));
    }

    // Rank r's op at pc. A plain rank's ops other than the overlapped pairs are written from their plan
    // entry and input slot, without reading the program.
    TimedOp timedOp(int r, std::size_t pc) const
    {
        const RankState& state = rank_[r];
        const CompiledOp c = state.code[pc];
        const double start = state.starts[pc];
        if (c.plan & kOverlapped) [[unlikely]] {
            const PipelineOp& op = programs_[r][pc];
            const double duration = overlapped_[c.plan & ~kOverlapped].duration;
            return fromProgram(r, op, start, duration, std::min(plan_.cost(r, op.chunk).exposedComm, duration));
        }
        const KindPlan& k = plan_.kinds()[c.plan];
        if (state.plain) [[likely]] {
            return TimedOp { r, k.kind, static_cast<int>(c.input - k.input), k.chunk, k.direction, -1, -1, -1, start,
                start + k.duration, k.comm };
        }
        return fromProgram(r, programs_[r][pc], start, k.duration, k.comm);
    }

    // An op that ran on rank r, named as its program names it.
    static TimedOp fromProgram(int r, const PipelineOp& op, double start, double duration, double comm)
    {
        return TimedOp { r, op.kind, op.microbatch, op.chunk, op.direction, op.microbatch2, op.chunk2, op.direction2,
            start, start + duration, comm };
    }

    void summarize(SimulationResult& result) const
    {
        const int ranks = plan_.ranks();
        result.busySecondsPerRank.assign(ranks, 0.0);
        result.peakInflightWeight.assign(ranks, 0.0);
        result.peakInflightChunks.assign(ranks, 0);
        result.bubbleFractionPerRank.assign(ranks, 0.0);
        result.spanSecondsPerRank.assign(ranks, 0.0);
        result.parameterCopies.assign(ranks, parameterCopies(shape_));
        double idle = 0;
        for (int r = 0; r < ranks; ++r) {
            const RankTally& tally = rank_[r].tally;
            const double busy = tally.busy;
            result.busySecondsPerRank[r] = busy;
            result.peakInflightWeight[r] = tally.peak;
            result.peakInflightChunks[r] = tally.peakChunks;
            if (result.makespan > 0)
                result.bubbleFractionPerRank[r] = (result.makespan - busy) / result.makespan;
            idle += result.makespan - busy;
            if (rank_[r].pc > 0)
                result.spanSecondsPerRank[r] = rank_[r].free - rank_[r].starts[0];
        }
        if (result.makespan > 0)
            result.bubbleFraction = idle / (ranks * result.makespan);
    }

    SimulationPlan plan_;
    const ScheduleShape& shape_;
    const std::vector<RankProgram>& programs_;
    const CompiledPrograms* compiled_; // the shape's programs compiled once (simulate(input)), or null
    std::unique_ptr<CompiledOp[]> code_; // [rank][op]: each rank's program, compiled here when compiled_ is null
    std::vector<double>& starts_; // SimulatorScratch's
    std::vector<OverlappedOp>& overlapped_;
    std::vector<double>& slots_;
    std::vector<RankState>& rank_;
    std::vector<int>& ready_;
    int readySize_ = 0;
};

} // namespace

SimulationResult simulate(const SimulationInput& input, const std::vector<RankProgram>& programs)
{
    SimulatorScratch scratch;
    SimulationResult result;
    Simulator(input, programs, scratch).run(result);
    return result;
}

namespace {
// The programs of the last few schedule shapes simulated on this thread, generated and compiled once.
// Successive evaluations mostly share their shape (the GUI's edits of anything but pp, micro-batches or
// the schedule; a search's candidates of one pipeline shape), and generating the programs was a seventh
// of a 1,536-op simulation, compiling them a tenth (callgrind of BM_Evaluate/simulate:1). Shapes of more
// ops than kMaxCachedOps are generated each time, so the cache stays below a few MB per thread.
class ProgramCache {
public:
    struct Entry {
        ScheduleShape shape;
        std::vector<RankProgram> programs;
        CompiledPrograms compiled;
        bool used = false;
    };
    const Entry& get(const ScheduleShape& shape)
    {
        for (const Entry& e : m_entries) {
            if (e.used && same(e.shape, shape))
                return e;
        }
        Entry& e = m_entries[m_next];
        m_next = (m_next + 1) % kEntries;
        e.used = false; // until the programs are in place (generating them may throw bad_alloc)
        e.programs = generateSchedule(shape);
        e.compiled = compilePrograms(shape, e.programs);
        e.shape = shape;
        e.used = true;
        return e;
    }
    static bool cacheable(const ScheduleShape& shape)
    {
        // An upper bound of every generator's op count: at most 3 ops (F, B, W) per micro-batch and chunk.
        return 3LL * shape.microbatches * chunksPerRank(shape) * shape.ranks <= kMaxCachedOps;
    }

private:
    static constexpr long long kMaxCachedOps = 65'536;
    static constexpr std::size_t kEntries = 4;
    static bool same(const ScheduleShape& a, const ScheduleShape& b)
    {
        return a.kind == b.kind && a.ranks == b.ranks && a.microbatches == b.microbatches
            && a.virtualStages == b.virtualStages;
    }
    std::array<Entry, kEntries> m_entries;
    std::size_t m_next = 0;
};
} // namespace

void simulate(const SimulationInput& input, SimulationResult& result)
{
    if (!checkShape(input.shape).empty()) {
        result = SimulationResult {};
        result.deadlock = true;
        return;
    }
    thread_local SimulatorScratch scratch;
    if (!ProgramCache::cacheable(input.shape)) {
        Simulator(input, generateSchedule(input.shape), scratch).run(result);
        return;
    }
    thread_local ProgramCache cache;
    const ProgramCache::Entry& e = cache.get(input.shape);
    Simulator(input, e.programs, scratch, &e.compiled).run(result);
}

SimulationResult simulate(const SimulationInput& input)
{
    SimulationResult result;
    simulate(input, result);
    return result;
}

} // namespace parallax::core
