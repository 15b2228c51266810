// SPDX-License-Identifier: Apache-2.0
#pragma once

namespace parallax::core {

// Group-limited routing as Megatron-Core's group_limited_topk runs it (transformer/moe/moe_utils.py;
// DeepSeek-V3, arXiv:2412.19437 sec. 2.1.2): the experts form `groups` equal groups in order, a group's score
// is the sum of its best topK / chosen expert scores, the best `chosen` groups are kept and the token takes the
// topK best experts among theirs. Returns the expected number of `units` (equal blocks of the experts in order:
// nodes or ranks) that hold at least one of the token's experts, with exchangeable expert scores (the balanced
// load that auxiliary losses and DeepSeek's bias terms aim for). A chosen group was chosen for its best experts,
// so it nearly always receives one: DeepSeek-V3 reaches 3.95 of its 4 nodes, where picks uniform inside the
// chosen groups would reach 3.63. No closed form is known: a seeded simulation of the rule (deterministic,
// 4096 tokens), cached per argument set. Outside its domain (groups < 2, chosen >= groups, experts not divisible by
// groups) it returns 0.
double groupLimitedUnitsTouched(int experts, int topK, int groups, int chosen, int units);

} // namespace parallax::core
