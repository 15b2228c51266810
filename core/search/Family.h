// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/search/SearchSpace.h"

#include <string>

namespace parallax::core {

// Families of configurations: every configuration with one dimension at one value ("pp=4").
// The search keeps the best and the leanest member of each, so it can answer "why not PP=4?"
// with the strongest configuration that has PP=4.
enum class FamilyDim { Tp = 0, Cp, Pp, Ep, Zero, MicroBatch, Recompute, Schedule, Dispatcher, CpComm, Count };
inline constexpr int kFamilyDimCount = static_cast<int>(FamilyDim::Count);

struct FamilyKey {
    FamilyDim dim = FamilyDim::Tp;
    int value = 0;
    bool operator<(const FamilyKey& o) const { return dim != o.dim ? dim < o.dim : value < o.value; }
    bool operator==(const FamilyKey& o) const { return dim == o.dim && value == o.value; }
};

// Schedules are one dimension: kind and virtual stages packed into one value.
int scheduleValue(ScheduleKind kind, int vpp);
// Context-parallel communications are one dimension: the type and the a2a+p2p level packed into one value.
int cpCommValue(CpCommType type, int a2aSize);
CpCommChoice cpCommOfValue(int value);
int familyValue(const SearchPoint& p, FamilyDim dim);
// "tp=16", "schedule=interleaved-1f1b v=2", "recompute=full", "dispatcher=deepep", "cp_comm_type=a2a"
std::string familyLabel(const FamilyKey& key);

} // namespace parallax::core
