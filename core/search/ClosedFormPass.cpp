// SPDX-License-Identifier: Apache-2.0
#include "core/search/ClosedFormPass.h"

#include "core/search/ClosedFormScorer.h"
#include "core/search/ConfigSearch.h"

#include <algorithm>

namespace parallax::core::searchdetail {

BalancedSplits::BalancedSplits(const Scenario& base)
    : m_layers(base.model.layers)
    , m_headLayers(lmHeadLayerEquivalents(base.model, base.seqLen()))
{
}

const StageSplit& BalancedSplits::of(int pp, int vpp, ScheduleKind kind)
{
    const auto key = std::tuple(pp, vpp, static_cast<int>(kind));
    auto it = m_splits.find(key);
    if (it == m_splits.end())
        it = m_splits.emplace(key, balancedPipelineSplit(m_layers, pp, vpp, kind, m_headLayers)).first;
    return it->second;
}

bool ClosedFormPass::cancelled() const
{
    return m_options.cancel && m_options.cancel->load();
}

void ClosedFormPass::run(WorkerResult& out, std::atomic<int>& nextLayout, std::atomic<int>& layoutsDone,
    std::atomic<long long>& scored, const BoundWindow& window, bool windowOnly)
{
    auto keep = [&](const BoundedPoint& b) {
        if (window.atMostNs && b.boundNs > *window.atMostNs)
            return;
        if (window.after && !boundedBefore(*window.after, b))
            return;
        if (!out.open.offer(b, window.capacity))
            out.windowFull = true;
    };
    ClosedFormScorer scorer(m_base, m_options.calibration);
    scorer.setOptimizerOffload(m_options.optimizerOffload);
    const double hbm = scorer.hbmBytes();
    BalancedSplits splits(m_base);
    const auto& layouts = m_space.layouts();
    std::vector<ClosedFormScore> scores, splitScores;
    std::vector<int> zeros;
    for (int i = nextLayout++; i < static_cast<int>(layouts.size()); i = nextLayout++) {
        if (cancelled())
            return;
        const Layout& l = layouts[i];
        FamilySlot* tpSlot = &out.families[{ FamilyDim::Tp, l.tp }];
        FamilySlot* cpSlot = &out.families[{ FamilyDim::Cp, l.cp }];
        FamilySlot* ppSlot = &out.families[{ FamilyDim::Pp, l.pp }];
        long long before = out.scored;
        for (int ep : m_space.expertDegrees(l)) {
            const LayoutComm comm = scorer.layoutComm(l, ep);
            FamilySlot* epSlot = &out.families[{ FamilyDim::Ep, ep }];
            const std::vector<int> allZeros = m_space.zeroStages(l, ep);
            FamilySlot* zeroSlot[4] = {};
            for (int z : allZeros)
                zeroSlot[z] = &out.families[{ FamilyDim::Zero, z }];
            FamilySlot* rcSlot[3];
            for (int k = 0; k < 3; ++k)
                rcSlot[k] = &out.families[{ FamilyDim::Recompute, k }];
            for (const auto& [dispatcher, cpComm] : m_space.variants(l, ep)) {
                scorer.setDispatcher(dispatcher);
                scorer.setCpComm(cpComm);
                // A family of MoE models only: a dense model has no tokens to dispatch.
                FamilySlot* dispatcherSlot = m_base.model.isMoe()
                    ? &out.families[{ FamilyDim::Dispatcher, static_cast<int>(dispatcher) }]
                    : nullptr;
                // A family of layouts with cp > 1 only: with cp = 1 nothing is exchanged.
                FamilySlot* cpCommSlot = l.cp > 1
                    ? &out.families[{ FamilyDim::CpComm, cpCommValue(cpComm.type, cpComm.a2aSize) }]
                    : nullptr;
                for (int mb : m_space.microBatches(l)) {
                    const int m = static_cast<int>(m_base.training.globalBatch / (static_cast<long long>(mb) * l.dp));
                    FamilySlot* mbSlot = &out.families[{ FamilyDim::MicroBatch, mb }];
                    for (const ScheduleChoice& s : m_space.schedules(l.pp, m)) {
                        FamilySlot* schedSlot = &out.families[{ FamilyDim::Schedule, scheduleValue(s.kind, s.vpp) }];
                        FamilySlot* fixed[]
                            = { tpSlot, cpSlot, ppSlot, epSlot, mbSlot, schedSlot, dispatcherSlot, cpCommSlot };
                        SearchPoint p = pointAt(l, ep, s, mb);
                        p.dispatcher = dispatcher;
                        p.cpComm = cpComm.type;
                        p.cpA2aSize = cpComm.a2aSize;
                        // The balanced split of this pipeline where it is not the even one: the uneven variant
                        // (no window room for what the simulation loop would drop unseen). The DualPipe family
                        // has no bound over every split (ClosedFormScore::anySplitLowerBoundSeconds is 0 there),
                        // so its variant is scored with its own split, the bound the simulation loop compares
                        // it by.
                        const StageSplit* unevenSplit = nullptr;
                        if (l.pp > 1) {
                            const StageSplit& split = splits.of(p.pp, p.vpp, p.schedule);
                            unevenSplit = BalancedSplits::uneven(split) ? &split : nullptr;
                        }
                        const bool ownSplitBound
                            = unevenSplit && (s.kind == ScheduleKind::DualPipe || s.kind == ScheduleKind::DualPipeV);
                        // Prune ZeRO stages whose weights + grads + optimizer alone exceed HBM.
                        zeros.clear();
                        for (int z : allZeros) {
                            const double bound = scorer.stateBoundBytes(l, ep, comm, s, z);
                            if (bound <= hbm) {
                                zeros.push_back(z);
                                continue;
                            }
                            out.pruned += 3;
                            p.zero = z;
                            p.recompute = Recompute::Full; // the leanest activations
                            const Ranked r { 0, bound, p };
                            for (FamilySlot* f : fixed) {
                                if (f)
                                    f->offerPruned(r);
                            }
                            zeroSlot[z]->offerPruned(r);
                            rcSlot[2]->offerPruned(r);
                            out.overall.offerPruned(r);
                        }
                        if (zeros.empty())
                            continue;
                        for (int k = 0; k < 3; ++k) {
                            p.recompute = SearchSpace::kRecomputeModes[k];
                            if (!m_space.offersRecompute(p.recompute))
                                continue;
                            scorer.score(l, ep, comm, mb, s, p.recompute, zeros, scores);
                            if (ownSplitBound) {
                                scorer.setStageSplit(unevenSplit->firstStageLayers, unevenSplit->lastStageLayers);
                                scorer.score(l, ep, comm, mb, s, p.recompute, zeros, splitScores);
                                scorer.setStageSplit(0, 0);
                            }
                            for (std::size_t zi = 0; zi < zeros.size(); ++zi) {
                                const ClosedFormScore& sc = scores[zi];
                                p.zero = zeros[zi];
                                // A branch-and-bound candidate unless even one micro-batch in flight overflows HBM:
                                // the closed-form peak is not a lower bound of the simulated one (the simulation can
                                // hold fewer micro-batches in flight, SearchBoundTest), so it decides nothing here.
                                if (sc.peakLowerBoundBytes <= hbm)
                                    keep({ nanoseconds(sc.stepLowerBoundSeconds), false, p });
                                if (ownSplitBound) {
                                    if (splitScores[zi].peakLowerBoundBytes <= hbm)
                                        keep({ nanoseconds(splitScores[zi].stepLowerBoundSeconds), true, p });
                                } else if (unevenSplit && sc.peakLowerBoundBytes <= hbm) {
                                    keep({ nanoseconds(sc.anySplitLowerBoundSeconds), true, p });
                                }
                                if (windowOnly)
                                    continue;
                                const Ranked r { sc.stepSeconds, sc.peakBytes, p };
                                ++out.scored;
                                for (FamilySlot* f : fixed) {
                                    if (f)
                                        f->offer(r, sc.fits);
                                }
                                zeroSlot[p.zero]->offer(r, sc.fits);
                                rcSlot[k]->offer(r, sc.fits);
                                out.overall.offer(r, false);
                                if (!sc.fits)
                                    continue;
                                ++out.fitting;
                            }
                        }
                    }
                }
            }
        }
        scored += out.scored - before;
        ++layoutsDone;
    }
}

} // namespace parallax::core::searchdetail
