// SPDX-License-Identifier: Apache-2.0
#include "core/parallel/ParameterShard.h"

#include "core/model/ModelMath.h"

namespace parallax::core {

ParameterShard stageParameters(
    const ModelSpec& m, const ParallelConfig& p, int firstLayer, int endLayer, const StageHolds& holds)
{
    const double tp = p.tp;
    const double expertShards = static_cast<double>(p.ep) * p.etp;
    const auto layerShard = [&](int l) {
        const LayerParameters lp = layerParameters(m, l);
        // Projections and MLPs split over tp; norms and the router are replicated (Megatron-Core).
        return ParameterShard { (lp.attention + lp.denseMlp + lp.sharedExperts) / tp + lp.norms + lp.router,
            lp.routedExperts / expertShards };
    };
    ParameterShard s = sumOverLayers(m, firstLayer, endLayer, ParameterShard {}, layerShard);
    // Vocabulary-parallel embedding and output layer (arXiv:1909.08053 sec. 3).
    const double vocabTable = static_cast<double>(m.vocab) * static_cast<double>(m.hidden) / tp;
    const bool embeddingOnRank = holds.embedding || holds.rankHoldsEmbedding;
    if (holds.embedding)
        s.dense += embeddingParameters(m) - static_cast<double>(m.vocab) * m.hidden + vocabTable;
    if (holds.head) {
        s.dense += finalNormParameters(m);
        // A tied output layer reuses the input table; a stage that lacks it keeps a synchronised copy
        // (Megatron-Core tie_word_embeddings_state_dict) unless its rank holds the first stage too, as the V
        // schedules place it (arXiv:2412.19437 sec. 3.2.3: the shallowest and deepest layers on one rank).
        if (!m.tiedEmbeddings || (p.pp > 1 && !embeddingOnRank))
            s.dense += vocabTable;
    }
    // Multi-token prediction (arXiv:2412.19437 sec. 2.2): per depth a block like the last layer and the 2h -> h
    // projection (split over tp) with its norms. Its embedding is the first stage's, held as a synchronised copy
    // where the rank lacks it (Megatron-Core's GPTModel builds the embedding on every stage with MTP layers),
    // unless a tied output layer on the same stage is that copy already.
    if (holds.mtpLayers > 0 && m.layers > 0) {
        const double h = static_cast<double>(m.hidden);
        const ParameterShard block = layerShard(m.layers - 1);
        const double projection = 2.0 * h * h;
        s.dense += holds.mtpLayers * (block.dense + projection / tp + (mtpProjectionParameters(m) - projection));
        s.expert += holds.mtpLayers * block.expert;
        if (!embeddingOnRank && !(holds.head && m.tiedEmbeddings))
            s.dense += vocabTable;
    }
    return s;
}

} // namespace parallax::core
