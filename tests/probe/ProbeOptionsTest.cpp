// SPDX-License-Identifier: Apache-2.0
#include "core/probe/ProbeOptions.h"

#include <gtest/gtest.h>

#include <functional>

using namespace parallax::probe;

namespace {

std::optional<ProbeOptions> parse(const std::vector<std::string>& args, std::string& error)
{
    return parseProbeOptions(args, error);
}

} // namespace

TEST(ProbeOptions, DefaultsAreLlama3_70bAtTp8)
{
    std::string error;
    const auto o = parse({}, error);
    ASSERT_TRUE(o) << error;
    EXPECT_EQ(o->out, "parallax-calibration.json");
    EXPECT_FALSE(o->quick);
    EXPECT_FALSE(o->list);
    EXPECT_EQ(o->maxSquare, 16384);
    EXPECT_EQ(o->effectiveRepeats(), 20);
    EXPECT_EQ(o->model.hidden, 8192);
    EXPECT_EQ(o->model.ffnHidden, 28672);
    EXPECT_EQ(o->model.heads, 64);
    EXPECT_EQ(o->model.kvHeads, 8);
    EXPECT_EQ(o->model.vocab, 128256);
    EXPECT_EQ(o->model.tokens, 8192);
    EXPECT_EQ(o->model.effectiveSeqLen(), 8192);
    EXPECT_EQ(o->model.tp, 8);
    EXPECT_EQ(o->model.headDim(), 128);
    EXPECT_TRUE(o->model.swiglu);
    EXPECT_EQ(o->model.experts, 0);
}

TEST(ProbeOptions, AcceptsGoodArguments)
{
    struct Case {
        std::vector<std::string> args;
        std::function<bool(const ProbeOptions&)> holds;
        const char* what;
    };
    const Case cases[] = {
        { { "--out", "x.json" }, [](const ProbeOptions& o) { return o.out == "x.json"; }, "--out FILE" },
        { { "--out=y.json" }, [](const ProbeOptions& o) { return o.out == "y.json"; }, "--out=FILE" },
        { { "--quick" }, [](const ProbeOptions& o) { return o.quick && o.effectiveRepeats() == 5 && o.warmup() == 2; },
            "--quick" },
        { { "--quick", "--repeats", "9" }, [](const ProbeOptions& o) { return o.effectiveRepeats() == 9; },
            "--repeats overrides --quick" },
        { { "--repeats=3" }, [](const ProbeOptions& o) { return o.repeats == 3; }, "--repeats=N" },
        { { "--max-square", "4096" }, [](const ProbeOptions& o) { return o.maxSquare == 4096; }, "--max-square" },
        { { "--max-square", "0" }, [](const ProbeOptions& o) { return o.maxSquare == 0; }, "--max-square 0" },
        { { "--list" }, [](const ProbeOptions& o) { return o.list; }, "--list" },
        { { "--help" }, [](const ProbeOptions& o) { return o.help; }, "--help" },
        { { "-h" }, [](const ProbeOptions& o) { return o.help; }, "-h" },
        { { "--version" }, [](const ProbeOptions& o) { return o.version; }, "--version" },
        { { "--help", "--tp", "3" }, [](const ProbeOptions& o) { return o.help; }, "--help skips model checks" },
        { { "--tp", "4" }, [](const ProbeOptions& o) { return o.model.tp == 4; }, "--tp" },
        { { "--tp", "1", "--tokens", "4096", "--seq", "2048" },
            [](const ProbeOptions& o) { return o.model.tokens == 4096 && o.model.effectiveSeqLen() == 2048; },
            "--tokens and --seq" },
        { { "--activation", "gelu" }, [](const ProbeOptions& o) { return !o.model.swiglu; }, "--activation gelu" },
        { { "--hidden", "4096", "--ffn", "14336", "--heads", "32", "--kv-heads", "8", "--vocab", "32000" },
            [](const ProbeOptions& o) {
                return o.model.hidden == 4096 && o.model.ffnHidden == 14336 && o.model.heads == 32
                    && o.model.kvHeads == 8 && o.model.vocab == 32000;
            },
            "model dims" },
        { { "--experts", "64", "--top-k", "8", "--expert-ffn", "1408", "--ep", "8" },
            [](const ProbeOptions& o) {
                return o.model.experts == 64 && o.model.topK == 8 && o.model.expertFfnHidden == 1408 && o.model.ep == 8;
            },
            "MoE flags" },
    };
    for (const Case& c : cases) {
        std::string error;
        const auto o = parse(c.args, error);
        ASSERT_TRUE(o) << c.what << ": " << error;
        EXPECT_TRUE(c.holds(*o)) << c.what;
        EXPECT_TRUE(error.empty()) << c.what;
    }
}

TEST(ProbeOptions, RejectsBadArgumentsWithOneLineNamingTheFlag)
{
    struct Case {
        std::vector<std::string> args;
        std::string message;
    };
    const Case cases[] = {
        { { "--bogus" }, "unknown option '--bogus' (see --help)" },
        { { "extra" }, "unexpected argument 'extra' (see --help)" },
        { { "--out" }, "--out needs a value" },
        { { "--out=" }, "--out needs a file name" },
        { { "--repeats" }, "--repeats needs a value" },
        { { "--repeats", "0" }, "--repeats must be in [1, 10000], got 0" },
        { { "--repeats", "abc" }, "--repeats must be an integer, got 'abc'" },
        { { "--repeats", "5x" }, "--repeats must be an integer, got '5x'" },
        { { "--repeats=" }, "--repeats must be an integer, got ''" },
        { { "--tp", "-2" }, "--tp must be in [1, 1024], got -2" },
        { { "--quick=1" }, "--quick takes no value" },
        { { "--activation", "relu" }, "--activation must be swiglu or gelu, got 'relu'" },
        { { "--tp", "16" },
            "--kv-heads=8 is not divisible by --tp=16: each rank needs whole KV heads; use a tp that "
            "divides 8" },
        { { "--heads", "60" }, "--hidden=8192 is not divisible by --heads=60: the head dimension must be whole" },
        { { "--kv-heads", "7", "--tp", "1" },
            "--heads=64 is not a multiple of --kv-heads=7: each KV head serves a "
            "whole group of query heads" },
        { { "--tp", "3" }, "--heads=64 is not divisible by --tp=3: choose a tp that divides the head count" },
        { { "--tokens", "1000", "--seq", "300" },
            "--tokens=1000 is not a multiple of --seq=300: tokens = micro-batch "
            "size x sequence length" },
        { { "--experts", "8" }, "--experts needs --top-k (experts each token is routed to)" },
        { { "--experts", "8", "--top-k", "9", "--expert-ffn", "64" }, "--top-k=9 exceeds --experts=8" },
        { { "--experts", "8", "--top-k", "2" }, "--experts needs --expert-ffn (FFN hidden size of one expert)" },
        { { "--experts", "6", "--top-k", "2", "--expert-ffn", "64", "--ep", "4" },
            "--experts=6 is not divisible by --ep=4: each rank holds the same number of experts" },
        { { "--top-k", "2" }, "--top-k needs --experts" },
        { { "--ep", "2" }, "--ep needs --experts" },
    };
    for (const Case& c : cases) {
        std::string error;
        const auto o = parse(c.args, error);
        EXPECT_FALSE(o) << c.message;
        EXPECT_EQ(error, c.message);
        EXPECT_EQ(error.find('\n'), std::string::npos);
    }
}

TEST(ProbeOptions, UsageNamesEveryFlagAndTheExitCodes)
{
    const std::string usage = probeUsage();
    for (const char* flag : { "--out", "--quick", "--repeats", "--max-square", "--list", "--help", "--version",
             "--hidden", "--ffn", "--heads", "--kv-heads", "--vocab", "--tokens", "--seq", "--tp", "--activation",
             "--experts", "--top-k", "--expert-ffn", "--ep" })
        EXPECT_NE(usage.find(flag), std::string::npos) << flag;
    EXPECT_NE(usage.find("3 no CUDA device"), std::string::npos);
}
