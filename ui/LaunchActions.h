// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/Scenario.h"
#include "ui/PresetGallery.h"

#include <QString>
#include <functional>
#include <optional>

class QMenu;

namespace parallax::ui {

class MainWindow;

// The launch-configuration and import actions of File and Recommendations, without dialogs, so
// that tests drive them: each returns false / nullopt and sets `error` to a sentence naming the
// problem.
namespace launch {

// "megatron", "nemo", "torchtitan", "slurm" (training designs), "vllm", "sglang", "trtllm" (serving designs);
// empty with `error` set when the target does not serve the design's mode.
QString launchText(const core::Scenario& scenario, const QString& target, QString* error = nullptr);
bool exportLaunch(const core::Scenario& scenario, const QString& target, const QString& path, QString* error);
// Suggested file name for a target: "launch-megatron.sh", "nemo_recipe.py", "torchtitan.toml",
// "serve-vllm.sh", "serve-sglang.sh", "serve-trtllm.sh".
QString suggestedFileName(const QString& target);
// A Hugging Face config.json as a model.
std::optional<core::ModelSpec> readHfModel(const QString& path, QString* error);
// A Megatron-LM command line or NeMo overrides as a scenario on `base`'s GPU and fabric; `notes`
// lists what was ignored.
std::optional<core::Scenario> importLaunchText(
    const QString& text, const core::Scenario& base, QString* error, QStringList* notes = nullptr);

// The follow-up File > Check Training Log's result window offers: the same log checked again and recorded in
// the runs file `askRunsFile` names (empty: cancelled), its text the result with the "recorded as" line.
PresetGallery::MarkdownAction recordLogAction(
    MainWindow* window, const QString& logPath, const std::function<QString()>& askRunsFile);
// A check's text as the result window shows it (monospaced).
QString checkMarkdown(const QString& text);

// File > Export Launch Configuration (one file chooser per target), Import Model (config.json),
// Import Launch Command (paste) and Import Launch Command from File, added to `file`.
void addMenuActions(QMenu* file, MainWindow* window);

} // namespace launch
} // namespace parallax::ui
