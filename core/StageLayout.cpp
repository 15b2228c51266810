#include "core/StageLayout.h"

#include <algorithm>

namespace parallax::core {

StageLayout::StageLayout(int layers, int stages)
{
    stages = std::max(1, stages);
    std::vector<int> count(stages, layers / stages);
    int extra = layers % stages;
    // Middle stages take the remainder first, then the last, then the first.
    for (int s = 1; s + 1 < stages && extra > 0; ++s, --extra)
        ++count[s];
    if (extra > 0 && stages > 1) {
        ++count[stages - 1];
        --extra;
    }
    if (extra > 0)
        ++count[0];
    m_first.assign(stages + 1, 0);
    for (int s = 0; s < stages; ++s)
        m_first[s + 1] = m_first[s] + count[s];
}

} // namespace parallax::core
