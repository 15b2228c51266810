// SPDX-License-Identifier: Apache-2.0
#include "ui/DegreeSuggestions.h"

#include "core/parallel/ParallelConfig.h"

#include <algorithm>
#include <cstdlib>
#include <functional>

namespace parallax::ui {

namespace {
struct Degrees {
    long long tp, cp, pp, dp, vpp, ep, etp, micro, global;
};

Degrees degreesOf(const core::Scenario& s)
{
    const auto& p = s.parallel;
    return { p.tp, p.cp, p.pp, p.dp, p.vpp, p.ep, p.etp, s.training.microBatch, s.training.globalBatch };
}

bool divides(long long d, long long n)
{
    return d > 0 && n % d == 0;
}
} // namespace

bool setIntField(core::Scenario& s, const std::string& f, int v)
{
    auto& p = s.parallel;
    auto& t = s.training;
    if (f == "parallel.tp")
        p.tp = v;
    else if (f == "parallel.cp")
        p.cp = v;
    else if (f == "parallel.pp")
        p.pp = v;
    else if (f == "parallel.vpp")
        p.vpp = v;
    else if (f == "parallel.dp")
        p.dp = v;
    else if (f == "parallel.ep")
        p.ep = v;
    else if (f == "parallel.etp")
        p.etp = v;
    else if (f == "parallel.zero")
        p.zero = v;
    else if (f == "training.micro_batch")
        t.microBatch = v;
    else if (f == "training.global_batch")
        t.globalBatch = v;
    else
        return false;
    return true;
}

int intField(const core::Scenario& s, const std::string& f)
{
    const auto& p = s.parallel;
    const auto& t = s.training;
    if (f == "parallel.tp")
        return p.tp;
    if (f == "parallel.cp")
        return p.cp;
    if (f == "parallel.pp")
        return p.pp;
    if (f == "parallel.vpp")
        return p.vpp;
    if (f == "parallel.dp")
        return p.dp;
    if (f == "parallel.ep")
        return p.ep;
    if (f == "parallel.etp")
        return p.etp;
    if (f == "parallel.zero")
        return p.zero;
    if (f == "training.micro_batch")
        return t.microBatch;
    if (f == "training.global_batch")
        return t.globalBatch;
    return -1;
}

void Suggestion::apply(core::Scenario& s) const
{
    for (const auto& [field, value] : assignments)
        setIntField(s, field, value);
}

std::vector<Suggestion> suggestValues(const core::Scenario& s, const std::string& field, int maxCount)
{
    const long long gpus = s.topology.gpuCount();
    const Degrees d = degreesOf(s);
    const auto& m = s.model;
    const long long layers = std::max(1, m.layers);
    const long long seq = std::max(1, s.seqLen());
    const long long current = intField(s, field);
    if (current < 0 || gpus <= 0)
        return {};

    // Whether `v` in place of the field satisfies the divisibility rules of Megatron-Core.
    std::function<bool(long long)> ok;
    long long limit = gpus;
    bool worldChanging = false;
    if (field == "parallel.tp") {
        worldChanging = true;
        ok = [&](long long v) {
            return divides(v, m.heads) && (m.kvHeads <= 0 || divides(v, m.kvHeads)) && divides(v * d.cp * d.pp, gpus);
        };
    } else if (field == "parallel.cp") {
        worldChanging = true;
        ok = [&](long long v) { return divides(v, seq) && divides(d.tp * v * d.pp, gpus); };
    } else if (field == "parallel.pp") {
        worldChanging = true;
        limit = std::min(gpus, layers);
        ok = [&](long long v) { return divides(d.tp * d.cp * v, gpus) && divides(v * d.vpp, layers); };
    } else if (field == "parallel.vpp") {
        limit = layers;
        ok = [&](long long v) { return divides(d.pp * v, layers); };
    } else if (field == "parallel.dp") {
        ok = [&](long long v) { return d.tp * d.cp * d.pp * v == gpus; };
    } else if (field == "parallel.ep") {
        const long long experts = m.isMoe() ? m.moe->experts : 1;
        limit = std::min(gpus, experts);
        ok = [&](long long v) { return divides(v, experts) && divides(d.etp * v, d.tp * d.cp * d.dp); };
    } else if (field == "parallel.etp") {
        ok = [&](long long v) { return divides(v * d.ep, d.tp * d.cp * d.dp); };
    } else if (field == "training.micro_batch") {
        limit = std::max<long long>(1, d.global);
        ok = [&](long long v) { return divides(v * d.dp, d.global); };
    } else if (field == "training.global_batch") {
        // Multiples of micro_batch x dp on both sides.
        const long long unit = std::max<long long>(1, d.micro * d.dp);
        std::vector<Suggestion> out;
        for (long long v : { (d.global / unit) * unit, (d.global / unit + 1) * unit }) {
            if (v > 0 && v != d.global && static_cast<int>(out.size()) < maxCount)
                out.push_back({ QStringLiteral("global batch = %1").arg(v), { { field, static_cast<int>(v) } } });
        }
        return out;
    } else {
        return {};
    }

    std::vector<long long> below;
    std::vector<long long> above;
    for (long long v = current - 1; v >= 1 && below.size() < 2; --v) {
        if (ok(v))
            below.push_back(v);
    }
    for (long long v = current + 1; v <= limit && above.size() < 2; ++v) {
        if (ok(v))
            above.push_back(v);
    }
    // Nearest first, alternating sides.
    std::vector<long long> values;
    for (std::size_t i = 0; i < 2; ++i) {
        if (i < below.size())
            values.push_back(below[i]);
        if (i < above.size())
            values.push_back(above[i]);
    }
    std::stable_sort(values.begin(), values.end(),
        [&](long long a, long long b) { return std::llabs(a - current) < std::llabs(b - current); });

    const std::string name = field.substr(field.find('.') + 1);
    std::vector<Suggestion> out;
    for (long long v : values) {
        if (static_cast<int>(out.size()) >= maxCount)
            break;
        Suggestion sug;
        sug.label = QStringLiteral("%1 = %2").arg(QString::fromStdString(name)).arg(v);
        sug.assignments.push_back({ field, static_cast<int>(v) });
        if (worldChanging) {
            core::Scenario trial = s;
            setIntField(trial, field, static_cast<int>(v));
            const long long perReplica
                = static_cast<long long>(trial.parallel.tp) * trial.parallel.cp * trial.parallel.pp;
            const long long dp = gpus / perReplica;
            if (dp != d.dp) {
                sug.label += QStringLiteral(" (dp = %1)").arg(dp);
                sug.assignments.push_back({ "parallel.dp", static_cast<int>(dp) });
            }
        }
        out.push_back(std::move(sug));
    }
    return out; // nearest first
}

} // namespace parallax::ui
