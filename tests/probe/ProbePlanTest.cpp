// SPDX-License-Identifier: Apache-2.0
#include "core/probe/ProbePlan.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>

using namespace parallax::probe;
using parallax::core::DType;

namespace {

std::map<std::string, GemmShape> byLabel(const std::vector<GemmShape>& shapes)
{
    std::map<std::string, GemmShape> out;
    for (const GemmShape& s : shapes)
        out[s.label] = s;
    return out;
}

void expectShape(const std::map<std::string, GemmShape>& shapes, const std::string& label, long m, long n, long k)
{
    const auto it = shapes.find(label);
    ASSERT_NE(it, shapes.end()) << label;
    EXPECT_EQ(it->second.m, m) << label;
    EXPECT_EQ(it->second.n, n) << label;
    EXPECT_EQ(it->second.k, k) << label;
}

DeviceFacts machine(int count, int major, int minor, bool nccl)
{
    DeviceFacts f;
    f.known = true;
    f.count = count;
    f.ccMajor = major;
    f.ccMinor = minor;
    f.ncclLoaded = nccl;
    return f;
}

} // namespace

TEST(ProbePlan, Llama3_70bShapesAtTp8)
{
    // Hidden 8192, 64 heads of 128, 8 KV heads, FFN 28672, vocab 128256, tp 8, 8192 tokens.
    const auto shapes = byLabel(transformerGemmShapes(ModelDims {}, /*backward=*/true));
    expectShape(shapes, "qkv.fwd", 8192, (64 + 2 * 8) * 128 / 8, 8192);
    expectShape(shapes, "attn-out.fwd", 8192, 8192, 64 * 128 / 8);
    expectShape(shapes, "mlp-up-gate.fwd", 8192, 2 * 28672 / 8, 8192);
    expectShape(shapes, "mlp-down.fwd", 8192, 8192, 28672 / 8);
    expectShape(shapes, "logits.fwd", 8192, 16128, 8192);
    // dX = dY W^T swaps n and k; dW = X^T dY reduces over the tokens.
    expectShape(shapes, "qkv.dgrad", 8192, 8192, 1280);
    expectShape(shapes, "qkv.wgrad", 8192, 1280, 8192);
    expectShape(shapes, "mlp-down.wgrad", 3584, 8192, 8192);
    EXPECT_EQ(shapes.size(), 15u);
    EXPECT_EQ(transformerGemmShapes(ModelDims {}, false).size(), 5u);
}

TEST(ProbePlan, BackwardGemmsEachCostTheForwardFlops)
{
    // The backward pass is twice the forward (arXiv:2104.04473 sec. 3.1): dgrad and wgrad each.
    double forward = 0, dgrad = 0, wgrad = 0;
    for (const GemmShape& s : transformerGemmShapes(ModelDims {}, true)) {
        const std::string pass = s.label.substr(s.label.rfind('.') + 1);
        (pass == "fwd" ? forward : pass == "dgrad" ? dgrad : wgrad) += s.flops();
    }
    EXPECT_GT(forward, 0);
    EXPECT_DOUBLE_EQ(dgrad, forward);
    EXPECT_DOUBLE_EQ(wgrad, forward);
}

TEST(ProbePlan, GeluAndTp1)
{
    ModelDims m;
    m.tp = 1;
    m.swiglu = false;
    m.tokens = 4096;
    const auto shapes = byLabel(transformerGemmShapes(m, false));
    expectShape(shapes, "mlp-up.fwd", 4096, 28672, 8192);
    expectShape(shapes, "qkv.fwd", 4096, 10240, 8192);
    expectShape(shapes, "logits.fwd", 4096, 128256, 8192); // already a multiple of 128
    EXPECT_EQ(shapes.count("mlp-up-gate.fwd"), 0u);
}

TEST(ProbePlan, ExpertGemmsUseBalancedRouting)
{
    // DeepSeek-V2-Lite-like: 64 experts, top-6, expert FFN 1408, hidden 2048.
    ModelDims m;
    m.hidden = 2048;
    m.heads = 16;
    m.kvHeads = 16;
    m.ffnHidden = 10944;
    m.tp = 1;
    m.tokens = 4096;
    m.experts = 64;
    m.topK = 6;
    m.expertFfnHidden = 1408;
    m.ep = 8;
    const auto shapes = byLabel(transformerGemmShapes(m, false));
    const long expertTokens = 4096L * 6 * 8 / 64; // 3072
    expectShape(shapes, "expert-up-gate.fwd", expertTokens, 2 * 1408, 2048);
    expectShape(shapes, "expert-down.fwd", expertTokens, 2048, 1408);
}

TEST(ProbePlan, VocabularyPaddingFollowsMegatron)
{
    EXPECT_EQ(paddedVocabPerRank(128256, 8), 16128); // 129024 / 8
    EXPECT_EQ(paddedVocabPerRank(50257, 1), 50304);
    EXPECT_EQ(paddedVocabPerRank(32000, 2), 16000); // already a multiple of 256
    EXPECT_EQ(paddedVocabPerRank(32000, 4), 8064); // 32256 / 4
}

TEST(ProbePlan, SquareSizes)
{
    EXPECT_EQ(squareSizes(16384, false), (std::vector<long> { 1024, 2048, 4096, 8192, 16384 }));
    EXPECT_EQ(squareSizes(16384, true), (std::vector<long> { 1024, 4096, 8192 }));
    EXPECT_EQ(squareSizes(4096, true), (std::vector<long> { 1024, 4096 }));
    EXPECT_EQ(squareSizes(4096, false), (std::vector<long> { 1024, 2048, 4096 }));
    EXPECT_EQ(squareSizes(5000, false), (std::vector<long> { 1024, 2048, 4096 }));
    EXPECT_TRUE(squareSizes(0, false).empty());
    EXPECT_EQ(squareSizes(65536, false).back(), 65536);
}

TEST(ProbePlan, UnknownMachinePlansEverythingWithConditions)
{
    const ProbePlan plan = buildProbePlan(ProbeOptions {}, DeviceFacts {});
    const auto fp8
        = std::count_if(plan.gemms.begin(), plan.gemms.end(), [](const GemmShape& g) { return g.dtype == DType::Fp8; });
    EXPECT_EQ(fp8, 15 + 5); // every transformer shape and square is 16-aligned
    EXPECT_EQ(plan.gemms.size(), 2u * (15 + 5));
    EXPECT_TRUE(plan.peers);
    EXPECT_TRUE(plan.collectives);
    EXPECT_EQ(plan.conditions.size(), 3u);
    EXPECT_EQ(plan.repeats, 20);
    EXPECT_EQ(plan.warmup, 5);
    EXPECT_EQ(plan.collectiveOps.size(), 4u);
    EXPECT_EQ(plan.collectiveBytes.front(), 64L << 10);
    EXPECT_EQ(plan.collectiveBytes.back(), 1L << 30);
    EXPECT_EQ(plan.collectiveBytes.size(), 8u); // 64 KiB x 4^i up to 1 GiB
}

TEST(ProbePlan, AmpereSingleGpuHasNoFp8PeersOrCollectives)
{
    const ProbePlan plan = buildProbePlan(ProbeOptions {}, machine(1, 8, 0, false));
    EXPECT_TRUE(
        std::none_of(plan.gemms.begin(), plan.gemms.end(), [](const GemmShape& g) { return g.dtype == DType::Fp8; }));
    EXPECT_FALSE(plan.peers);
    EXPECT_FALSE(plan.collectives);
    ASSERT_FALSE(plan.skipped.empty());
    EXPECT_NE(plan.skipped.front().find("compute capability 8.0"), std::string::npos);
    EXPECT_TRUE(plan.conditions.empty());
}

TEST(ProbePlan, HopperNodeRunsEverything)
{
    const ProbePlan plan = buildProbePlan(ProbeOptions {}, machine(8, 9, 0, true));
    EXPECT_TRUE(plan.peers);
    EXPECT_TRUE(plan.collectives);
    EXPECT_TRUE(plan.skipped.empty());
    EXPECT_TRUE(machine(1, 8, 9, false).hasFp8()); // Ada
    EXPECT_FALSE(machine(1, 8, 6, false).hasFp8());

    const ProbePlan noNccl = buildProbePlan(ProbeOptions {}, machine(8, 9, 0, false));
    EXPECT_TRUE(noNccl.peers);
    EXPECT_FALSE(noNccl.collectives);
    ASSERT_EQ(noNccl.skipped.size(), 1u);
    EXPECT_NE(noNccl.skipped.front().find("libnccl.so.2"), std::string::npos);
}

TEST(ProbePlan, QuickPlanIsSmaller)
{
    ProbeOptions quick;
    quick.quick = true;
    const ProbePlan plan = buildProbePlan(quick, machine(8, 9, 0, true));
    EXPECT_EQ(plan.repeats, 5);
    EXPECT_EQ(plan.warmup, 2);
    EXPECT_EQ(plan.gemms.size(), 2u * (5 + 3)); // forward shapes and three squares, bf16 and fp8
    EXPECT_EQ(plan.collectiveBytes, (std::vector<long> { 1L << 20, 16L << 20, 256L << 20 }));
    EXPECT_LT(plan.hbmBufferBytes, buildProbePlan(ProbeOptions {}, DeviceFacts {}).hbmBufferBytes);
}

TEST(ProbePlan, Fp8SkipsUnalignedShapes)
{
    ProbeOptions o;
    o.model.tokens = 1000; // not a multiple of 16
    const ProbePlan plan = buildProbePlan(o, machine(1, 9, 0, false));
    const bool listed = std::any_of(plan.gemms.begin(), plan.gemms.end(),
        [](const GemmShape& g) { return g.dtype == DType::Fp8 && g.label == "qkv.fwd"; });
    EXPECT_FALSE(listed);
    EXPECT_TRUE(std::any_of(plan.skipped.begin(), plan.skipped.end(),
        [](const std::string& s) { return s.rfind("fp8 qkv.fwd 1000x1280x8192", 0) == 0; }));
}

TEST(ProbePlan, AttentionIsPerGpuHeads)
{
    ProbeOptions o;
    o.model.tokens = 16384;
    o.model.seqLen = 4096;
    const AttentionPlan a = buildProbePlan(o, DeviceFacts {}).attention;
    EXPECT_EQ(a.batch, 4);
    EXPECT_EQ(a.heads, 8);
    EXPECT_EQ(a.seqLen, 4096);
    EXPECT_EQ(a.headDim, 128);
    // Scores and context: 2 x (2 s^2 d) FLOPs per sequence and head.
    EXPECT_DOUBLE_EQ(a.flops(), 4.0 * 4 * 8 * 4096.0 * 4096.0 * 128);
    EXPECT_EQ(a.scores().batch, 32);
    EXPECT_EQ(a.context().n, 128);
    EXPECT_EQ(a.context().k, 4096);
}

TEST(ProbePlan, BusBandwidthFollowsNcclTests)
{
    EXPECT_DOUBLE_EQ(busBandwidthFactor(CollectiveOp::AllReduce, 8), 1.75);
    EXPECT_DOUBLE_EQ(busBandwidthFactor(CollectiveOp::AllGather, 8), 0.875);
    EXPECT_DOUBLE_EQ(busBandwidthFactor(CollectiveOp::ReduceScatter, 2), 0.5);
    EXPECT_DOUBLE_EQ(busBandwidthFactor(CollectiveOp::AllToAll, 4), 0.75);
    EXPECT_DOUBLE_EQ(busBandwidthFactor(CollectiveOp::AllReduce, 1), 0);
    EXPECT_EQ(collectiveElements(1L << 20, 3), 524286);
    EXPECT_EQ(collectiveElements(1L << 20, 8), 524288);
    EXPECT_STREQ(collectiveOpName(CollectiveOp::ReduceScatter), "reduce_scatter");
}

TEST(ProbePlan, DescriptionListsEveryMeasurement)
{
    const ProbePlan plan = buildProbePlan(ProbeOptions {}, DeviceFacts {});
    const std::string text = describePlan(plan, DeviceFacts {});
    for (const char* needle : { "qkv.fwd", "mlp-down.wgrad", "square", "fp8", "Attention", "HBM", "Host<->device",
             "Peer copies", "all_to_all", "1 GiB", "64 KiB", "Condition: fp8" })
        EXPECT_NE(text.find(needle), std::string::npos) << needle;
}
