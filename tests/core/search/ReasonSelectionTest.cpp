// SPDX-License-Identifier: Apache-2.0
#include "core/Engine.h"
#include "core/Units.h"
#include "core/search/ConfigSearch.h"
#include "core/search/Explainer.h"
#include "core/search/SearchSpace.h"

#include "SearchTestSupport.h"

#include <gtest/gtest.h>

#include <map>
#include <regex>

using namespace parallax::core;
using parallax::test::searchScenario;

namespace {

const RejectedFamily* family(const SearchResult& r, const std::string& label)
{
    for (const RejectedFamily& f : r.rejected) {
        // Families that share a representative are listed together: "pp=2 / zero=1".
        const std::string padded = " / " + f.family + " / ";
        if (padded.find(" / " + label + " / ") != std::string::npos)
            return &f;
    }
    return nullptr;
}

std::vector<double> numbersBefore(const std::string& text, const std::string& unit)
{
    std::vector<double> out;
    const std::regex number("([0-9]+(\\.[0-9]+)?) " + unit);
    for (auto it = std::sregex_iterator(text.begin(), text.end(), number); it != std::sregex_iterator(); ++it)
        out.push_back(std::stod((*it)[1].str()));
    return out;
}

Report evaluated(const Scenario& base, const SearchPoint& p)
{
    EvaluateOptions o;
    o.keepTimeline = false;
    return evaluate(applyPoint(base, p), o);
}

// 70B on 16 H100 at 8K tokens: without activation recompute the winner's layout runs out of
// memory; the reason says so with the engine's own overshoot.
TEST(ReasonSelection, OutOfMemoryNamesTheStageAndTheOvershoot)
{
    const Scenario s = searchScenario("llama3-70b", 2, 8, 64, 8192);
    const SearchResult r = searchConfigurations(s);
    ASSERT_FALSE(r.candidates.empty());
    ASSERT_NE(r.candidates.front().point.recompute, Recompute::None);
    const RejectedFamily* f = family(r, "recompute=none");
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->reason.kind, ReasonKind::OutOfMemory) << f->reason.text;
    EXPECT_FALSE(f->fits);
    const Report rep = evaluated(s, f->point);
    EXPECT_FALSE(rep.fits);
    const auto gib = numbersBefore(f->reason.text, "GiB");
    ASSERT_FALSE(gib.empty()) << f->reason.text;
    EXPECT_NEAR(gib.front(), (rep.peakMemoryBytes - rep.hbmBytes) / kGiB, 0.051) << f->reason.text;
    EXPECT_NE(f->reason.text.find("stage " + std::to_string(rep.peakMemoryStage)), std::string::npos);
}

// Property over several scenarios: a family is blamed on memory exactly when its representative
// does not fit.
TEST(ReasonSelection, OutOfMemoryExactlyWhenItDoesNotFit)
{
    for (const Scenario& s : { searchScenario("llama3-70b", 8, 8, 256, 4096),
             searchScenario("mixtral-8x7b", 2, 8, 64, 4096), searchScenario("llama3-405b", 1, 8, 32, 4096) }) {
        const SearchResult r = searchConfigurations(s);
        for (const RejectedFamily& f : r.rejected) {
            const Report rep = evaluated(s, f.point);
            EXPECT_EQ(f.reason.kind == ReasonKind::OutOfMemory, !rep.fits)
                << s.name << " " << f.family << ": " << f.reason.text;
        }
    }
}

// Nodes of four GPUs: TP=8 spans two nodes. The 1.7B model fits anywhere, so the only thing wrong
// with TP=8 is that its all-reduces cross InfiniBand, and the reason quotes both link speeds.
TEST(ReasonSelection, TensorParallelismAcrossInfiniBand)
{
    const Scenario s = searchScenario("megatron-gpt-1.7b", 4, 4, 64, 2048);
    const SearchResult r = searchConfigurations(s);
    ASSERT_FALSE(r.candidates.empty());
    EXPECT_LE(r.candidates.front().point.tp, 4);
    const RejectedFamily* f = family(r, "tp=8");
    ASSERT_NE(f, nullptr);
    EXPECT_TRUE(f->fits);
    EXPECT_EQ(f->reason.kind, ReasonKind::TpCrossesDomain) << f->reason.text;
    EXPECT_NE(f->reason.text.find("IB"), std::string::npos);
    // "... X ms per layer and micro-batch against Y on NVLink": the IB figure is the larger.
    const std::regex perLayer("IB, ([0-9.]+) (ms|us) per layer and micro-batch against ([0-9.]+) (ms|us)");
    std::smatch m;
    ASSERT_TRUE(std::regex_search(f->reason.text, m, perLayer)) << f->reason.text;
    const double ib = std::stod(m[1]) * (m[2] == "ms" ? 1e-3 : 1e-6);
    const double nv = std::stod(m[3]) * (m[4] == "ms" ? 1e-3 : 1e-6);
    EXPECT_GT(ib, nv);
}

// The same model fits one GPU: a pipeline only adds idle time, and the reason is the bubble.
TEST(ReasonSelection, PipelineBubble)
{
    const Scenario s = searchScenario("megatron-gpt-1.7b", 4, 4, 64, 2048);
    const SearchResult r = searchConfigurations(s);
    ASSERT_FALSE(r.candidates.empty());
    ASSERT_EQ(r.candidates.front().point.pp, 1);
    const RejectedFamily* f = family(r, "pp=2");
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->reason.kind, ReasonKind::Bubble) << f->reason.text;
    const Report rep = evaluated(s, f->point);
    EXPECT_GT(rep.bubbleFraction, r.candidates.front().report.bubbleFraction);
    EXPECT_NE(f->reason.text.find("bubble"), std::string::npos);
}

// 64 experts on two HGX nodes, schedules that do not overlap the all-to-all: EP=16 spreads the
// experts over both nodes, so dispatch and combine cross InfiniBand at the busiest expert's load.
TEST(ReasonSelection, ExpertAllToAllImbalanceOverInfiniBand)
{
    Scenario s = searchScenario("llama3-8b", 2, 8, 64, 4096);
    s.model = parallax::test::smallMoe();
    SearchOptions o;
    o.limits.includeDualPipe = false;
    const SearchResult r = searchConfigurations(s, o);
    ASSERT_FALSE(r.candidates.empty());
    ASSERT_LE(r.candidates.front().point.ep, 8);
    const RejectedFamily* f = family(r, "ep=16");
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->reason.kind, ReasonKind::ExpertAllToAll) << f->reason.text;
    EXPECT_NE(f->reason.text.find("imbalance"), std::string::npos);
    EXPECT_NE(f->reason.text.find("1.25x"), std::string::npos);
    EXPECT_NE(f->reason.text.find("cross IB"), std::string::npos);
    const Report rep = evaluated(s, f->point);
    EXPECT_GT(rep.comm.epSeconds, r.candidates.front().report.comm.epSeconds);
}

// The winner's reasons start with its binding constraint and margin, from its own report.
TEST(ReasonSelection, WinnerStatesItsMargin)
{
    const Scenario s = searchScenario("llama3-70b", 8, 8, 256, 4096);
    const SearchResult r = searchConfigurations(s);
    ASSERT_FALSE(r.candidates.empty());
    const Candidate& w = r.candidates.front();
    ASSERT_FALSE(w.reasons.empty());
    EXPECT_EQ(w.reasons.front().kind, ReasonKind::Fits);
    const auto gib = numbersBefore(w.reasons.front().text, "GiB");
    ASSERT_GE(gib.size(), 2u);
    EXPECT_NEAR(gib[0], w.report.peakMemoryBytes / kGiB, 0.051);
    if (w.report.memoryVerdict == MemoryVerdict::Tight) {
        // A tight winner says so and names the HBM its range straddles.
        EXPECT_EQ(w.reasons.front().text.rfind("tight: ", 0), 0u) << w.reasons.front().text;
        EXPECT_NEAR(gib[1], w.report.hbmBytes / kGiB, 0.051);
    } else {
        EXPECT_NEAR(gib[1], (w.report.hbmBytes - w.report.peakMemoryBytes) / kGiB, 0.051);
    }
    for (std::size_t i = 1; i < r.candidates.size(); ++i)
        EXPECT_EQ(r.candidates[i].reasons.size(), 1u);
}

// The explainer over the scenario's own evaluations of a winner and a loser (null reports when one is invalid).
struct ExplainedPair {
    ExplainedPair(const Scenario& s, const SearchPoint& w, const SearchPoint& l)
        : m_scenario(s)
        , m_w(w)
        , m_l(l)
        , m_explainer(
              s, nullptr, [this](const SearchPoint& p) { return lookup(p); },
              [](const FamilyKey&) { return std::optional<SearchPoint>(); })
    {
        winner = lookup(w);
        loser = lookup(l);
    }
    Reason reason() const { return m_explainer.explainLoss(m_w, *winner, m_l, *loser); }
    const Report* winner = nullptr;
    const Report* loser = nullptr;

private:
    const Report* lookup(const SearchPoint& p) const
    {
        auto it = m_reports.find(p.key());
        if (it == m_reports.end())
            it = m_reports.emplace(p.key(), evaluated(m_scenario, p)).first;
        return it->second.valid ? &it->second : nullptr;
    }
    const Scenario& m_scenario;
    SearchPoint m_w, m_l;
    mutable std::map<decltype(SearchPoint {}.key()), Report> m_reports;
    mutable Explainer m_explainer;
};

} // namespace

// A selective recompute of named modules is explained by those modules, not by the attention core of
// Megatron-Core's default (the DeepSeek-V3 preset's "moe_act, layernorm, mla_up_proj" read "re-runs the
// attention core" until 2026-12-05).
TEST(ReasonSelection, SelectiveRecomputeNamesItsModules)
{
    Scenario s = searchScenario("llama3-70b", 4, 8, 64, 4096);
    s.training.recomputeModules = recompute_module::kMlp | recompute_module::kLayernorm;
    SearchPoint w;
    w.tp = 8;
    w.pp = 4;
    w.dp = 1;
    SearchPoint l = w;
    l.recompute = Recompute::Selective;
    const ExplainedPair pair(s, w, l);
    const Report* wr = pair.winner;
    const Report* lr = pair.loser;
    ASSERT_TRUE(wr && lr);
    ASSERT_TRUE(wr->fits && lr->fits);
    ASSERT_GT(lr->stepTimeSeconds, wr->stepTimeSeconds);
    const Reason r = pair.reason();
    EXPECT_EQ(r.kind, ReasonKind::Recompute) << r.text;
    EXPECT_NE(r.text.find("re-runs layernorm, mlp (training.recompute_modules)"), std::string::npos) << r.text;
    EXPECT_EQ(r.text.find("attention core"), std::string::npos) << r.text;
}

// A loser that computes more is explained by what differs from the winner: smaller micro-batches on the same
// pipeline are fewer rows per GEMM, not the layer split both share (32 layers over 3 stages read "do not
// divide" for every such loser until 2026-12-06).
TEST(ReasonSelection, ComputeCauseIsWhatDiffersFromTheWinner)
{
    const Scenario s = searchScenario("llama3-8b", 3, 4, 48, 4096);
    SearchPoint w;
    w.pp = 3;
    w.dp = 4;
    w.zero = 1;
    w.microBatch = 2;
    SearchPoint l = w;
    l.microBatch = 1;
    const ExplainedPair pair(s, w, l);
    const Report* wr = pair.winner;
    const Report* lr = pair.loser;
    ASSERT_TRUE(wr && lr);
    ASSERT_TRUE(wr->fits && lr->fits);
    const Reason r = pair.reason();
    ASSERT_EQ(r.kind, ReasonKind::Compute) << r.text;
    EXPECT_NE(r.text.find("micro-batches of 1 against 2 sequences"), std::string::npos) << r.text;
    EXPECT_EQ(r.text.find("do not divide"), std::string::npos) << r.text;
}

// The winner names its token dispatcher; where the other one would be faster but does not fit, it says so with
// the other's step and peak (a made-up report for the other dispatcher).
TEST(ReasonSelection, WinnerSaysWhenTheOtherDispatcherIsFasterButOverHbm)
{
    Scenario s = searchScenario("megatron-gpt-1.7b", 4, 8, 64, 4096);
    s.model = parallax::test::smallMoe();
    s.modelPreset.clear();
    s.parallel.ep = 8;
    s.training.moeTokenDispatcher = MoeDispatcher::AllToAll;
    const SearchPoint winner = pointOf(s);
    const Report won = evaluated(s, winner);
    ASSERT_TRUE(won.valid);
    SearchPoint deepEp = winner;
    deepEp.dispatcher = MoeDispatcher::DeepEp;
    Report other = won;
    other.stepTimeSeconds = 0.8 * won.stepTimeSeconds;
    other.fits = false;
    other.hbmBytes = 80 * kGiB;
    other.peakMemoryBytes = 100 * kGiB;
    Explainer explainer(
        s, nullptr, [&](const SearchPoint& p) { return p.dispatcher == MoeDispatcher::DeepEp ? &other : &won; },
        [&](const FamilyKey& k) {
            return k.dim == FamilyDim::Dispatcher ? std::optional<SearchPoint>(deepEp) : std::nullopt;
        });
    bool said = false;
    for (const Reason& r : explainer.explainWinner(winner, won))
        said = said
            || (r.text.find("NCCL's all-to-all dispatches the tokens; DeepEP would take") != std::string::npos
                && r.text.find("but needs 100.0 GiB > 80 GiB of HBM") != std::string::npos);
    EXPECT_TRUE(said);
}
