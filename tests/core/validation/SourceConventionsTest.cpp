// SPDX-License-Identifier: Apache-2.0
// Per-source conventions taken from the papers' method sections (core/validation/SourceConventions.cpp).
#include "core/validation/SourceConventions.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

using namespace parallax::core;

// Llama 3 (arXiv:2407.21783 sec. 3.3): FSDP shards optimizer states and gradients but not the weights, and
// reduce-scatters the gradients in FP32. Under Megatron-Core's default (ZeRO-1) the whole fp32 gradient
// buffer of a 405B TP8 PP16 stage (12 GiB) would stay on every GPU.
TEST(SourceConventions, LlamaThreeShardsGradientsLikeZeroTwo)
{
    const nlohmann::json record = { { "source", { { "arxiv", "2407.21783" }, { "title", "The Llama 3 Herd" } } },
        { "model", { { "name", "Llama 3 405B" } } } };
    const SourceConventions c = sourceConventions(record);
    EXPECT_EQ(c.defaultZero, 2);
    EXPECT_TRUE(c.gradReduceInFp32);
    EXPECT_FALSE(c.dropout);
    EXPECT_TRUE(c.flashAttention);
    // Other Megatron-Core era sources keep the distributed optimizer.
    const nlohmann::json other = { { "source", { { "arxiv", "2402.15627" }, { "title", "MegaScale" } } },
        { "model", { { "name", "GPT 175B" } } } };
    EXPECT_EQ(sourceConventions(other).defaultZero, 1);
}

// Korthikanti et al. (arXiv:2205.05198 sec. 4-5) count the stored softmax, its dropout mask and the
// attention-over-V input, and recompute them selectively: Megatron-LM of 2022 without a fused attention
// kernel and with dropout, on Selene's 200 Gb/s HDR links. The Megatron-Core defaults (FlashAttention, no
// dropout, 400 Gb/s) would make selective recompute free and every layer faster.
TEST(SourceConventions, KorthikantiRunsUnfusedAttentionWithDropout)
{
    const nlohmann::json record = { { "source", { { "arxiv", "2205.05198" }, { "title", "Korthikanti et al." } } },
        { "model", { { "name", "GPT 22B" } } } };
    const SourceConventions c = sourceConventions(record);
    EXPECT_FALSE(c.flashAttention);
    EXPECT_TRUE(c.dropout);
    EXPECT_DOUBLE_EQ(c.nicGbps, 200);
    EXPECT_FALSE(c.dpOverlap);
}

// MegaScale fuses its TP collectives with the GEMMs (arXiv:2402.15627 sec. 3.2); the Megatron-LM baseline
// rows of the same paper keep them exposed.
TEST(SourceConventions, MegaScaleRowsOverlapTensorParallelCommunication)
{
    const nlohmann::json megascale = { { "source", { { "arxiv", "2402.15627" }, { "title", "MegaScale" } } },
        { "system", "MegaScale" }, { "model", { { "name", "GPT 175B" } } } };
    const nlohmann::json baseline = { { "source", { { "arxiv", "2402.15627" }, { "title", "MegaScale" } } },
        { "system", "Megatron-LM" }, { "model", { { "name", "GPT 175B" } } } };
    EXPECT_TRUE(sourceConventions(megascale).tpCommOverlap);
    EXPECT_FALSE(sourceConventions(baseline).tpCommOverlap);
}

// Megatron-Turing NLG 530B (arXiv:2201.11990 sec. 2) ran Megatron-LM of 2021 under DeepSpeed's pipeline engine and
// ZeRO-1 on Selene, with activation checkpointing: the Megatron-Core defaults (FlashAttention, SP, overlapped
// gradient reduce and p2p, 400 Gb/s links, no recompute) would describe a different, faster run.
TEST(SourceConventions, MtNlgRunsMegatronDeepSpeedOf2021)
{
    const nlohmann::json record = { { "source", { { "arxiv", "2201.11990" }, { "title", "MT-NLG 530B" } } },
        { "model", { { "name", "MT-NLG 530B" } } } };
    const SourceConventions c = sourceConventions(record);
    EXPECT_EQ(c.label, "arXiv:2201.11990");
    EXPECT_FALSE(c.flashAttention);
    EXPECT_TRUE(c.dropout);
    EXPECT_FALSE(c.sequenceParallelDefault);
    EXPECT_FALSE(c.dpOverlap);
    EXPECT_FALSE(c.p2pOverlap);
    EXPECT_DOUBLE_EQ(c.nicGbps, 200);
    EXPECT_EQ(c.defaultZero, 1);
    EXPECT_EQ(c.defaultRecompute, Recompute::Full);
    EXPECT_EQ(c.defaultVocab, 51200);
    EXPECT_EQ(c.defaultVirtualStages, 1); // DeepSpeed's pipeline engine does not interleave
    EXPECT_EQ(c.flopConvention, FlopConvention::NarayananEq3);
}

// Nemotron-4 340B (arXiv:2406.11704) interleaves its 12 pipeline stages without printing the chunks: NVIDIA's
// pre-training configuration of the model interleaves 8, with TP communication overlap. Nemotron-4 15B
// (arXiv:2402.16819, no pipeline) keeps the Megatron-Core defaults.
TEST(SourceConventions, NemotronFour340bInterleavesEightChunks)
{
    const nlohmann::json big = { { "source", { { "arxiv", "2406.11704" }, { "title", "Nemotron-4 340B" } } },
        { "model", { { "name", "Nemotron-4 340B" } } } };
    const SourceConventions c = sourceConventions(big);
    EXPECT_EQ(c.defaultVirtualStages, 8);
    EXPECT_TRUE(c.tpCommOverlap);
    EXPECT_TRUE(c.flashAttention);
    EXPECT_EQ(c.defaultZero, 1);
    const nlohmann::json small = { { "source", { { "arxiv", "2402.16819" }, { "title", "Nemotron-4 15B" } } },
        { "model", { { "name", "Nemotron-4 15B" } } } };
    EXPECT_EQ(sourceConventions(small).defaultVirtualStages, 1);
    EXPECT_FALSE(sourceConventions(small).tpCommOverlap);
}
