// SPDX-License-Identifier: Apache-2.0
#include "TestScenarios.h"

#include "core/Engine.h"
#include "core/Validation.h"

#include <functional>
#include <gtest/gtest.h>

using namespace parallax::core;
using namespace parallax::test;

namespace {
struct Rule {
    const char* name;
    std::function<void(Scenario&)> mutate;
    const char* field;
    const char* message; // substring of the message (which must also say the fix)
};

Scenario base()
{
    ParallelConfig p = degrees(8, 4, 2);
    p.zero = 1;
    return makeScenario("llama3-70b", "h100-sxm", 8, 8, p, batch(1, 64, 4096));
}

Scenario moeBase()
{
    ParallelConfig p = degrees(1, 1, 16, 1, 8);
    return makeScenario("mixtral-8x7b", "h100-sxm", 2, 8, p, batch(1, 16, 4096));
}
// Applies the rule's mutation to `scenario` and checks the error it must produce; the engine must
// report it too (invalid, no crash).
void expectRule(const Rule& rule, Scenario scenario)
{
    rule.mutate(scenario);
    const auto errors = validateScenario(scenario).errors;
    bool found = false;
    for (const auto& e : errors)
        found = found || (e.field == rule.field && e.text.find(rule.message) != std::string::npos);
    EXPECT_TRUE(found) << rule.name << ": got "
                       << (errors.empty() ? "no error" : errors[0].field + ": " + errors[0].text);
    EXPECT_FALSE(evaluate(scenario).valid) << rule.name;
}
} // namespace

TEST(Validation, BaseScenariosAreValid)
{
    EXPECT_TRUE(validateScenario(base()).errors.empty());
    EXPECT_TRUE(validateScenario(moeBase()).errors.empty());
}

// Every rule: one mutation of a valid scenario, the field it names and the fix it states.
TEST(Validation, EveryRuleNamesFieldAndFix)
{
    const Rule rules[] = {
        { "world size", [](Scenario& s) { s.parallel.dp = 3; }, "parallel.dp",
            "but the cluster has 64 GPUs: set dp=2" },
        { "heads vs tp", [](Scenario& s) { s.model.heads = 60; }, "parallel.tp", "heads=60 is not divisible by tp=8" },
        { "kv heads vs larger tp",
            [](Scenario& s) {
                s.parallel.tp = 16;
                s.parallel.dp = 1;
            },
            "parallel.tp", "kv_heads=8 is not divisible by tp=16: use tp=8" },
        { "kv heads vs tp", [](Scenario& s) { s.model.kvHeads = 4; }, "parallel.tp",
            "kv_heads=4 is not divisible by tp=8: use tp=4" },
        { "ffn vs tp", [](Scenario& s) { s.model.ffnHidden = 28676; }, "parallel.tp",
            "ffn_hidden=28676 is not divisible by tp=8" },
        { "layers vs stages", [](Scenario& s) { s.model.layers = 1; }, "parallel.pp", "fewer than the 4 model stages" },
        { "global batch vs micro*dp", [](Scenario& s) { s.training.globalBatch = 63; }, "training.global_batch",
            "not divisible by micro_batch*dp=2: use global_batch=64" },
        { "global batch below micro*dp",
            [](Scenario& s) {
                s.training.microBatch = 64;
                s.training.globalBatch = 64;
            },
            "training.global_batch", "smaller than micro_batch*dp=128" },
        { "vpp without interleaving", [](Scenario& s) { s.parallel.vpp = 2; }, "parallel.vpp",
            "needs schedule interleaved-1f1b" },
        { "vpp not dividing layers per stage",
            [](Scenario& s) {
                s.parallel.vpp = 3;
                s.parallel.schedule = ScheduleKind::Interleaved1F1B;
            },
            "parallel.vpp", "the 20 layers of each pipeline stage do not split into vpp=3 chunks: use vpp=2" },
        { "vpp with pp=1",
            [](Scenario& s) {
                s.parallel.pp = 1;
                s.parallel.dp = 8;
                s.parallel.vpp = 2;
                s.parallel.schedule = ScheduleKind::Interleaved1F1B;
            },
            "parallel.vpp", "needs pp > 1" },
        { "dualpipe odd pp",
            [](Scenario& s) {
                s.topology = Topology::regular(s.topology.domains[0].gpu, 6, 8, 400);
                s.parallel.pp = 3;
                s.parallel.dp = 2;
                s.parallel.schedule = ScheduleKind::DualPipe;
            },
            "parallel.pp", "even" },
        { "ep without experts", [](Scenario& s) { s.parallel.ep = 2; }, "parallel.ep",
            "the model has no experts: set ep=1" },
        { "order string", [](Scenario& s) { s.parallel.order = "tp-pp-dp"; }, "parallel.order",
            "must name tp, cp, ep, dp and pp" },
        { "cp vs sequence",
            [](Scenario& s) {
                s.parallel.cp = 3;
                s.parallel.dp = 1;
                s.topology = Topology::regular(s.topology.domains[0].gpu, 12, 8, 400);
                s.parallel.pp = 4;
                s.training.globalBatch = 64;
            },
            "parallel.cp", "not divisible by 2*cp=6" },
        { "fp8 on A100",
            [](Scenario& s) {
                s.topology = Topology::regular(*PresetLibrary::instance().gpu("a100-sxm-80gb"), 8, 8, 200);
                s.training.dtype = DType::Fp8;
            },
            "training.dtype", "no fp8 tensor cores: use dtype bf16" },
        { "no GPUs", [](Scenario& s) { s.topology = Topology(); }, "cluster", "no GPUs" },
        { "disconnected domains", [](Scenario& s) { s.topology.fabrics.clear(); }, "cluster.topology.fabrics",
            "no common fabric" },
    };
    for (const Rule& rule : rules)
        expectRule(rule, base());
}

TEST(Validation, ExpertRules)
{
    const Rule rules[] = {
        { "experts vs ep", [](Scenario& s) { s.parallel.ep = 16; }, "parallel.ep",
            "experts=8 is not divisible by ep=16" },
        { "ep*etp vs stage ranks",
            [](Scenario& s) {
                s.parallel.dp = 4;
                s.parallel.pp = 4;
            },
            "parallel.ep", "ep*etp=8 must divide tp*cp*dp=4" },
        { "moe tp needs sp",
            [](Scenario& s) {
                s.parallel.tp = 2;
                s.parallel.dp = 8;
                s.parallel.sp = false;
            },
            "parallel.sp", "need sequence parallelism" },
        { "etp vs expert ffn", [](Scenario& s) { s.parallel.etp = 3; }, "parallel.etp",
            "expert_ffn_hidden=14336 is not divisible by etp=3" },
        // Group-limited routing edited in the GUI (a file is checked as it is read): 8 experts, top-2.
        { "router groups without topk", [](Scenario& s) { s.model.moe->routerGroups = 4; },
            "model.moe.router_group_topk", "needs both router_groups and router_group_topk" },
        { "router groups vs experts",
            [](Scenario& s) {
                s.model.moe->routerGroups = 3;
                s.model.moe->routerGroupTopk = 1;
            },
            "model.moe.router_groups", "experts=8 is not divisible by router_groups=3" },
        { "router group topk vs groups",
            [](Scenario& s) {
                s.model.moe->routerGroups = 4;
                s.model.moe->routerGroupTopk = 5;
            },
            "model.moe.router_group_topk", "exceeds router_groups=4" },
        { "chosen groups hold top_k",
            [](Scenario& s) {
                s.model.moe->routerGroups = 8;
                s.model.moe->routerGroupTopk = 1;
            },
            "model.moe.router_group_topk", "1 groups of 1 experts cannot hold top_k=2" },
    };
    for (const Rule& rule : rules)
        expectRule(rule, moeBase());
}

// The decision guide writes the 64-GPU MoE case as "EP=64, DP=1"; in Megatron-Core terms it is
// dp=64 with ep=64 (expert-data-parallel 1), and the report shows the mapping.
TEST(Validation, GuideEpFormMapsToMegatron)
{
    ParallelConfig p = degrees(1, 1, 64, 1, 64);
    Scenario s = makeScenario("moe-1t", "h100-sxm", 8, 8, p, batch(1, 64, 4096));
    const auto v = validateScenario(s);
    EXPECT_TRUE(v.errors.empty()) << v.errors[0].text;
    bool mapped = false;
    for (const auto& n : v.notes)
        mapped = mapped || n.text.find("ep=64 x etp=1 x expert-data-parallel=1") != std::string::npos;
    EXPECT_TRUE(mapped);
}

TEST(Validation, NearestDivisor)
{
    EXPECT_EQ(nearestDivisor(64, 6), 4);
    EXPECT_EQ(nearestDivisor(80, 6), 5);
    EXPECT_EQ(nearestDivisor(7, 4), 1); // tie between 1 and 7: the smaller
    EXPECT_EQ(divisorsOf(12), (std::vector<int> { 1, 2, 3, 4, 6, 12 }));
}

// A cp that does not split the sequence is the one error: the sequence-parallel rule, which checks
// each CP rank's share, is not also reported with a tp "fix" that the heads rule then rejects.
TEST(Validation, CpThatDoesNotSplitTheSequenceIsTheOnlyError)
{
    // tp=8 cp=3 pp=4 dp=1 on 96 GPUs: 8192 is not divisible by 2*cp=6.
    Scenario s = makeScenario("llama3-70b", "h100-sxm", 12, 8, degrees(8, 4, 1, 3), batch(1, 64, 8192));
    const auto errors = validateScenario(s).errors;
    ASSERT_FALSE(errors.empty());
    for (const auto& e : errors)
        EXPECT_EQ(e.field, "parallel.cp") << e.field << ": " << e.text;

    // With a cp that splits it, the share per CP rank is what sequence parallelism must divide:
    // 8200 / (2 cp) is whole, 8200 / cp = 2050 is not divisible by tp=8.
    s = makeScenario("llama3-70b", "h100-sxm", 16, 8, degrees(8, 4, 1, 4), batch(1, 64, 8200));
    bool named = false;
    for (const auto& e : validateScenario(s).errors)
        named = named || (e.field == "parallel.sp" && e.text.find("seq_len/cp=2050") != std::string::npos);
    EXPECT_TRUE(named);
}
