// SPDX-License-Identifier: Apache-2.0
#include "CliArgs.h"
#include "Commands.h"
#include "ServingRecommend.h"
#include "TextFormat.h"

#include "core/model/ModelMath.h"
#include "core/search/ConfigSearch.h"
#include "core/search/LessonText.h"
#include "core/search/SearchJson.h"

#include <iostream>

namespace parallax::cli {

namespace {
void printTable(std::ostream& out, const core::Scenario& s, const core::SearchResult& r)
{
    const double tokens = static_cast<double>(s.training.globalBatch) * s.seqLen();
    out << "Recommendation: " << s.name << "\n";
    out << "  model    " << s.model.name << ": " << billions(core::totalParameters(s.model)) << " parameters\n";
    out << "  cluster  " << s.topology.gpuCount() << " GPUs in " << s.topology.domains.size()
        << (s.topology.domains.size() == 1 ? " NVLink domain (" : " NVLink domains (")
        << s.topology.domains.front().gpu.name << ")\n";
    out << "  batch    " << s.training.globalBatch << " sequences of " << s.seqLen() << " tokens (" << tokens / 1e6
        << "M tokens per step), " << core::toString(s.training.dtype) << "\n";
    out << "  searched " << r.stats.enumerated << " configurations: " << r.stats.prunedByMemoryBound
        << " pruned by the weights+grads+optimizer bound, " << r.stats.scored << " scored in closed form ("
        << r.stats.fitting << " fit), " << r.stats.simulated << " simulated\n\n";
    if (r.candidates.empty()) {
        out << "Nothing fits in " << gib(r.hbmBytes, 0) << " of HBM.\n";
        if (r.leanest && r.leanestReport) {
            const core::Report& lr = *r.leanestReport;
            const core::StageMemory& st = lr.stages[lr.peakMemoryStage];
            out << "  the leanest configuration, " << core::describe(*r.leanest) << ", needs "
                << gib(lr.peakMemoryBytes) << " on stage " << st.stage
                << "; its weights, gradients and optimizer states alone are "
                << gib(st.weightsBytes + st.gradsBytes + st.optimizerBytes) << "\n";
        }
    } else {
        out << "  #  " << padRight("configuration", 72) << padLeft("step", 10) << padLeft("MFU", 8)
            << padLeft("peak", 11) << "\n";
        for (std::size_t i = 0; i < r.candidates.size(); ++i) {
            const auto& c = r.candidates[i];
            out << padLeft(std::to_string(i + 1), 3) << "  " << padRight(core::describe(c.point), 72)
                << padLeft(duration(c.report.stepTimeSeconds), 10) << padLeft(percent(c.report.mfu), 8)
                << padLeft(gib(c.report.peakMemoryBytes), 11)
                << (c.report.memoryVerdict == core::MemoryVerdict::Tight ? "  tight" : "") << "\n";
        }
        out << "\nWhy #1:\n";
        for (const auto& reason : r.candidates.front().reasons)
            out << "  - " << reason.text << "\n";
        if (r.candidates.size() > 1) {
            out << "\nThe runners-up:\n";
            for (std::size_t i = 1; i < r.candidates.size(); ++i)
                out << "  #" << i + 1 << ": " << r.candidates[i].reasons.front().text << "\n";
        }
    }
    if (r.baseline) {
        out << "\nThe scenario's own configuration (" << core::describe(core::pointOf(s))
            << "): " << duration(r.baseline->stepTimeSeconds) << ", MFU " << percent(r.baseline->mfu) << ", peak "
            << gib(r.baseline->peakMemoryBytes) << (r.baseline->fits ? "" : " (does not fit)");
        if (r.baselineReason)
            out << "\n  " << r.baselineReason->text;
        out << "\n";
    }
    if (!r.rejected.empty()) {
        out << "\nWhy not (the strongest configuration of each family of losers):\n";
        for (const auto& f : r.rejected)
            out << "  " << f.family << ": " << core::describe(f.point) << "\n"
                << "      " << f.reason.text << "\n";
    }
}
} // namespace

int runRecommend(const std::vector<std::string>& argv)
{
    const Args args(argv, { "json", "lesson" });
    std::vector<std::string> known = scenarioFlagNames();
    known.insert(known.end(), { "json", "calibration", "top", "lesson", "threads", "ttft-ms", "tpot-ms" });
    args.allowOnly(known);
    const core::Scenario scenario = scenarioFromArgs(args);
    const auto calibration = calibrationFromArgs(args);
    if (scenario.mode == core::ScenarioMode::Inference)
        return runServingRecommend(args, scenario, calibration ? &*calibration : nullptr);
    core::SearchOptions options;
    options.calibration = calibration ? &*calibration : nullptr;
    options.topK = args.integer("top", 5, 1, 1000);
    options.threads = args.integer("threads", 0, 0, 256);
    // A CP communication named on the command line is the user's choice (torchtitan's CP is the ring only):
    // the search keeps it instead of trying the others.
    options.limits.includeCpCommTypes = !args.has("cp-comm-type");
    const core::SearchResult result = core::searchConfigurations(scenario, options);
    if (!result.error.empty())
        throw UsageError(result.error);
    if (args.has("json")) {
        nlohmann::json j = core::searchResultToJson(scenario, result);
        if (args.has("lesson"))
            j["lesson"] = core::renderLesson(scenario, calibration ? &*calibration : nullptr, &result).markdown;
        std::cout << j.dump(2) << "\n";
    } else {
        printTable(std::cout, scenario, result);
        if (args.has("lesson")) {
            const core::RenderedLesson lesson
                = core::renderLesson(scenario, calibration ? &*calibration : nullptr, &result);
            std::cout << "\nLesson\n\n" << lesson.markdown << "\n";
        }
    }
    std::cerr << "parallax-cli recommend: " << result.stats.enumerated << " configurations in "
              << duration(result.stats.totalSeconds) << " (closed form " << duration(result.stats.closedFormSeconds)
              << ", simulation " << duration(result.stats.simulationSeconds) << " of " << result.stats.simulated
              << " configurations, " << result.stats.boundedExamined << " examined over " << result.stats.windowPasses
              << " closed-form passes, " << result.stats.threads << " threads)\n";
    return kExitOk;
}

} // namespace parallax::cli
