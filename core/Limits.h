// SPDX-License-Identifier: Apache-2.0
#pragma once

namespace parallax::core {

// Bounds on inputs. They keep every computation finite and the UI responsive; each is far above
// any published training run (Llama 3 405B used 16,384 GPUs, arXiv:2407.21783 sec. 3.3).
inline constexpr long long kMaxGpus = 65536;
inline constexpr long long kMaxDegree = 65536;
inline constexpr long long kMaxLayers = 4096;
inline constexpr long long kMaxHidden = 1 << 20;
inline constexpr long long kMaxHeads = 16384;
inline constexpr long long kMaxVocab = 1 << 24;
inline constexpr long long kMaxSeqLen = 1 << 24;
inline constexpr long long kMaxExperts = 16384;
// Multi-token-prediction depths (DeepSeek-V3 trains with 1, arXiv:2412.19437 sec. 4.2).
inline constexpr long long kMaxMtpLayers = 16;
// Draft tokens per speculative step (vLLM's MTP examples use 1-3; acceptance falls with depth).
inline constexpr long long kMaxSpeculativeTokens = 8;
inline constexpr long long kMaxGlobalBatch = 1LL << 26;
inline constexpr long long kMaxMicrobatchesPerStep = 1 << 20;
// Parameters per DDP gradient bucket (--ddp-bucket-size): above any model's parameters per GPU.
inline constexpr long long kMaxDdpBucketSize = 1LL << 40;
// Simulated op count above which the engine falls back to closed forms (the report says so).
inline constexpr long long kMaxSimulatedOps = 4'000'000;

} // namespace parallax::core
