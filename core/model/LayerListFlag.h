// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>
#include <vector>

namespace parallax::core {

// A Megatron-LM per-layer 0/1 flag given as a Python list expression (megatron/training/arguments.py
// moe_freq_type, the type of --moe-layer-freq and --window-attn-skip-freq): lists of 0/1 joined by '+', each list
// or parenthesised group optionally repeated by '*', such as "([0]*3+[1]*58)", "([0,1]*24)" or "([1]*3+[0]*1)*3",
// expanded to one entry per layer. Empty with `error` set, naming `flag` (as "--moe-layer-freq"), where the value is
// not such an expression or does not cover `layers` layers.
std::vector<int> expandLayerList(const std::string& flag, const std::string& value, int layers, std::string& error);

} // namespace parallax::core
