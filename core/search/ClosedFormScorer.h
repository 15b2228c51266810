// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/cluster/CommGroups.h"
#include "core/cluster/GroupGeometry.h"

#include "core/Scenario.h"
#include "core/costs/CostModel.h"
#include "core/costs/StepOverheads.h"
#include "core/model/ModelMath.h"
#include "core/search/SearchSpace.h"

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace parallax::core {

struct Calibration;

// The communicators of one layout, computed from rank arithmetic (no RankMap): the same groups
// and link geometry as buildCommGroups() picks from a built rank map.
struct LayoutComm {
    CommGroup tp, cp, ep, edp, dp; // dp: the dp x cp gradient group
    double p2pLatencySeconds = 0; // between pipeline ranks 0 and 1 (the closed forms' p2p)
    double p2pBytesPerSecond = 0;
    bool tpCrossesDomain = false; // some TP group leaves its NVLink domain
    bool epCrossesDomain = false;
};

// What the search needs of one configuration: the closed-form step time and memory of
// evaluate(..., {simulateSchedule = false}) without building a Report.
struct ClosedFormScore {
    double stepSeconds = 0;
    double peakBytes = 0;
    int peakStage = 0;
    bool fits = false;
    double peakLowBytes = 0; // the low end of the peak's range (core/memory/PredictionBands.h), as evaluate reports it
    double peakWithoutOptimizerBytes = 0; // the peak with the optimizer states off the GPU
    // A lower bound of the simulated peak (optimizer states left out under offload): one micro-batch
    // of the lightest chunk in flight, or with setInflightFromPrograms() every forward a rank runs
    // before its first backward; above HBM no simulation of this configuration fits.
    double peakLowerBoundBytes = 0;
    // Lower bounds of evaluate()'s simulated step time (see score()): of this configuration with its
    // even pipeline split, and of any split of its layers over the same pipeline (uneven splits).
    double stepLowerBoundSeconds = 0;
    double anySplitLowerBoundSeconds = 0;
};

// The engine's closed-form path specialised for many configurations of one scenario: per-layer
// costs are cached per (tp, cp, ep, micro-batch, recompute) and communicator geometry, per-rank
// parameter counts per (layout, ep, schedule), and the ZeRO stages share everything but the
// sharding. Produces the same numbers as evaluate() with simulateSchedule=false (tested).
class ClosedFormScorer {
public:
    ClosedFormScorer(const Scenario& base, const Calibration* calibration);
    ~ClosedFormScorer();
    ClosedFormScorer(const ClosedFormScorer&) = delete;
    ClosedFormScorer& operator=(const ClosedFormScorer&) = delete;

    // The largest HBM of the cluster (of its one GPU type, usually): what the memory bound prunes against.
    double hbmBytes() const { return m_hbm; }
    // Fit without the optimizer states (ZeRO-Offload, arXiv:2101.06840): scores' `fits` and the
    // state bound leave the optimizer bytes out.
    void setOptimizerOffload(bool offload) { m_optimizerOffload = offload; }
    LayoutComm layoutComm(const Layout& l, int ep) const;
    // peakLowerBoundBytes from the schedule's own programs (generated once per shape): the
    // activations of the forwards each rank runs before its first backward, which the simulator
    // holds at once (core/schedule/PipelineSimulator.h counts them in program order). Worth it where
    // a configuration is about to be simulated; the closed-form pass keeps the cheaper bound.
    void setInflightFromPrograms(bool on) { m_inflightFromPrograms = on; }
    // Scores a pipeline with `first` and `last` layers on its end ranks (Megatron's uneven split,
    // core/parallel/PipelineSplit.h) instead of the even split; 0, 0: the even split.
    void setStageSplit(int first, int last)
    {
        m_firstStageLayers = first;
        m_lastStageLayers = last;
    }
    // Scores MoE layers with ep > 1 under this token dispatcher (SearchPoint::dispatcher) instead of the
    // scenario's.
    void setDispatcher(MoeDispatcher d) { m_dispatcher = d; }
    // Scores layouts with cp > 1 under this context-parallel communication (SearchPoint::cpComm) instead of the
    // scenario's.
    void setCpComm(const CpCommChoice& c) { m_cpComm = c; }

    // Weights + gradients + optimizer of the most loaded pipeline rank plus the fixed per-process
    // memory: a lower bound of the peak of every micro-batch size, recompute mode and schedule
    // of the same (layout, ep, zero, schedule placement).
    double stateBoundBytes(const Layout& l, int ep, const LayoutComm& comm, const ScheduleChoice& s, int zero);

    // Scores one (layout, ep, micro-batch, schedule, recompute) for each of `zeros`; `out[i]`
    // receives the score of zeros[i].
    void score(const Layout& l, int ep, const LayoutComm& comm, int microBatch, const ScheduleChoice& s,
        Recompute recompute, const std::vector<int>& zeros, std::vector<ClosedFormScore>& out);

private:
    struct LayerCostSet;
    struct RankTable;
    // Cache keys: the search looks one up for every configuration it scores, so they are small arrays
    // hashed in place rather than vectors compared in a tree.
    template <std::size_t N> struct Key {
        std::array<long long, N> v {};
        bool operator==(const Key&) const = default;
    };
    template <std::size_t N> struct KeyHash {
        std::size_t operator()(const Key<N>& k) const
        {
            std::uint64_t h = 1469598103934665603ull; // FNV-1a over the fields
            for (long long x : k.v)
                h = (h ^ static_cast<std::uint64_t>(x)) * 1099511628211ull;
            return static_cast<std::size_t>(h);
        }
    };
    using CostKey = Key<16>;
    using TableKey = Key<9>;
    const LayerCostSet& layerCosts(const Layout& l, int ep, const LayoutComm& comm, int microBatch, Recompute r);
    const RankTable& rankTable(const Layout& l, int ep, const LayoutComm& comm, const ScheduleChoice& s);

    const Scenario& m_base;
    const Calibration* m_calibration;
    EfficiencyDefaults m_defaults;
    GpuSpec m_gpu;
    LayerShape m_denseShape, m_moeShape;
    DomainShape m_shape; // of m_base.topology: strided communicators from rank arithmetic
    double m_hbm = 0;
    std::unique_ptr<ComputeRates> m_rates;
    std::vector<int> m_denseOrder; // axis sizes in rank order: index into {tp, cp, dp, pp}
    std::vector<int> m_expertOrder; // {etp, ep, edp, pp}
    bool m_optimizerOffload = false;
    MoeDispatcher m_dispatcher; // the scenario's until setDispatcher
    CpCommChoice m_cpComm; // the scenario's until setCpComm
    bool m_uniformTopology = true; // every domain alike: layer costs are shared across layouts
    std::unordered_map<CostKey, std::unique_ptr<LayerCostSet>, KeyHash<16>> m_costs;
    std::unordered_map<TableKey, std::unique_ptr<RankTable>, KeyHash<9>> m_tables;
    // The last entry each cache returned: consecutive calls mostly ask for it again.
    CostKey m_lastCostKey;
    const LayerCostSet* m_lastCosts = nullptr;
    TableKey m_lastTableKey;
    const RankTable* m_lastTable = nullptr;
    // The step overhead's collectives of the last (layout, ep, micro-batch) scored.
    Key<6> m_collectivesKey;
    StepOverheadCollectives m_collectives;
    bool m_hasCollectives = false;
    std::vector<double> m_perMb, m_forward, m_backward, m_activations, m_leastActivations, m_transient;
    std::vector<double> m_perMbNoSend, m_chainF, m_chainB; // step-time lower bound (score())
    bool m_inflightFromPrograms = false;
    int m_firstStageLayers = 0, m_lastStageLayers = 0;
    // What a schedule's programs hold, per schedule shape (kind, p, m, v) and [rank * chunks + chunk].
    struct ProgramCounts {
        std::vector<int> forwardsBeforeBackward; // forwards of the chunk before the rank's first backward
        // Ops of the chunk: F, B (whole backward), BI, W, and F&B pairs whose forward half it is.
        std::vector<std::array<int, 5>> ops;
    };
    std::map<std::tuple<int, int, int, int>, ProgramCounts> m_programCounts;
    const ProgramCounts& programCounts(ScheduleKind kind, int p, int m, int v);
};

} // namespace parallax::core
