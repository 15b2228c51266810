// SPDX-License-Identifier: Apache-2.0
#include "core/model/LayerShape.h"

namespace parallax::core {

LayerShape layerShape(const ModelSpec& m, int layer)
{
    LayerShape s;
    const double h = static_cast<double>(m.hidden);
    s.heads = m.heads;
    s.kvHeads = m.kvHeads > 0 ? m.kvHeads : m.heads;
    if (m.mla) {
        // MLA (arXiv:2412.19437 sec. 2.1.1): the down projections are small and replicated over tp
        // in Megatron-Core; the up projections and the output projection are split by heads.
        const MlaSpec& a = *m.mla;
        s.qkHeadDim = a.qkNopeHeadDim + a.qkRopeHeadDim;
        s.vHeadDim = a.vHeadDim;
        s.kvHeads = m.heads;
        if (a.qLoraRank > 0) {
            s.linears.push_back({ "q_down", h, static_cast<double>(a.qLoraRank), false, false });
            s.linears.push_back({ "q_up", static_cast<double>(a.qLoraRank), s.heads * s.qkHeadDim, true, false, false,
                LinearPart::MlaUpProjection });
        } else {
            s.linears.push_back({ "q", h, s.heads * s.qkHeadDim, true, false });
        }
        s.linears.push_back({ "kv_down", h, static_cast<double>(a.kvLoraRank + a.qkRopeHeadDim), false, false });
        s.linears.push_back({ "kv_up", static_cast<double>(a.kvLoraRank), s.heads * (a.qkNopeHeadDim + a.vHeadDim),
            true, false, false, LinearPart::MlaUpProjection });
        s.mlaLatentWidth = a.qLoraRank + a.kvLoraRank + a.qkRopeHeadDim;
    } else {
        s.qkHeadDim = s.vHeadDim = m.effectiveHeadDim();
        s.linears.push_back({ "qkv", h, (s.heads + 2 * s.kvHeads) * s.qkHeadDim, true, false });
    }
    s.linears.push_back({ "attn_out", s.heads * s.vHeadDim, h, true, false, true });

    const double upFactor = m.activation == Activation::SwiGlu ? 2.0 : 1.0; // gate and up fused
    auto addMlp = [&](const char* up, const char* down, double width, LinearPart part) {
        const bool expert = part == LinearPart::RoutedExpert;
        s.linears.push_back({ up, h, upFactor * width, true, expert, false, part });
        s.linears.push_back({ down, width, h, true, expert, true, part });
    };
    if (m.isMoeLayer(layer)) {
        s.moe = true;
        s.experts = m.moe->experts;
        s.topK = m.moe->topK;
        s.routerGroups = m.moe->routerGroups;
        s.routerGroupTopk = m.moe->routerGroupTopk;
        s.expertWidth = static_cast<double>(m.moe->expertFfnHidden);
        s.linears.push_back({ "router", h, s.experts, false, false, false, LinearPart::Router });
        if (m.moe->sharedExperts > 0) {
            s.mlpWidth = s.expertWidth * m.moe->sharedExperts;
            addMlp("shared_up", "shared_down", s.mlpWidth, LinearPart::SharedExpert);
        }
        addMlp("expert_up", "expert_down", s.expertWidth, LinearPart::RoutedExpert);
    } else {
        s.mlpWidth = static_cast<double>(m.ffnHidden);
        addMlp("mlp_up", "mlp_down", s.mlpWidth, LinearPart::DenseMlp);
    }
    return s;
}

} // namespace parallax::core
