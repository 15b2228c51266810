// SPDX-License-Identifier: Apache-2.0
// sumOverLayers (core/model/ModelMath.h) replaces one call per layer with one per layer kind; the
// parameter counts, FLOPs and stage shards built on it must not move by a single bit.
#include "core/io/PresetLibrary.h"
#include "core/model/ModelMath.h"
#include "core/parallel/ParameterShard.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

using namespace parallax::core;

namespace {
ModelSpec model(const char* id)
{
    const auto m = PresetLibrary::instance().model(id);
    if (!m)
        throw std::runtime_error(std::string("no model preset ") + id);
    return *m;
}

// The layer-by-layer sums sumOverLayers stands for.
double perLayerTotal(const ModelSpec& m)
{
    double p = embeddingParameters(m) + lmHeadParameters(m) + finalNormParameters(m);
    for (int l = 0; l < m.layers; ++l)
        p += layerParameters(m, l).total();
    return p + mtpParameters(m);
}

double perLayerForward(const ModelSpec& m, int seqLen)
{
    double f = lmHeadForwardFlopsPerToken(m);
    for (int l = 0; l < m.layers; ++l)
        f += layerForwardFlopsPerToken(m, l, seqLen);
    return f + m.mtpLayers * mtpForwardFlopsPerToken(m, seqLen);
}
} // namespace

TEST(SumOverLayers, CallsOncePerKindInLayerOrder)
{
    const ModelSpec m = model("deepseek-v3"); // 3 dense layers, then MoE layers
    ASSERT_TRUE(m.isMoe());
    ASSERT_GT(m.moe->firstDenseLayers, 0);
    std::vector<int> called;
    const double sum = sumOverLayers(m, 0, m.layers, 0.0, [&](int l) {
        called.push_back(l);
        return m.isMoeLayer(l) ? 1.0 : 1000.0;
    });
    EXPECT_EQ(called, (std::vector<int> { 0, m.moe->firstDenseLayers }));
    EXPECT_EQ(sum, 1000.0 * m.moe->firstDenseLayers + (m.layers - m.moe->firstDenseLayers));
    // A range inside the MoE layers calls once; an empty range not at all.
    called.clear();
    EXPECT_EQ(sumOverLayers(m, 10, 14, 0.5,
                  [&](int l) {
                      called.push_back(l);
                      return 2.0;
                  }),
        8.5);
    EXPECT_EQ(called, std::vector<int> { 10 });
    called.clear();
    sumOverLayers(m, 5, 5, 0.0, [&](int l) {
        called.push_back(l);
        return 1.0;
    });
    EXPECT_TRUE(called.empty());
}

// Bit for bit the layer-by-layer sums, on a dense model and on MoE models with and without dense layers.
TEST(SumOverLayers, ModelSumsAreBitIdenticalToPerLayerSums)
{
    for (const char* id : { "llama3-70b", "deepseek-v3", "mixtral-8x7b", "gpt3-175b" }) {
        SCOPED_TRACE(id);
        const ModelSpec m = model(id);
        EXPECT_EQ(totalParameters(m), perLayerTotal(m));
        EXPECT_EQ(forwardFlopsPerToken(m, 4096), perLayerForward(m, 4096));
        ParallelConfig p;
        p.tp = 4;
        p.ep = m.isMoe() ? 8 : 1;
        for (int first : { 0, 1, 3, m.layers / 2 }) {
            const int end = std::min(m.layers, first + 7);
            const ParameterShard s = stageParameters(m, p, first, end, StageHolds {});
            ParameterShard expected;
            for (int l = first; l < end; ++l) {
                const LayerParameters lp = layerParameters(m, l);
                expected.dense += (lp.attention + lp.denseMlp + lp.sharedExperts) / p.tp + lp.norms + lp.router;
                expected.expert += lp.routedExperts / (static_cast<double>(p.ep) * p.etp);
            }
            EXPECT_EQ(s.expert, expected.expert);
            EXPECT_EQ(s.dense, expected.dense);
        }
    }
}

// The whole-model sums are kept per thread for the last model asked about: an edit of any field of the
// same object is seen, and going back gives the first sums again.
TEST(SumOverLayers, KeptModelSumsFollowEveryEdit)
{
    ModelSpec m = model("llama3-8b");
    const double total = totalParameters(m);
    const double flops = forwardFlopsPerToken(m, 8192);
    EXPECT_EQ(totalParameters(m), perLayerTotal(m));
    m.layers += 1;
    EXPECT_GT(totalParameters(m), total);
    EXPECT_EQ(totalParameters(m), perLayerTotal(m));
    EXPECT_GT(forwardFlopsPerToken(m, 8192), flops);
    m.layers -= 1;
    EXPECT_EQ(totalParameters(m), total);
    EXPECT_EQ(forwardFlopsPerToken(m, 8192), flops);
    EXPECT_LT(forwardFlopsPerToken(m, 4096), flops); // another sequence length, the same model
    m.vocab += 128;
    EXPECT_GT(totalParameters(m), total);

    ModelSpec moe = model("mixtral-8x7b");
    const double active = activeParameters(moe);
    const double moeTotal = totalParameters(moe);
    moe.moe->topK = 1; // fewer active experts: the total stays
    EXPECT_LT(activeParameters(moe), active);
    EXPECT_EQ(totalParameters(moe), moeTotal);
}
