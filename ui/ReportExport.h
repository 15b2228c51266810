// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "ui/Evaluation.h"
#include "ui/ScheduleComparison.h"
#include "ui/render/Exporter.h"
#include "ui/render/Picture.h"
#include "ui/render/ReportPictures.h"

#include <QString>
#include <QStringList>
#include <memory>
#include <optional>
#include <vector>

namespace parallax::render {
class GanttModel;
}

namespace parallax::ui {

// What File > Export writes: the pictures in one format, the Chrome trace, the Markdown report,
// all into one folder as <base>-gantt.svg, <base>-rank-map.svg, <base>-memory.svg,
// <base>-trace.json and <base>.md (which embeds the pictures and links the trace).
struct ExportRequest {
    QString folder;
    QString baseName = QStringLiteral("parallax");
    bool gantt = true;
    bool rankMap = true;
    bool memory = true;
    bool trace = true;
    bool markdown = true;
    render::ExportFormat format = render::ExportFormat::Svg;
    double scale = 2; // PNG only: device pixels per logical pixel
    // Which part of the step the Gantt shows: what the Schedule tab shows (its zoom), the whole
    // step, or the first `firstMicrobatches` micro-batches (from 0 to the end of their last op).
    enum class GanttRange { Visible, WholeStep, FirstMicrobatches };
    GanttRange ganttRange = GanttRange::Visible;
    int firstMicrobatches = 8;
    // A serving design has no training step: the dialog offers no Gantt and no trace, and its memory
    // chart is the fullest GPU's bar (weights, KV cache pool, reserve).
    bool serving = false;

    QString pathOf(const QString& suffix, const QString& extension) const; // "<folder>/<base><suffix>.<ext>"
};

// What is on screen, so that the exports are the screen's pictures.
struct ExportSources {
    EvaluationPtr evaluation;
    std::shared_ptr<const render::GanttModel> gantt; // the Schedule tab's model (compared schedules or one)
    std::vector<ComparedSchedule> comparison; // non-empty when the Gantt compares schedules
    std::optional<render::GanttTimeRange> ganttView; // the Schedule tab's zoom; none: the whole step
    std::optional<render::Picture> rankMap; // the Rank map tab's picture (its dimension and coloring)
    std::vector<std::string> reasons; // for the Markdown report (the recommender's "why"), may be empty
};

struct ExportOutcome {
    QStringList written; // paths
    QStringList errors; // one line each, naming the file
    bool ok() const { return errors.isEmpty() && !written.isEmpty(); }
};

// Writes every requested file it can; an unwritable path or a missing chart is an error line, and
// the other files are still written.
ExportOutcome exportReport(const ExportRequest& request, const ExportSources& sources);
// The time range the request's Gantt shows; none: the whole step.
std::optional<render::GanttTimeRange> ganttRangeOf(const ExportRequest& request, const ExportSources& sources);

} // namespace parallax::ui
