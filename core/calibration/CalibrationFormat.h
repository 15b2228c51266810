// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/cluster/Collectives.h"
#include "core/parallel/ParallelConfig.h"

// Spellings and units of the calibration file format (docs/probe.md is the specification), shared
// by its strict reader (CalibrationReader.cpp) and its writer (Calibration.cpp). Internal to core.
namespace parallax::core::calibration_format {

inline constexpr const char* kFormat = "parallax-calibration";
inline constexpr int kVersion = 1;
// Rates carry their unit in the key and come as <name>_median, _p10, _p90.
inline constexpr double kTflops = 1e12; // "tflops" keys: 1e12 FLOP/s
inline constexpr double kGbPerS = 1e9; // "gb_per_s" keys: 1e9 bytes/s (decimal, as datasheets)

// The file format owns its spellings, independent of the display names toString() gives elsewhere.
struct DTypeName {
    DType value;
    const char* name;
};
inline constexpr DTypeName kDTypeNames[] = { { DType::Bf16, "bf16" }, { DType::Fp8, "fp8" } };

struct KindName {
    CollectiveKind value;
    const char* name;
};
inline constexpr KindName kKindNames[] = {
    { CollectiveKind::AllReduce, "all_reduce" },
    { CollectiveKind::AllGather, "all_gather" },
    { CollectiveKind::ReduceScatter, "reduce_scatter" },
    { CollectiveKind::AllToAll, "all_to_all" },
    { CollectiveKind::P2P, "p2p" },
};

inline const char* dtypeName(DType d)
{
    for (const auto& e : kDTypeNames) {
        if (e.value == d)
            return e.name;
    }
    return "bf16";
}

inline const char* kindName(CollectiveKind k)
{
    for (const auto& e : kKindNames) {
        if (e.value == k)
            return e.name;
    }
    return "all_reduce";
}

} // namespace parallax::core::calibration_format
