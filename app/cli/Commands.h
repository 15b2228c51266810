#pragma once

#include <string>
#include <vector>

namespace parallax::cli {

// One function per subcommand; each returns the process exit code.
int runEvaluate(const std::vector<std::string>& args);
int runPresets(const std::vector<std::string>& args);
int runSchedule(const std::vector<std::string>& args);

} // namespace parallax::cli
