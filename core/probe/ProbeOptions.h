// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace parallax::probe {

// Transformer dimensions whose GEMM shapes the probe measures. Defaults: Llama-3-70B (hidden 8192,
// FFN 28672, 64 heads, 8 KV heads: arXiv:2407.21783 Table 3; vocabulary 128256 from the released
// config.json; 8192-token sequences), at tp = 8 and one 8192-token micro-batch.
struct ModelDims {
    long hidden = 8192;
    long ffnHidden = 28672;
    int heads = 64;
    int kvHeads = 8;
    long vocab = 128256;
    long tokens = 8192; // tokens of one micro-batch (micro-batch size x sequence length)
    long seqLen = 0; // 0: one sequence per micro-batch (seqLen = tokens)
    int tp = 8;
    bool swiglu = true; // SwiGLU: the up and gate projections run as one fused GEMM of width 2 x ffn
    // Mixture of experts (0 experts: dense model).
    int experts = 0;
    int topK = 0;
    long expertFfnHidden = 0;
    int ep = 1;

    long headDim() const { return heads > 0 ? hidden / heads : 0; }
    long effectiveSeqLen() const { return seqLen > 0 ? seqLen : tokens; }
};

struct ProbeOptions {
    std::string out = "parallax-calibration.json";
    bool quick = false;
    int repeats = 0; // 0: the default for the mode (see effectiveRepeats)
    long maxSquare = 16384;
    bool list = false;
    bool help = false;
    bool version = false;
    ModelDims model;

    int effectiveRepeats() const { return repeats > 0 ? repeats : (quick ? 5 : 20); }
    int warmup() const { return quick ? 2 : 5; }
};

// Parses argv[1..]. On failure returns nullopt and sets `error` to a one-line message naming the
// flag and, where there is one, the fix.
std::optional<ProbeOptions> parseProbeOptions(const std::vector<std::string>& args, std::string& error);
std::string probeUsage();

} // namespace parallax::probe
