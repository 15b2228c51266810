// SPDX-License-Identifier: Apache-2.0
#include "core/io/PresetLibrary.h"
#include "core/model/ModelMath.h"

#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

using namespace parallax::core;

namespace {
// Half a unit of the last printed digit of a published total ("1.7B" -> 0.05e9): a published figure
// rounded to two significant digits cannot be matched closer than that.
double roundingHalfUnit(double published)
{
    std::ostringstream s;
    s.precision(15);
    s << published / 1e9;
    const std::string text = s.str();
    const auto dot = text.find('.');
    const int decimals = dot == std::string::npos ? 0 : static_cast<int>(text.size() - dot - 1);
    return 0.5 * std::pow(10.0, -decimals) * 1e9;
}
} // namespace

TEST(ModelPresets, AllLoadWithoutErrors)
{
    const auto& lib = PresetLibrary::instance();
    EXPECT_TRUE(lib.loadErrors().empty()) << lib.loadErrors().front();
    EXPECT_GE(lib.models().size(), 17u);
    EXPECT_EQ(lib.gpus().size(), 7u);
}

// Every model preset's counted parameters match its published total within 1%, or within the
// rounding of the published figure where it is printed with two digits (Megatron 1.7B, 3.6B). The
// published totals leave out multi-token-prediction modules (DeepSeek-V3's 671B; 685B with them).
TEST(ModelPresets, ParameterCountsMatchPublishedTotals)
{
    for (const ModelSpec& m : PresetLibrary::instance().models()) {
        ASSERT_GT(m.publishedParams, 0) << m.id;
        const double counted = totalParameters(m) - mtpParameters(m);
        const double tolerance = std::max(0.01 * m.publishedParams, roundingHalfUnit(m.publishedParams));
        EXPECT_NEAR(counted, m.publishedParams, tolerance) << m.id << " counted " << counted;
    }
}

TEST(ModelPresets, KnownTotalsAndActiveParameters)
{
    struct Case {
        const char* id;
        double total;
        double active;
    };
    // Published: Llama 3 (arXiv:2407.21783 Table 3), Mixtral (arXiv:2401.04088 sec. 2),
    // DeepSeek-V3 (arXiv:2412.19437 sec. 1: 671B total, 37B activated), Llama 4 Maverick (Meta's model card: 400B
    // total, 17B active; MoE on every other layer: counted as all-MoE it would be 784B).
    const Case cases[] = {
        { "llama3-8b", 8.03e9, 8.03e9 },
        { "llama3-70b", 70.6e9, 70.6e9 },
        { "llama3-405b", 405.9e9, 405.9e9 },
        { "mixtral-8x7b", 46.7e9, 12.9e9 },
        { "deepseek-v3", 671e9, 37e9 },
        { "llama4-maverick", 400e9, 17e9 },
    };
    for (const Case& c : cases) {
        const auto m = PresetLibrary::instance().model(c.id);
        ASSERT_TRUE(m) << c.id;
        ModelSpec main = *m; // the published figures count the model without its MTP module
        main.mtpLayers = 0;
        EXPECT_NEAR(totalParameters(main) / c.total, 1.0, 0.01) << c.id;
        EXPECT_NEAR(activeParameters(main) / c.active, 1.0, 0.02) << c.id; // "37B" is rounded
    }
}

// arXiv:2104.04473 eq. 2: P = 12 l h^2 (1 + 13/(12h) + (V+s)/(12 l h)) for the GPT block with biases,
// tied embeddings and learned positions.
TEST(ModelMath, MegatronEquationTwo)
{
    for (const char* id : { "megatron-gpt-18b", "megatron-gpt-145b", "megatron-gpt-1t", "gpt3-175b" }) {
        const auto m = PresetLibrary::instance().model(id);
        ASSERT_TRUE(m);
        const double l = m->layers, h = static_cast<double>(m->hidden), V = static_cast<double>(m->vocab),
                     s = m->seqLen;
        const double eq2 = 12 * l * h * h * (1 + 13 / (12 * h) + (V + s) / (12 * l * h));
        EXPECT_NEAR(totalParameters(*m) / eq2, 1.0, 1e-3) << id;
    }
}

// arXiv:2205.05198 eq. 7: model FLOPs per token 72 L h^2 (1 + s/(6h) + V/(12 h L)) for the GPT block.
TEST(ModelMath, KorthikantiModelFlops)
{
    const auto m = PresetLibrary::instance().model("gpt3-175b");
    ASSERT_TRUE(m);
    const double L = m->layers, h = static_cast<double>(m->hidden), V = static_cast<double>(m->vocab), s = m->seqLen;
    const double eq7 = 72 * L * h * h * (1 + s / (6 * h) + V / (12 * h * L));
    EXPECT_NEAR(3 * forwardFlopsPerToken(*m, m->seqLen) / eq7, 1.0, 2e-3);
}
