// SPDX-License-Identifier: Apache-2.0
#include "core/search/Reason.h"

namespace parallax::core {

const char* toString(ReasonKind kind)
{
    switch (kind) {
    case ReasonKind::Fits:
        return "fits";
    case ReasonKind::OutOfMemory:
        return "out-of-memory";
    case ReasonKind::TpCrossesDomain:
        return "tp-crosses-domain";
    case ReasonKind::Bubble:
        return "bubble";
    case ReasonKind::ExpertAllToAll:
        return "expert-all-to-all";
    case ReasonKind::TensorParallelComm:
        return "tp-communication";
    case ReasonKind::ContextParallelComm:
        return "cp-communication";
    case ReasonKind::DataParallelSync:
        return "dp-sync";
    case ReasonKind::Recompute:
        return "recompute";
    case ReasonKind::Compute:
        return "compute";
    case ReasonKind::Optimizer:
        return "optimizer";
    case ReasonKind::Choice:
        return "choice";
    }
    return "?";
}

} // namespace parallax::core
