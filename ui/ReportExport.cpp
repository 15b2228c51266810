// SPDX-License-Identifier: Apache-2.0
#include "ui/ReportExport.h"

#include "core/io/ScenarioIo.h"
#include "core/io/TraceExport.h"
#include "core/report/ReportMarkdown.h"
#include "core/search/NumberText.h"
#include "ui/render/GanttModel.h"
#include "ui/render/MemoryChartRenderer.h"
#include "ui/render/ReportPictures.h"
#include "ui/render/TitleBlock.h"

#include <QDir>
#include <QFileInfo>

namespace parallax::ui {

namespace {
QString extensionOf(render::ExportFormat f)
{
    switch (f) {
    case render::ExportFormat::Svg:
        return QStringLiteral("svg");
    case render::ExportFormat::Png:
        return QStringLiteral("png");
    case render::ExportFormat::Pdf:
        return QStringLiteral("pdf");
    }
    return QStringLiteral("svg");
}

// The title block of a comparison: each schedule's step time as a figure (as parallax-cli export).
render::TitleBlock comparisonTitle(const Evaluation& e, const std::vector<ComparedSchedule>& comparison)
{
    render::TitleBlock title
        = render::TitleBlock::forReport(e.scenario, e.report, QStringLiteral("schedule comparison"));
    title.figures.clear();
    QStringList names;
    for (const ComparedSchedule& c : comparison) {
        if (!c.report.valid)
            continue;
        names << c.label;
        title.figures.push_back({ c.label.section(u' ', 0, 0) + QStringLiteral(" step"),
            QString::fromStdString(core::formatSeconds(c.report.stepTimeSeconds)), !c.report.fits });
    }
    title.chart = QStringLiteral("schedules compared: ") + names.join(QStringLiteral(" vs "));
    if (!title.lines.isEmpty())
        title.lines.back() += QStringLiteral(" (schedule varied below)");
    return title;
}
} // namespace

std::optional<render::GanttTimeRange> ganttRangeOf(const ExportRequest& request, const ExportSources& sources)
{
    switch (request.ganttRange) {
    case ExportRequest::GanttRange::WholeStep:
        return std::nullopt;
    case ExportRequest::GanttRange::Visible:
        return sources.ganttView;
    case ExportRequest::GanttRange::FirstMicrobatches: {
        if (!sources.gantt)
            return std::nullopt;
        double end = 0;
        for (int t = 0; t < sources.gantt->trackCount(); ++t) {
            for (const core::TimedOp& op : sources.gantt->ops(t)) {
                if (op.microbatch < request.firstMicrobatches)
                    end = std::max(end, op.end);
            }
        }
        if (end <= 0)
            return std::nullopt;
        return render::GanttTimeRange { 0, end };
    }
    }
    return std::nullopt;
}

QString ExportRequest::pathOf(const QString& suffix, const QString& extension) const
{
    return QDir(folder).filePath(baseName + suffix + u'.' + extension);
}

ExportOutcome exportReport(const ExportRequest& request, const ExportSources& sources)
{
    ExportOutcome out;
    const Evaluation* e = sources.evaluation.get();
    if (!e || !e->report.valid) {
        out.errors << QObject::tr("Nothing to export: the configuration is not valid%1")
                          .arg(e && !e->report.errors.empty()
                                  ? QStringLiteral(" (") + QString::fromStdString(e->report.errors.front().text) + u')'
                                  : QString());
        return out;
    }
    // One clear line for a missing folder, instead of one error per file.
    if (request.folder.isEmpty() || !QFileInfo(request.folder).isDir()) {
        out.errors << QObject::tr("The folder %1 does not exist: create it or choose another folder.")
                          .arg(QDir::toNativeSeparators(request.folder));
        return out;
    }
    const QString ext = extensionOf(request.format);
    const bool serving = e->report.inference.has_value();
    const QString noStep = QObject::tr(": a serving design has no training step to draw (its memory chart and "
                                       "Markdown report hold its figures)");
    const double scale = request.format == render::ExportFormat::Png ? request.scale : 1;
    const bool comparing = !sources.comparison.empty();
    core::MarkdownOptions md;

    auto writePicture = [&](const std::optional<render::Picture>& picture, const QString& suffix, const QString& what,
                            std::string& link) {
        const QString path = request.pathOf(suffix, ext);
        if (!picture) {
            out.errors << QObject::tr("%1: no %2 to export").arg(QDir::toNativeSeparators(path), what);
            return;
        }
        QString error;
        if (!render::exportPicture(*picture, path, scale, &error)) {
            out.errors << error;
            return;
        }
        out.written << path;
        link = QFileInfo(path).fileName().toStdString();
    };

    if (request.gantt && serving) {
        out.errors << QDir::toNativeSeparators(request.pathOf(QStringLiteral("-gantt"), ext)) + noStep;
    } else if (request.gantt) {
        std::optional<render::Picture> picture;
        if (sources.gantt)
            picture = render::ganttPicture(sources.gantt,
                comparing ? comparisonTitle(*e, sources.comparison)
                          : render::TitleBlock::forReport(e->scenario, e->report, QStringLiteral("pipeline schedule")),
                render::kGanttWidth, {}, ganttRangeOf(request, sources));
        writePicture(picture, QStringLiteral("-gantt"), QObject::tr("schedule"), md.ganttPicture);
    }
    if (request.rankMap)
        writePicture(sources.rankMap, QStringLiteral("-rank-map"), QObject::tr("rank map"), md.rankMapPicture);
    if (request.memory) {
        std::optional<render::Picture> picture;
        if (!e->report.stages.empty() || serving)
            picture = render::memoryPicture(
                std::make_shared<const render::MemoryChartRenderer>(render::MemoryChartRenderer::fromReport(e->report)),
                render::TitleBlock::forReport(e->scenario, e->report, QStringLiteral("memory per GPU")));
        writePicture(picture, QStringLiteral("-memory"), QObject::tr("memory chart"), md.memoryPicture);
    }
    if (request.trace && serving) {
        out.errors << QDir::toNativeSeparators(request.pathOf(QStringLiteral("-trace"), QStringLiteral("json")))
                + noStep;
    } else if (request.trace) {
        const QString path = request.pathOf(QStringLiteral("-trace"), QStringLiteral("json"));
        std::vector<core::TraceProcess> processes;
        auto label = [](const core::Scenario& s) {
            return "pipeline group 0: " + render::scheduleName(s.parallel.schedule, s.parallel.vpp).toStdString();
        };
        if (comparing) {
            for (const ComparedSchedule& c : sources.comparison) {
                if (c.report.valid)
                    processes.push_back({ label(c.scenario), &c.report.schedule, 1.0 });
            }
        } else {
            processes.push_back({ label(e->scenario), &e->report.schedule, 1.0 });
        }
        std::string error;
        if (const QString why = render::checkWritable(path); !why.isEmpty())
            out.errors << why;
        else if (!core::writeChromeTrace(core::chromeTrace(processes), path.toStdString(), error))
            out.errors << QString::fromStdString(error);
        else {
            out.written << path;
            md.tracePath = QFileInfo(path).fileName().toStdString();
        }
    }
    if (request.markdown) {
        const QString path = request.pathOf(QString(), QStringLiteral("md"));
        md.reasons = sources.reasons;
        for (const ComparedSchedule& c : sources.comparison) {
            if (c.report.valid)
                md.reasons.push_back(c.label.toStdString() + ": step " + core::formatSeconds(c.report.stepTimeSeconds)
                    + ", bubble " + core::percentText(c.report.bubbleFraction) + ", peak memory "
                    + core::gibText(c.report.peakMemoryBytes) + (c.report.fits ? "" : " (does not fit)"));
        }
        std::string error;
        if (const QString why = render::checkWritable(path); !why.isEmpty())
            out.errors << why;
        else if (!core::writeFileAtomically(
                     path.toStdString(), core::reportToMarkdown(e->scenario, e->report, md), error))
            out.errors << QString::fromStdString(error);
        else
            out.written << path;
    }
    return out;
}

} // namespace parallax::ui
