// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/schedule/PipelineSimulator.h"
#include "ui/render/GanttModel.h"
#include "ui/render/ReportPictures.h"

#include <QDir>
#include <QImage>
#include <QString>
#include <memory>
#include <set>

namespace parallax::render::test {

// A schedule with uniform op times (forward 1, backward 1 + 1 unless split) and free p2p.
inline core::SimulationResult uniformRun(core::ScheduleKind kind, int p, int m, int v = 1)
{
    core::SimulationInput input;
    input.shape = { kind, p, m, v };
    core::ChunkDurations d;
    if (!core::scheduleSplitsBackward(kind)) {
        d.backwardInput = 2;
        d.backwardWeight = 0;
    }
    input.durations.assign(
        static_cast<std::size_t>(p), std::vector<core::ChunkDurations>(core::chunksPerRank(input.shape), d));
    return core::simulate(input);
}

inline std::shared_ptr<const GanttModel> uniformModel(core::ScheduleKind kind, int p, int m, int v = 1)
{
    std::vector<GanttTrack> tracks;
    tracks.push_back(ganttTrack(uniformRun(kind, p, m, v), core::ScheduleShape { kind, p, m, v }));
    return std::make_shared<const GanttModel>(std::move(tracks));
}

inline int distinctColors(const QImage& image, int limit = 1000)
{
    std::set<QRgb> colors;
    for (int y = 0; y < image.height(); y += 2)
        for (int x = 0; x < image.width(); x += 2) {
            colors.insert(image.pixel(x, y));
            if (static_cast<int>(colors.size()) >= limit)
                return limit;
        }
    return static_cast<int>(colors.size());
}

// Where a test leaves what it drew, for a person to look at when it fails.
inline QString outputPath(const QString& name)
{
    QDir().mkpath(QStringLiteral(PARALLAX_RENDER_OUTPUT_DIR));
    return QStringLiteral(PARALLAX_RENDER_OUTPUT_DIR) + u'/' + name;
}

} // namespace parallax::render::test
