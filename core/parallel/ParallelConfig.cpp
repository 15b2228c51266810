// SPDX-License-Identifier: Apache-2.0
#include "core/parallel/ParallelConfig.h"

#include <array>
#include <cstdio>
#include <utility>

namespace parallax::core {

namespace {
constexpr std::array<std::pair<ScheduleKind, const char*>, 8> kSchedules { {
    { ScheduleKind::GPipe, "gpipe" },
    { ScheduleKind::OneFOneB, "1f1b" },
    { ScheduleKind::Interleaved1F1B, "interleaved-1f1b" },
    { ScheduleKind::ZbH1, "zb-h1" },
    { ScheduleKind::ZbH2, "zb-h2" },
    { ScheduleKind::ZbV, "zb-v" },
    { ScheduleKind::DualPipe, "dualpipe" },
    { ScheduleKind::DualPipeV, "dualpipev" },
} };
constexpr std::array<std::pair<Recompute, const char*>, 3> kRecompute { {
    { Recompute::None, "none" },
    { Recompute::Selective, "selective" },
    { Recompute::Full, "full" },
} };
constexpr std::array<std::pair<unsigned, const char*>, 7> kRecomputeModules { {
    { recompute_module::kCoreAttn, "core_attn" },
    { recompute_module::kMoeAct, "moe_act" },
    { recompute_module::kLayernorm, "layernorm" },
    { recompute_module::kMlaUpProj, "mla_up_proj" },
    { recompute_module::kMlp, "mlp" },
    { recompute_module::kMoe, "moe" },
    { recompute_module::kSharedExperts, "shared_experts" },
} };
constexpr std::array<std::pair<DType, const char*>, 2> kDTypes { {
    { DType::Bf16, "bf16" },
    { DType::Fp8, "fp8" },
} };
constexpr std::array<std::pair<MoeDispatcher, const char*>, 2> kDispatchers { {
    { MoeDispatcher::AllToAll, "alltoall" },
    { MoeDispatcher::DeepEp, "deepep" },
} };
constexpr std::array<std::pair<CpCommType, const char*>, 4> kCpCommTypes { {
    { CpCommType::P2p, "p2p" },
    { CpCommType::AllGather, "all_gather" },
    { CpCommType::A2a, "a2a" },
    { CpCommType::A2aP2p, "a2a+p2p" },
} };

template <typename Enum, std::size_t N>
const char* nameOf(const std::array<std::pair<Enum, const char*>, N>& table, Enum value)
{
    for (const auto& [e, name] : table) {
        if (e == value)
            return name;
    }
    return "?";
}

template <typename Enum, std::size_t N>
bool valueOf(const std::array<std::pair<Enum, const char*>, N>& table, const std::string& text, Enum& out)
{
    for (const auto& [e, name] : table) {
        if (text == name) {
            out = e;
            return true;
        }
    }
    return false;
}
} // namespace

const char* toString(ScheduleKind k)
{
    return nameOf(kSchedules, k);
}
const char* toString(Recompute r)
{
    return nameOf(kRecompute, r);
}
const char* toString(DType d)
{
    return nameOf(kDTypes, d);
}
const char* toString(MoeDispatcher d)
{
    return nameOf(kDispatchers, d);
}
bool parseMoeDispatcher(const std::string& s, MoeDispatcher& out)
{
    return valueOf(kDispatchers, s, out);
}
const char* toString(CpCommType t)
{
    return nameOf(kCpCommTypes, t);
}
bool parseCpCommType(const std::string& s, CpCommType& out)
{
    return valueOf(kCpCommTypes, s == "allgather" ? std::string("all_gather") : s, out);
}
std::string cpCommText(CpCommType t, int cp, int a2aSize)
{
    std::string s = toString(t);
    if (t == CpCommType::A2aP2p)
        s += " (" + std::to_string(a2aSize) + " x " + std::to_string(cp / std::max(1, a2aSize)) + ")";
    return s;
}
std::vector<std::string> nonDefaultSwitches(const ParallelConfig& p, const TrainingConfig& t)
{
    std::vector<std::string> out;
    if (!t.flashAttention)
        out.emplace_back("unfused attention");
    if (p.tpCommOverlap && p.tp > 1)
        out.emplace_back("TP comm overlap");
    if (p.cpCommType != CpCommType::P2p && p.cp > 1)
        out.push_back("CP " + cpCommText(p.cpCommType, p.cp, p.cpA2aSize));
    if (!p.dpOverlap)
        out.emplace_back("DP sync not overlapped");
    if (p.ddpBucketSize > 0 && p.dpOverlap) {
        // "DDP buckets of 100M parameters": millions, to one decimal below 10M.
        const double millions = static_cast<double>(p.ddpBucketSize) / 1e6;
        char text[64];
        std::snprintf(text, sizeof text, millions < 10 ? "%.1fM" : "%.0fM", millions);
        out.emplace_back(std::string("DDP buckets of ") + text + " parameters");
    }
    if (!p.p2pOverlap && p.pp > 1)
        out.emplace_back("blocking p2p");
    if (!p.gradReduceInFp32)
        out.emplace_back("16-bit gradient reduce");
    if (p.epCommOverlap && p.ep > 1)
        out.emplace_back("EP comm overlap");
    if (t.optimizer.precisionAware)
        out.push_back(optimizerPrecisionText(t.optimizer));
    if (t.activationFuncFp8InputStore)
        out.emplace_back("fp8 SwiGLU input store");
    if (t.deepseekActivationCache)
        out.emplace_back("DeepSeek fp8/E5M6 activation cache");
    if (t.moeTokenDispatcher == MoeDispatcher::DeepEp && p.ep > 1)
        out.push_back("DeepEP dispatcher (" + std::to_string(t.moeDeepepNumSms) + " SMs)");
    if (t.deepseekFp8Dispatch && p.ep > 1)
        out.emplace_back("fp8 dispatch");
    return out;
}

bool parseSchedule(const std::string& s, ScheduleKind& out)
{
    if (s == "interleaved" || s == "interleaved1f1b") {
        out = ScheduleKind::Interleaved1F1B;
        return true;
    }
    return valueOf(kSchedules, s, out);
}
bool parseRecompute(const std::string& s, Recompute& out)
{
    return valueOf(kRecompute, s, out);
}
bool parseRecomputeModule(const std::string& s, unsigned& bit)
{
    return valueOf(kRecomputeModules, s, bit);
}
std::vector<std::string> recomputeModuleNames(unsigned modules)
{
    std::vector<std::string> names;
    for (const auto& [bit, name] : kRecomputeModules) {
        if ((modules & bit) != 0)
            names.emplace_back(name);
    }
    return names;
}
std::string recomputeModuleChoices()
{
    std::string text;
    for (const auto& [bit, name] : kRecomputeModules)
        text += (text.empty() ? "" : ", ") + std::string(name);
    return text;
}
unsigned selectiveModules(const TrainingConfig& t)
{
    return t.recompute == Recompute::Selective ? t.recomputeModules : 0u;
}
std::string recomputeText(const TrainingConfig& t)
{
    std::string text = toString(t.recompute);
    if (t.recompute != Recompute::Selective || t.recomputeModules == recompute_module::kDefault)
        return text;
    const std::vector<std::string> names = recomputeModuleNames(t.recomputeModules);
    if (names.empty())
        return text + " (no modules)";
    text += " (";
    for (std::size_t i = 0; i < names.size(); ++i)
        text += (i == 0 ? "" : ", ") + names[i];
    return text + ")";
}
bool parseDType(const std::string& s, DType& out)
{
    return valueOf(kDTypes, s, out);
}

bool scheduleSplitsBackward(ScheduleKind k)
{
    return k == ScheduleKind::ZbH1 || k == ScheduleKind::ZbH2 || k == ScheduleKind::ZbV || k == ScheduleKind::DualPipe
        || k == ScheduleKind::DualPipeV;
}

bool scheduleUsesChunks(ScheduleKind k)
{
    return k == ScheduleKind::Interleaved1F1B || k == ScheduleKind::ZbV || k == ScheduleKind::DualPipe
        || k == ScheduleKind::DualPipeV;
}

} // namespace parallax::core
