// SPDX-License-Identifier: Apache-2.0
#include "ui/ScheduleComparison.h"

#include "core/Engine.h"
#include "ui/render/ReportPictures.h"

#include <exception>

namespace parallax::ui {

const std::vector<core::ScheduleKind>& comparableSchedules()
{
    using K = core::ScheduleKind;
    static const std::vector<K> kinds { K::GPipe, K::OneFOneB, K::Interleaved1F1B, K::ZbH1, K::ZbH2, K::ZbV,
        K::DualPipe, K::DualPipeV };
    return kinds;
}

core::Scenario withSchedule(core::Scenario s, core::ScheduleKind kind)
{
    s.parallel.schedule = kind;
    if (kind != core::ScheduleKind::Interleaved1F1B) {
        s.parallel.vpp = 1;
        return s;
    }
    if (s.parallel.vpp >= 2)
        return s;
    // Megatron-LM needs the layers of a stage to split evenly into its chunks.
    const int pp = std::max(1, s.parallel.pp);
    const int layersPerStage = s.model.layers / pp;
    s.parallel.vpp = 2;
    for (int v = 2; v <= 8; ++v) {
        if (layersPerStage > 0 && layersPerStage % v == 0) {
            s.parallel.vpp = v;
            break;
        }
    }
    return s;
}

std::vector<ComparedSchedule> evaluateSchedules(
    const core::Scenario& base, const std::vector<core::ScheduleKind>& kinds, const core::Calibration* calibration)
{
    std::vector<ComparedSchedule> out;
    core::EvaluateOptions options;
    options.calibration = calibration;
    for (core::ScheduleKind kind : kinds) {
        ComparedSchedule c;
        c.kind = kind;
        c.scenario = withSchedule(base, kind);
        c.label = render::scheduleName(kind, c.scenario.parallel.vpp);
        try {
            c.report = core::evaluate(c.scenario, options);
        } catch (const std::exception& e) {
            c.report = {};
            c.report.errors.push_back({ {}, std::string("internal engine error: ") + e.what() });
        }
        out.push_back(std::move(c));
    }
    return out;
}

} // namespace parallax::ui
