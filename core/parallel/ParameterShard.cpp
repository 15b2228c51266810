// SPDX-License-Identifier: Apache-2.0
#include "core/parallel/ParameterShard.h"

#include "core/model/ModelMath.h"

namespace parallax::core {

ParameterShard stageParameters(
    const ModelSpec& m, const ParallelConfig& p, int firstLayer, int endLayer, bool holdsEmbedding, bool holdsHead)
{
    const double tp = p.tp;
    const double expertShards = static_cast<double>(p.ep) * p.etp;
    ParameterShard s = sumOverLayers(m, firstLayer, endLayer, ParameterShard {}, [&](int l) {
        const LayerParameters lp = layerParameters(m, l);
        // Projections and MLPs split over tp; norms and the router are replicated (Megatron-Core).
        return ParameterShard { (lp.attention + lp.denseMlp + lp.sharedExperts) / tp + lp.norms + lp.router,
            lp.routedExperts / expertShards };
    });
    // Vocabulary-parallel embedding and output layer (arXiv:1909.08053 sec. 3).
    const double vocabTable = static_cast<double>(m.vocab) * static_cast<double>(m.hidden) / tp;
    if (holdsEmbedding)
        s.dense += embeddingParameters(m) - static_cast<double>(m.vocab) * m.hidden + vocabTable;
    if (holdsHead) {
        s.dense += finalNormParameters(m);
        if (!m.tiedEmbeddings || (p.pp > 1 && !holdsEmbedding))
            s.dense += vocabTable;
    }
    return s;
}

} // namespace parallax::core
