// SPDX-License-Identifier: Apache-2.0
// TopologySummary (the one pass over the topology that evaluate() shares between its stages) against
// the Topology members it stands for, after every kind of edit of the topology, and evaluate() after
// an in-place edit: nothing read by the engine may be stale.
#include "core/cluster/TopologySummary.h"
#include "TestScenarios.h"
#include "core/Engine.h"
#include "core/io/PresetLibrary.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <thread>
#include <vector>

using namespace parallax::core;

namespace {

GpuSpec gpu(const std::string& id)
{
    const auto g = PresetLibrary::instance().gpu(id);
    if (!g)
        throw std::runtime_error("missing GPU preset " + id);
    return *g;
}

// The reference: every field from the Topology member (or the pass) it replaces.
void expectMatchesMembers(const Topology& t, const TopologySummary& s)
{
    EXPECT_EQ(s.gpus, t.gpuCount());
    EXPECT_EQ(s.connected, t.connected());
    const DomainShape shape = DomainShape::of(t);
    EXPECT_EQ(s.shape.alike, shape.alike);
    EXPECT_EQ(s.shape.domainSize, shape.domainSize);
    const RankMap::DomainCounts counts = RankMap::DomainCounts::of(t);
    EXPECT_EQ(s.domainCounts.gpus, counts.gpus);
    EXPECT_EQ(s.domainCounts.uniformSize, counts.uniformSize);
    if (t.domains.empty()) {
        EXPECT_EQ(s.slowestDomain, -1);
        return;
    }
    int slowest = 0;
    double hbm = t.domains.front().gpu.hbmBytes;
    for (std::size_t d = 0; d < t.domains.size(); ++d) {
        if (t.domains[d].gpu.bf16FlopsPerSecond < t.domains[slowest].gpu.bf16FlopsPerSecond)
            slowest = static_cast<int>(d);
        hbm = std::min(hbm, t.domains[d].gpu.hbmBytes);
    }
    EXPECT_EQ(s.slowestDomain, slowest);
    EXPECT_EQ(s.minHbmBytes, hbm);
}

struct EditCase {
    const char* name;
    std::function<void(Topology&)> edit;
    // What the edit must change, stated by hand (the reference above could share a mistake).
    int gpus;
    bool alike;
    bool connected;
    int slowestDomain;
};

} // namespace

TEST(TopologySummary, EveryEditOfDomainsAndFabricsIsSeen)
{
    const GpuSpec h100 = gpu("h100-sxm");
    const GpuSpec a100 = gpu("a100-sxm-80gb");
    const std::vector<EditCase> cases = {
        { "unchanged", [](Topology&) {}, 32, true, true, 0 },
        { "gpu count of one domain, in place", [](Topology& t) { t.domains[2].gpuCount = 4; }, 28, false, true, 0 },
        { "a slower GPU in one domain", [&](Topology& t) { t.domains[3].gpu = a100; }, 32, false, true, 3 },
        { "nvlink override of one domain", [](Topology& t) { t.domains[1].nvlinkBytesPerSecond = 1e11; }, 32, false,
            true, 0 },
        { "a domain appended on the fabric",
            [&](Topology& t) {
                t.domains.push_back({ "node4", h100, 8, 0 });
                t.fabrics[0].domains.push_back(4);
            },
            40, true, true, 0 },
        { "a domain appended on no fabric",
            [&](Topology& t) {
                t.domains.push_back({ "node4", h100, 8, 0 });
            },
            40, false, false, 0 },
        { "the fabric's domains out of order",
            [](Topology& t) { std::swap(t.fabrics[0].domains[0], t.fabrics[0].domains[1]); }, 32, false, true, 0 },
        { "a second fabric over half the domains",
            [](Topology& t) {
                t.fabrics.push_back({ "ib1", 200, 0, 5e-6, 1.0, true, true, { 0, 1 } });
            },
            32, false, true, 0 },
        { "two fabrics that share no domain",
            [](Topology& t) {
                t.fabrics[0].domains = { 0, 1 };
                t.fabrics.push_back({ "ib1", 400, 0, 5e-6, 1.0, true, true, { 2, 3 } });
            },
            32, false, false, 0 },
        // Every pair of domains must share a fabric: 0 and 3 share none although domain 2 is on both.
        { "two fabrics overlapping in one domain",
            [](Topology& t) {
                t.fabrics[0].domains = { 0, 1, 2 };
                t.fabrics.push_back({ "ib1", 400, 0, 5e-6, 1.0, true, true, { 2, 3 } });
            },
            32, false, false, 0 },
        { "no fabric at all", [](Topology& t) { t.fabrics.clear(); }, 32, true, false, 0 },
        { "a domain removed",
            [](Topology& t) {
                t.domains.pop_back();
                t.fabrics[0].domains.pop_back();
            },
            24, true, true, 0 },
        { "one domain left",
            [](Topology& t) {
                t.domains.resize(1);
                t.fabrics.clear();
            },
            8, true, true, 0 },
    };
    for (const EditCase& c : cases) {
        SCOPED_TRACE(c.name);
        Topology t = Topology::regular(h100, 4, 8, 400);
        // Read first, so that any cache the topology keeps is filled before the edit.
        ASSERT_EQ(TopologySummary::of(t).gpus, 32);
        ASSERT_EQ(t.locate(31).domain, 3);
        c.edit(t);
        const TopologySummary s = TopologySummary::of(t);
        expectMatchesMembers(t, s);
        EXPECT_EQ(s.gpus, c.gpus);
        EXPECT_EQ(s.shape.alike, c.alike);
        EXPECT_EQ(s.connected, c.connected);
        EXPECT_EQ(s.slowestDomain, c.slowestDomain);
        // The rank -> domain table that routes read is the edited one too.
        if (s.gpus > 0) {
            EXPECT_EQ(t.locate(s.gpus - 1).domain, static_cast<int>(t.domains.size()) - 1);
        }
    }
}

TEST(TopologySummary, EmptyTopology)
{
    const Topology t;
    const TopologySummary s = TopologySummary::of(t);
    expectMatchesMembers(t, s);
    EXPECT_EQ(s.gpus, 0);
    EXPECT_TRUE(s.connected);
}

// evaluate() summarises the topology on every call: an edit in place between two calls (what the
// editor does) shows in the second report.
TEST(TopologySummary, EvaluateSeesAnInPlaceEdit)
{
    using parallax::test::batch;
    using parallax::test::degrees;
    Scenario s = parallax::test::makeScenario("llama3-8b", "h200", 4, 8, degrees(8, 1, 4), batch(1, 64, 4096));
    EvaluateOptions options;
    options.simulateSchedule = false;
    const Report before = evaluate(s, options);
    ASSERT_TRUE(before.valid);
    EXPECT_EQ(before.gpus, 32);
    const double h200Flops = before.peakFlopsPerSecond;

    s.topology.domains[1].gpu = gpu("a100-sxm-80gb");
    const Report slower = evaluate(s, options);
    ASSERT_TRUE(slower.valid);
    EXPECT_LT(slower.peakFlopsPerSecond, h200Flops);
    EXPECT_EQ(slower.hbmBytes, gpu("a100-sxm-80gb").hbmBytes);

    s.topology.domains[1].gpuCount = 4;
    const Report fewer = evaluate(s, options);
    EXPECT_FALSE(fewer.valid);
    EXPECT_EQ(fewer.gpus, 28);
}

// The topology keeps its last summary until its domains or fabrics change: the second summary of an
// unchanged topology is the first one (no pass over the domains), a const read keeps it, a copy of the
// topology carries it (and is described by it), and a write through any mutable access drops it.
TEST(TopologySummary, KeptUntilTheTopologyChanges)
{
    Topology t = Topology::regular(gpu("h100-sxm"), 2048, 8, 400);
    EXPECT_EQ(t.cachedSummary(), nullptr);
    const TopologySummary first = TopologySummary::of(t);
    const std::shared_ptr<const TopologySummary> kept = t.cachedSummary();
    ASSERT_NE(kept, nullptr);
    EXPECT_EQ(kept->gpus, 16384);
    EXPECT_TRUE(first.describes(t));

    const Topology& read = t;
    EXPECT_EQ(read.domains[5].gpuCount, 8); // const access: the summary stays
    EXPECT_EQ(TopologySummary::of(t).gpus, first.gpus);
    EXPECT_EQ(t.cachedSummary(), kept);

    const Topology copy = t;
    EXPECT_EQ(copy.cachedSummary(), kept);
    const TopologySummary ofCopy = TopologySummary::of(copy);
    EXPECT_TRUE(ofCopy.describes(copy));
    EXPECT_FALSE(ofCopy.describes(t));

    t.domains[7].gpuCount = 4; // mutable access: dropped
    EXPECT_EQ(t.cachedSummary(), nullptr);
    EXPECT_EQ(TopologySummary::of(t).gpus, 16380);
    EXPECT_EQ(copy.cachedSummary(), kept); // the copy is another topology
    t.fabrics[0].nicGbps = 200;
    EXPECT_EQ(t.cachedSummary(), nullptr);
}

// Evaluations on several threads may summarise one const topology at once: each gets the same summary.
TEST(TopologySummary, ConcurrentSummariesAgree)
{
    const Topology t = Topology::regular(gpu("h100-sxm"), 512, 8, 400);
    std::vector<int> gpus(4, 0);
    std::vector<std::thread> threads;
    for (int i = 0; i < 4; ++i) {
        threads.emplace_back([&, i] {
            for (int k = 0; k < 50; ++k)
                gpus[i] = TopologySummary::of(t).gpus;
        });
    }
    for (std::thread& th : threads)
        th.join();
    for (int g : gpus)
        EXPECT_EQ(g, 4096);
}

TEST(VersionedList, EveryMutableAccessAdvancesTheVersion)
{
    VersionedList<int> v { 1, 2, 3 };
    const VersionedList<int>& c = v;
    std::uint64_t last = v.version();
    const auto advanced = [&] {
        const bool moved = v.version() > last;
        last = v.version();
        return moved;
    };
    EXPECT_EQ(c[1] + c.front() + c.back() + static_cast<int>(c.size()), 9);
    EXPECT_FALSE(advanced()); // reads
    v[0] = 5;
    EXPECT_TRUE(advanced());
    v.push_back(4);
    EXPECT_TRUE(advanced());
    v.erase(v.begin());
    EXPECT_TRUE(advanced());
    for (int& x : v)
        x += 1;
    EXPECT_TRUE(advanced());
    v.reserve(100); // capacity only
    EXPECT_FALSE(advanced());
    VersionedList<int> other { 7 };
    v = other;
    EXPECT_TRUE(advanced());
    EXPECT_EQ(v.items(), std::vector<int> { 7 });
}
