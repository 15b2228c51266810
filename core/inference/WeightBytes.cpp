// SPDX-License-Identifier: Apache-2.0
#include "core/inference/WeightBytes.h"

#include "core/model/ModelMath.h"

namespace parallax::core {

double weightBytesPerParameter(WeightFormat format, double inFeatures)
{
    switch (format) {
    case WeightFormat::Bf16:
        return 2.0;
    case WeightFormat::Fp8:
        // e4m3 values with one fp32 scale per 128 x 128 block (DeepSeek-V3, arXiv:2412.19437
        // sec. 3.3.2; HF quantization_config weight_block_size [128, 128]).
        return 1.0 + 4.0 / (128.0 * 128.0);
    case WeightFormat::Int8:
        // W8A8-INT8 with one fp32 scale per output channel (SmoothQuant, arXiv:2211.10438 sec. 3;
        // llm-compressor "channel" strategy): 4 bytes per row of inFeatures weights.
        return 1.0 + (inFeatures > 0 ? 4.0 / inFeatures : 0.0);
    case WeightFormat::Int4:
        // W4A16 group-wise, group 128 with an fp16 scale and an fp16 zero point per group (AWQ,
        // arXiv:2306.00978 sec. 5.1; GPTQ group_size 128): 0.5 + 4/128 bytes.
        return 0.5 + 4.0 / 128.0;
    case WeightFormat::Nvfp4:
        // e2m1 values, one e4m3 scale per 16 values plus one fp32 per-tensor scale (NVIDIA
        // "Introducing NVFP4" technical blog, 2025; Blackwell tensor core block scaling): 0.5 + 1/16 bytes.
        return 0.5 + 1.0 / 16.0;
    case WeightFormat::Mxfp4:
        // e2m1 values, one e8m0 scale per 32 values (OCP Microscaling Formats MX v1.0 spec, sec. 5.3).
        return 0.5 + 1.0 / 32.0;
    }
    return 2.0;
}

ServingWeightBytes servingWeightBytes(const ModelSpec& m, WeightFormat format, int tp, int expertShards, int firstLayer,
    int endLayer, bool holdsEmbedding, bool holdsHead)
{
    ServingWeightBytes b;
    const double perParam = weightBytesPerParameter(format, static_cast<double>(m.hidden));
    for (int l = firstLayer; l < endLayer; ++l) {
        const LayerParameters p = layerParameters(m, l);
        b.quantized += perParam * ((p.attention + p.denseMlp + p.sharedExperts) / tp + p.routedExperts / expertShards);
        b.bf16 += 2.0 * (p.router + p.norms);
    }
    if (holdsEmbedding)
        b.bf16 += 2.0 * embeddingParameters(m) / tp; // vocabulary-parallel embedding
    if (holdsHead)
        b.bf16 += 2.0 * (lmHeadParameters(m) / tp + finalNormParameters(m));
    // A tied LM head shares the embedding; on a pipeline its last stage keeps its own copy.
    if (holdsHead && !holdsEmbedding && m.tiedEmbeddings)
        b.bf16 += 2.0 * embeddingParameters(m) / tp;
    return b;
}

} // namespace parallax::core
