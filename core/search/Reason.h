// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>

namespace parallax::core {

// The constraint a reason names. Tests and views select on the kind; the text carries the numbers.
enum class ReasonKind {
    Fits, // the winner's binding constraint and its margin
    OutOfMemory,
    TpCrossesDomain, // a tensor-parallel group leaves its NVLink domain
    Bubble, // pipeline idle time
    ExpertAllToAll, // MoE dispatch/combine: load imbalance, EP over IB
    TensorParallelComm,
    ContextParallelComm,
    DataParallelSync,
    Recompute,
    Compute, // uneven stages, the LM head, smaller GEMMs
    Optimizer,
    Choice, // why the winner's value of one dimension (TP, PP, schedule, ...) beats its neighbours
};

const char* toString(ReasonKind kind); // "out-of-memory", "tp-crosses-domain", ...

// One explanation, generated from the engine's numbers. `brief` is a few words for tables
// ("stage 0 needs 94 GiB > 80 GiB").
struct Reason {
    ReasonKind kind = ReasonKind::Choice;
    std::string text;
    std::string brief;
};

} // namespace parallax::core
