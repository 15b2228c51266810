// SPDX-License-Identifier: Apache-2.0
#include "core/parallel/ParameterShard.h"

#include "core/model/ModelMath.h"

namespace parallax::core {

ParameterShard stageParameters(const ModelSpec& m, const ParallelConfig& p, int firstLayer, int endLayer,
    bool holdsEmbedding, bool holdsHead, bool rankHoldsEmbedding)
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
    if (holdsEmbedding)
        s.dense += embeddingParameters(m) - static_cast<double>(m.vocab) * m.hidden + vocabTable;
    if (holdsHead) {
        s.dense += finalNormParameters(m);
        // A tied output layer reuses the input table; a stage that lacks it keeps a synchronised copy
        // (Megatron-Core tie_word_embeddings_state_dict) unless its rank holds the first stage too, as the V
        // schedules place it (arXiv:2412.19437 sec. 3.2.3: the shallowest and deepest layers on one rank).
        if (!m.tiedEmbeddings || (p.pp > 1 && !holdsEmbedding && !rankHoldsEmbedding))
            s.dense += vocabTable;
        // Multi-token prediction sits on the last stage (Megatron-Core's default MTP placement): per depth a
        // block like the last layer and the 2h -> h projection (split over tp) with its norms; its
        // embedding is the first stage's, held here as a synchronised copy when the two stages differ
        // (Megatron-Core tie_word_embeddings_state_dict, as for tied embeddings).
        if (m.mtpLayers > 0 && m.layers > 0) {
            const double h = static_cast<double>(m.hidden);
            const ParameterShard block = layerShard(m.layers - 1);
            const double projection = 2.0 * h * h;
            s.dense += m.mtpLayers * (block.dense + projection / tp + (mtpProjectionParameters(m) - projection));
            s.expert += m.mtpLayers * block.expert;
            if (!holdsEmbedding && !rankHoldsEmbedding && !m.tiedEmbeddings)
                s.dense += vocabTable;
        }
    }
    return s;
}

} // namespace parallax::core
