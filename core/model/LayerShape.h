// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/model/InlineVector.h"
#include "core/model/ModelSpec.h"

namespace parallax::core {

// The submodule a linear belongs to, as selective recompute names them (Megatron-Core recompute_modules).
enum class LinearPart { Attention, MlaUpProjection, DenseMlp, SharedExpert, RoutedExpert, Router };

// One linear layer of a transformer block: y = x W with W of size in x out.
struct LinearShape {
    const char* name = "";
    double inFeatures = 0;
    double outFeatures = 0;
    bool tensorParallel = true; // split over tp (column or row parallel); false: replicated
    bool routedExpert = false; // runs on the tokens routed to this GPU's experts (split over etp)
    bool rowParallel = false; // input split over tp (attention output, MLP down); else output split
    LinearPart part = LinearPart::Attention;
};

// The per-layer structure the memory and time models share, so that both count the same tensors.
struct LayerShape {
    // At most: MLA's four projections, the output projection, the router, the shared and routed MLPs (10).
    InlineVector<LinearShape, 12> linears;
    bool moe = false;
    double heads = 0;
    double kvHeads = 0;
    double qkHeadDim = 0;
    double vHeadDim = 0;
    double mlpWidth = 0; // dense FFN width, or the shared experts' combined width on MoE layers
    double expertWidth = 0;
    double topK = 0;
    double experts = 0;
    int routerGroups = 0; // group-limited routing (MoeSpec::routerGroups); 0: none
    int routerGroupTopk = 0;
    double mlaLatentWidth = 0; // MLA: q and kv latent widths stored per token (replicated over tp)
};

LayerShape layerShape(const ModelSpec& m, int layer);

} // namespace parallax::core
