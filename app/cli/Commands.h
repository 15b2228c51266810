// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>
#include <vector>

namespace parallax::core {
struct Report;
struct Scenario;
struct ScheduleShape;
struct SimulationResult;
} // namespace parallax::core

namespace parallax::cli {

// One function per subcommand; each returns the process exit code.
int runEvaluate(const std::vector<std::string>& args);
int runPresets(const std::vector<std::string>& args);
int runSchedule(const std::vector<std::string>& args);
int runRecommend(const std::vector<std::string>& args);
int runMatrix(const std::vector<std::string>& args);
int runExport(const std::vector<std::string>& args);
int runValidate(const std::vector<std::string>& args);
// `export ... --launch megatron|nemo|torchtitan|slurm OUT` (LaunchExportCommand.cpp).
int runExportLaunch(const std::vector<std::string>& args);
int runRanks(const std::vector<std::string>& args);
int runImportArgs(const std::vector<std::string>& args);
// `check-log --log LOG [FILE|--script LAUNCH] [--flags]`: a Megatron-LM log against the prediction.
int runCheckLog(const std::vector<std::string>& args);

// `schedule --out FILE.svg|.png|.pdf`: the Gantt of a uniform-time run (`description` says its
// times), or of a scenario's engine timeline when `scenario` and `report` are given. Throws
// UsageError on an unknown format or an unwritable path; returns the exit code.
int writeSchedulePicture(const std::string& path, double scale, const core::SimulationResult& result,
    const core::ScheduleShape& shape, const std::string& description, const core::Scenario* scenario,
    const core::Report* report);

} // namespace parallax::cli
