// SPDX-License-Identifier: Apache-2.0
#include "core/search/Family.h"

namespace parallax::core {

int scheduleValue(ScheduleKind kind, int vpp)
{
    return static_cast<int>(kind) * 256 + vpp;
}

int cpCommValue(CpCommType type, int a2aSize)
{
    return static_cast<int>(type) * 256 + a2aSize;
}

CpCommChoice cpCommOfValue(int value)
{
    return { static_cast<CpCommType>(value / 256), value % 256 };
}

int familyValue(const SearchPoint& p, FamilyDim dim)
{
    switch (dim) {
    case FamilyDim::Tp:
        return p.tp;
    case FamilyDim::Cp:
        return p.cp;
    case FamilyDim::Pp:
        return p.pp;
    case FamilyDim::Ep:
        return p.ep;
    case FamilyDim::Zero:
        return p.zero;
    case FamilyDim::MicroBatch:
        return p.microBatch;
    case FamilyDim::Recompute:
        return static_cast<int>(p.recompute);
    case FamilyDim::Schedule:
        return scheduleValue(p.pp == 1 ? ScheduleKind::OneFOneB : p.schedule, p.vpp);
    case FamilyDim::Dispatcher:
        return static_cast<int>(p.dispatcher);
    case FamilyDim::CpComm:
        return cpCommValue(p.cpComm, p.cpA2aSize);
    case FamilyDim::Count:
        break;
    }
    return 0;
}

std::string familyLabel(const FamilyKey& key)
{
    const std::string v = std::to_string(key.value);
    switch (key.dim) {
    case FamilyDim::Tp:
        return "tp=" + v;
    case FamilyDim::Cp:
        return "cp=" + v;
    case FamilyDim::Pp:
        return "pp=" + v;
    case FamilyDim::Ep:
        return "ep=" + v;
    case FamilyDim::Zero:
        return "zero=" + v;
    case FamilyDim::MicroBatch:
        return "micro_batch=" + v;
    case FamilyDim::Recompute:
        return std::string("recompute=") + toString(static_cast<Recompute>(key.value));
    case FamilyDim::Schedule: {
        const auto kind = static_cast<ScheduleKind>(key.value / 256);
        const int vpp = key.value % 256;
        return std::string("schedule=") + toString(kind) + (vpp > 1 ? " v=" + std::to_string(vpp) : std::string());
    }
    case FamilyDim::Dispatcher:
        return std::string("dispatcher=") + toString(static_cast<MoeDispatcher>(key.value));
    case FamilyDim::CpComm: {
        const CpCommChoice c = cpCommOfValue(key.value);
        return std::string("cp_comm_type=") + toString(c.type)
            + (c.a2aSize > 1 ? " a2a_size=" + std::to_string(c.a2aSize) : std::string());
    }
    case FamilyDim::Count:
        break;
    }
    return "?";
}

} // namespace parallax::core
