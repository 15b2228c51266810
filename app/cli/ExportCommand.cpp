// SPDX-License-Identifier: Apache-2.0
#include "CliArgs.h"
#include "Commands.h"

#include "core/Engine.h"
#include "core/io/ScenarioIo.h"
#include "core/io/TraceExport.h"
#include "core/report/ReportMarkdown.h"
#include "core/search/NumberText.h"

#include <filesystem>
#include <iostream>
#include <unistd.h>

#ifdef PARALLAX_HAS_RENDER
#include "ui/render/Exporter.h"
#include "ui/render/GuiSession.h"
#include "ui/render/ReportPictures.h"
#endif

namespace parallax::cli {

namespace fs = std::filesystem;

namespace {
enum class OutputKind { Picture, Trace, Markdown };

struct Output {
    std::string option; // "gantt"
    std::string path;
    OutputKind kind = OutputKind::Picture;
};

std::string lowerExtension(const std::string& path)
{
    std::string ext = fs::path(path).extension().string();
    for (char& c : ext)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return ext;
}

// The checks that need no Qt, so that a build without the renderer says the same thing.
void checkFormat(const Output& out)
{
    const std::string ext = lowerExtension(out.path);
    const std::string shown = ext.empty() ? "(no extension)" : "\"" + ext + "\"";
    if (out.kind == OutputKind::Picture && ext != ".svg" && ext != ".png" && ext != ".pdf")
        throw UsageError("--" + out.option + " " + out.path + ": unknown format " + shown + "; use .svg, .png or .pdf");
    if (out.kind == OutputKind::Trace && ext != ".json")
        throw UsageError(
            "--" + out.option + " " + out.path + ": unknown format " + shown + "; a Chrome trace is written as .json");
    if (out.kind == OutputKind::Markdown && ext != ".md" && ext != ".markdown")
        throw UsageError("--" + out.option + " " + out.path + ": unknown format " + shown + "; use .md");
}

std::string unwritableReason(const std::string& path)
{
    const fs::path p(path);
    if (p.filename().empty())
        return "cannot write \"" + path + "\": not a file name";
    std::error_code ec;
    if (fs::is_directory(p, ec))
        return "cannot write \"" + path + "\": it is a folder";
    const fs::path dir = p.parent_path().empty() ? fs::path(".") : p.parent_path();
    if (!fs::is_directory(dir, ec))
        return "cannot write \"" + path + "\": the folder \"" + dir.string() + "\" does not exist";
    if (::access(dir.c_str(), W_OK) != 0)
        return "cannot write \"" + path + "\": the folder \"" + dir.string() + "\" is not writable";
    if (fs::exists(p, ec) && ::access(p.c_str(), W_OK) != 0)
        return "cannot write \"" + path + "\": the file is read-only";
    return {};
}

void checkOutput(const Output& out)
{
    checkFormat(out);
    if (const std::string why = unwritableReason(out.path); !why.empty())
        throw UsageError(why);
}

// A link from the Markdown file's folder to `target`.
std::string relativeLink(const std::string& target, const std::string& markdownPath)
{
    std::error_code ec;
    const fs::path from = fs::weakly_canonical(fs::absolute(markdownPath), ec).parent_path();
    const fs::path to = fs::weakly_canonical(fs::absolute(target), ec);
    const fs::path rel = to.lexically_relative(from);
    return rel.empty() ? target : rel.generic_string();
}

struct Evaluated {
    core::Scenario scenario;
    core::Report report;
};

// The scenario with another schedule: interleaving keeps the scenario's v (2 when it had none);
// the other schedules place their own chunks.
core::Scenario withSchedule(core::Scenario s, core::ScheduleKind kind)
{
    s.parallel.schedule = kind;
    if (kind == core::ScheduleKind::Interleaved1F1B)
        s.parallel.vpp = std::max(2, s.parallel.vpp);
    else
        s.parallel.vpp = 1;
    return s;
}

bool parseDim(const std::string& text, core::Dim& out)
{
    for (int d = 0; d < core::kDimCount; ++d) {
        if (text == core::toString(static_cast<core::Dim>(d))) {
            out = static_cast<core::Dim>(d);
            return true;
        }
    }
    return false;
}

#ifdef PARALLAX_HAS_RENDER
QString q(const std::string& s)
{
    return QString::fromStdString(s);
}

bool writePicture(const render::Picture& picture, const std::string& path, double scale)
{
    QString error;
    if (!render::exportPicture(picture, q(path), scale, &error)) {
        std::cerr << "parallax-cli export: " << error.toStdString() << "\n";
        return false;
    }
    std::cout << "wrote " << path << " (" << static_cast<int>(picture.size.width() * scale) << " x "
              << static_cast<int>(picture.size.height() * scale) << " px)\n";
    return true;
}
#endif
} // namespace

int runExport(const std::vector<std::string>& argv)
{
    for (const auto& a : argv) {
        if (a == "--launch" || a.rfind("--launch=", 0) == 0)
            return runExportLaunch(argv);
    }
    const Args args(argv, {});
    std::vector<std::string> known = scenarioFlagNames();
    known.insert(known.end(),
        { "gantt", "rankmap", "memory", "trace", "markdown", "scale", "compare", "rankmap-dim", "calibration" });
    args.allowOnly(known);

    std::vector<Output> outputs;
    for (const char* option : { "gantt", "rankmap", "memory" })
        if (args.has(option))
            outputs.push_back({ option, args.value(option), OutputKind::Picture });
    if (args.has("trace"))
        outputs.push_back({ "trace", args.value("trace"), OutputKind::Trace });
    if (args.has("markdown"))
        outputs.push_back({ "markdown", args.value("markdown"), OutputKind::Markdown });
    if (outputs.empty())
        throw UsageError("nothing to export: give --gantt, --rankmap, --memory (.svg, .png or .pdf), --trace OUT.json "
                         "or --markdown OUT.md");
    for (const Output& out : outputs)
        checkOutput(out);
    [[maybe_unused]] const double scale
        = args.number("scale", 1, 0.25, 8); // read (and range-checked) even without the renderer
    core::Dim dim = core::Dim::Tp;
    if (args.has("rankmap-dim") && !parseDim(args.value("rankmap-dim"), dim))
        throw UsageError("--rankmap-dim: unknown dimension \"" + args.value("rankmap-dim")
            + "\"; use tp, cp, dp, pp, ep, edp or etp");
    std::vector<core::ScheduleKind> compare;
    for (const std::string& name : args.list("compare")) {
        core::ScheduleKind kind;
        if (!core::parseSchedule(name, kind))
            throw UsageError("--compare: unknown schedule \"" + name
                + "\"; use gpipe, 1f1b, interleaved-1f1b, zb-h1, zb-h2, zb-v, dualpipe or dualpipev");
        compare.push_back(kind);
    }
    if (args.has("compare") && (compare.empty() || compare.size() > 4))
        throw UsageError("--compare: give one to four schedules, separated by commas");
#ifndef PARALLAX_HAS_RENDER
    for (const Output& out : outputs)
        if (out.kind == OutputKind::Picture)
            throw UsageError(
                "built without Qt: exports are unavailable (--" + out.option + "); --trace and --markdown still work");
#endif

    const core::Scenario scenario = scenarioFromArgs(args);
    // A serving scenario has no training step: its schedule and timeline would draw empty charts under a
    // "0.00 s step time" header. Its report (verdict, KV cache, latencies, memory table) is --markdown, its
    // fullest GPU's memory --memory.
    if (scenario.mode == core::ScenarioMode::Inference) {
        if (args.has("compare"))
            throw UsageError("--compare: a serving scenario has no pipeline schedule to compare");
        for (const Output& out : outputs)
            if (out.option == "gantt" || out.option == "trace")
                throw UsageError("--" + out.option + ": a serving scenario has no training step to draw; its serving "
                    + "report is in --markdown, its memory per GPU in --memory, its groups in --rankmap");
    }
    const auto calibration = calibrationFromArgs(args);
    core::EvaluateOptions options;
    options.calibration = calibration ? &*calibration : nullptr;
    const core::Report report = core::evaluate(scenario, options);
    if (!report.valid) {
        for (const auto& e : report.errors)
            std::cerr << "parallax-cli export: " << e.field << ": " << e.text << "\n";
        return kExitInvalidConfig;
    }
    std::vector<Evaluated> compared;
    for (core::ScheduleKind kind : compare) {
        Evaluated e { withSchedule(scenario, kind), {} };
        e.report = core::evaluate(e.scenario, options);
        if (!e.report.valid) {
            for (const auto& err : e.report.errors)
                std::cerr << "parallax-cli export: --compare " << core::toString(kind) << ": " << err.field << ": "
                          << err.text << "\n";
            return kExitInvalidConfig;
        }
        compared.push_back(std::move(e));
    }
    const bool comparing = !compared.empty();
    auto scheduleLabel = [](const core::Scenario& s) {
        std::string name = core::toString(s.parallel.schedule);
        return s.parallel.schedule == core::ScheduleKind::Interleaved1F1B
            ? name + " (v=" + std::to_string(s.parallel.vpp) + ")"
            : name;
    };

    for (const Output& out : outputs) {
        if (out.kind == OutputKind::Trace) {
            std::vector<core::TraceProcess> processes;
            if (comparing) {
                for (const Evaluated& e : compared)
                    processes.push_back({ "pipeline group 0: " + scheduleLabel(e.scenario), &e.report.schedule, 1.0 });
            } else {
                processes.push_back({ "pipeline group 0: " + scheduleLabel(scenario), &report.schedule, 1.0 });
            }
            std::string error;
            if (!core::writeChromeTrace(core::chromeTrace(processes), out.path, error)) {
                std::cerr << "parallax-cli export: " << error << "\n";
                return kExitUsage;
            }
            std::cout << "wrote " << out.path << " (Chrome trace, open in https://ui.perfetto.dev)\n";
        }
    }

#ifdef PARALLAX_HAS_RENDER
    render::GuiSession session;
    if (const QString problem = render::GuiSession::fontProblem(); !problem.isEmpty())
        std::cerr << "parallax-cli export: warning: " << problem.toStdString() << "\n";
    for (const Output& out : outputs) {
        if (out.kind != OutputKind::Picture)
            continue;
        render::Picture picture;
        if (out.option == "gantt") {
            std::vector<render::GanttTrack> tracks;
            std::optional<render::TitleBlock> title;
            if (comparing) {
                title = render::TitleBlock::forReport(scenario, report, QStringLiteral("schedule comparison"));
                title->figures.clear();
                QStringList names;
                for (const Evaluated& e : compared) {
                    tracks.push_back(render::ganttTrack(e.scenario, e.report));
                    names << tracks.back().label;
                    title->figures.push_back({ tracks.back().label.section(u' ', 0, 0) + QStringLiteral(" step"),
                        q(core::formatSeconds(e.report.stepTimeSeconds)), !e.report.fits });
                }
                title->chart = QStringLiteral("schedules compared: ") + names.join(QStringLiteral(" vs "));
                // The configuration line names the schedule of the file; in comparison it varies.
                title->lines.back() += QStringLiteral(" (schedule varied below)");
            } else {
                tracks.push_back(render::ganttTrack(scenario, report));
                title = render::TitleBlock::forReport(scenario, report, QStringLiteral("pipeline schedule"));
            }
            picture = render::ganttPicture(std::make_shared<const render::GanttModel>(std::move(tracks)), title);
        } else if (out.option == "rankmap") {
            render::RankMapRenderer::Options o;
            o.dim = dim;
            o.colorBy = render::RankMapRenderer::defaultColorBy(dim);
            auto renderer = std::make_shared<const render::RankMapRenderer>(report.rankMap, scenario.topology);
            picture = render::rankMapPicture(renderer,
                render::TitleBlock::forReport(scenario, report,
                    QStringLiteral("rank map: ") + render::RankMapRenderer::dimName(dim)
                        + (o.colorBy == render::RankMapRenderer::ColorBy::Group ? QStringLiteral(" groups")
                                                                                : QStringLiteral(" stages"))),
                o);
        } else {
            auto renderer
                = std::make_shared<const render::MemoryChartRenderer>(render::MemoryChartRenderer::fromReport(report));
            picture = render::memoryPicture(
                renderer, render::TitleBlock::forReport(scenario, report, QStringLiteral("memory per GPU")));
        }
        if (!writePicture(picture, out.path, scale))
            return kExitUsage;
    }
#endif

    for (const Output& out : outputs) {
        if (out.kind != OutputKind::Markdown)
            continue;
        core::MarkdownOptions md;
        for (const Output& other : outputs) {
            const std::string link = relativeLink(other.path, out.path);
            if (other.option == "gantt")
                md.ganttPicture = link;
            else if (other.option == "rankmap")
                md.rankMapPicture = link;
            else if (other.option == "memory")
                md.memoryPicture = link;
            else if (other.option == "trace")
                md.tracePath = link;
        }
        if (comparing)
            md.reasonsHeading = "Schedules compared";
        for (const Evaluated& e : compared)
            md.reasons.push_back(scheduleLabel(e.scenario) + ": step " + core::formatSeconds(e.report.stepTimeSeconds)
                + ", bubble " + core::percentText(e.report.bubbleFraction) + ", peak memory "
                + core::gibText(e.report.peakMemoryBytes) + (e.report.fits ? "" : " (does not fit)"));
        std::string error;
        if (!core::writeFileAtomically(out.path, core::reportToMarkdown(scenario, report, md), error)) {
            std::cerr << "parallax-cli export: " << error << "\n";
            return kExitUsage;
        }
        std::cout << "wrote " << out.path << "\n";
    }
    return kExitOk;
}

int writeSchedulePicture(const std::string& path, double scale, const core::SimulationResult& result,
    const core::ScheduleShape& shape, const std::string& description, const core::Scenario* scenario,
    const core::Report* report)
{
    checkOutput({ "out", path, OutputKind::Picture });
#ifndef PARALLAX_HAS_RENDER
    (void)scale;
    (void)result;
    (void)shape;
    (void)description;
    (void)scenario;
    (void)report;
    throw UsageError("built without Qt: exports are unavailable (--out)");
#else
    render::GuiSession session;
    if (const QString problem = render::GuiSession::fontProblem(); !problem.isEmpty())
        std::cerr << "parallax-cli schedule: warning: " << problem.toStdString() << "\n";
    std::vector<render::GanttTrack> tracks;
    std::optional<render::TitleBlock> title;
    if (scenario && report) {
        tracks.push_back(render::ganttTrack(*scenario, *report));
        title = render::TitleBlock::forReport(*scenario, *report, QStringLiteral("pipeline schedule"));
    } else {
        tracks.push_back(render::ganttTrack(result, shape));
        render::TitleBlock t;
        t.title = render::scheduleName(shape.kind, shape.virtualStages);
        t.chart = QStringLiteral("pipeline schedule, p=%1, m=%2").arg(shape.ranks).arg(shape.microbatches);
        t.lines << q(description);
        int peak = 0;
        for (int c : result.peakInflightChunks)
            peak = std::max(peak, c);
        t.figures.push_back({ QStringLiteral("makespan"), QString::number(result.makespan, 'g', 6) });
        t.figures.push_back({ QStringLiteral("bubble"), q(core::percentText(result.bubbleFraction)) });
        t.figures.push_back({ QStringLiteral("peak in flight"), QString::number(peak) });
        title = t;
    }
    const render::Picture picture
        = render::ganttPicture(std::make_shared<const render::GanttModel>(std::move(tracks)), title);
    QString error;
    if (!render::exportPicture(picture, q(path), scale, &error)) {
        std::cerr << "parallax-cli schedule: " << error.toStdString() << "\n";
        return kExitUsage;
    }
    return kExitOk;
#endif
}

} // namespace parallax::cli
