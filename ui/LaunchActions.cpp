// SPDX-License-Identifier: Apache-2.0
#include "ui/LaunchActions.h"

#include "core/io/HfConfigReader.h"
#include "core/io/ScenarioIo.h"
#include "core/launch/LaunchArgsImporter.h"
#include "core/launch/ServingLaunchWriter.h"
#include "core/launch/SlurmBenchmarkWriter.h"
#include "core/launch/TrainingLaunchWriter.h"

#include "ui/MainWindow.h"
#include "ui/PresetGallery.h"

#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QInputDialog>
#include <QMenu>
#include <QStringList>

#include <nlohmann/json.hpp>

#include <stdexcept>

namespace parallax::ui::launch {

QString launchText(const core::Scenario& scenario, const QString& target, QString* error)
{
    if (const auto serving = core::parseServingFramework(target.toStdString())) {
        try {
            return QString::fromStdString(core::ServingLaunchWriter::write(scenario, *serving));
        } catch (const std::invalid_argument& e) {
            if (error)
                *error = QObject::tr("The design is for training: %1").arg(QString::fromUtf8(e.what()));
            return {};
        }
    }
    if (scenario.mode == core::ScenarioMode::Inference) {
        if (error)
            *error = QObject::tr("The design is for serving (Plan for: Inference): export a vLLM, SGLang or "
                                 "TensorRT-LLM launch instead of a training one.");
        return {};
    }
    if (target == QLatin1String("slurm")) {
        try {
            return QString::fromStdString(core::SlurmBenchmarkWriter::write(scenario));
        } catch (const std::invalid_argument& e) {
            if (error)
                *error = QObject::tr("No Slurm benchmark for this design: %1").arg(QString::fromUtf8(e.what()));
            return {};
        }
    }
    return QString::fromStdString(core::writeTrainingLaunch(
        scenario, core::parseLaunchFramework(target.toStdString()).value_or(core::LaunchFramework::MegatronLm)));
}

QString suggestedFileName(const QString& target)
{
    if (target == QLatin1String("nemo"))
        return QStringLiteral("nemo_recipe.py");
    if (target == QLatin1String("torchtitan"))
        return QStringLiteral("torchtitan.toml");
    if (target == QLatin1String("slurm"))
        return QStringLiteral("benchmark.sbatch");
    if (core::parseServingFramework(target.toStdString()))
        return QStringLiteral("serve-%1.sh").arg(target);
    return QStringLiteral("launch-megatron.sh");
}

bool exportLaunch(const core::Scenario& scenario, const QString& target, const QString& path, QString* error)
{
    QString textError;
    const QString text = launchText(scenario, target, &textError);
    if (text.isEmpty()) {
        if (error)
            *error = textError;
        return false;
    }
    std::string why;
    if (core::writeFileAtomically(path.toStdString(), text.toStdString(), why))
        return true;
    if (error)
        *error = QObject::tr("Cannot write %1: %2").arg(QDir::toNativeSeparators(path), QString::fromStdString(why));
    return false;
}

std::optional<core::ModelSpec> readHfModel(const QString& path, QString* error)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        if (error)
            *error = QObject::tr("Cannot open %1: %2").arg(QDir::toNativeSeparators(path), file.errorString());
        return std::nullopt;
    }
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(file.readAll().toStdString());
    } catch (const nlohmann::json::parse_error& e) {
        if (error)
            *error = QObject::tr("%1 is not valid JSON: %2")
                         .arg(QDir::toNativeSeparators(path), QString::fromUtf8(e.what()));
        return std::nullopt;
    }
    const QFileInfo info(path);
    // "Meta-Llama-3-70B/config.json" -> "Meta-Llama-3-70B"; "mixtral-8x7b.config.json" -> "mixtral-8x7b".
    QString name = info.fileName() == QLatin1String("config.json") ? info.dir().dirName() : info.completeBaseName();
    if (name.endsWith(QLatin1String(".config")))
        name.chop(7);
    std::string why;
    auto m = core::HfConfigReader::read(j, name.toStdString(), why);
    if (!m && error)
        *error = QObject::tr("%1: %2").arg(QDir::toNativeSeparators(path), QString::fromStdString(why));
    return m;
}

std::optional<core::Scenario> importLaunchText(
    const QString& text, const core::Scenario& base, QString* error, QStringList* notes)
{
    core::LaunchArgsImporter::Defaults defaults;
    if (!base.gpuPreset.empty())
        defaults.gpu = base.gpuPreset;
    defaults.nodes = static_cast<int>(base.topology.domains.size());
    defaults.gpusPerNode = base.topology.domains.empty() ? 8 : base.topology.domains.front().gpuCount;
    if (!base.topology.fabrics.empty())
        defaults.nicGbps = base.topology.fabrics.front().nicGbps;
    const auto result = core::LaunchArgsImporter::import(text.toStdString(), defaults);
    if (notes) {
        for (const auto& n : result.notes)
            notes->append(QString::fromStdString(n));
    }
    if (!result.scenario && error)
        *error = QString::fromStdString(result.error);
    return result.scenario;
}

QString checkMarkdown(const QString& text)
{
    // The design's name as a heading and each finding as a bullet, wrapped to the window; every ASCII punctuation
    // mark escaped (CommonMark), so that a log's file name with underscores or stars shows as it is.
    const auto escaped = [](const QString& line) {
        QString out;
        for (const QChar c : line) {
            if (c.unicode() < 128 && (c.isPunct() || c.isSymbol()))
                out += QLatin1Char('\\');
            out += c;
        }
        return out;
    };
    QString md;
    const QStringList lines = text.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    for (int i = 0; i < lines.size(); ++i)
        md += (i == 0 ? QStringLiteral("### ") : QStringLiteral("- ")) + escaped(lines[i]) + QLatin1Char('\n');
    return md;
}

PresetGallery::MarkdownAction recordLogAction(
    MainWindow* window, const QString& logPath, const std::function<QString()>& askRunsFile)
{
    PresetGallery::MarkdownAction action;
    action.label = QObject::tr("Record in Runs File…");
    action.run = [window, logPath, askRunsFile]() -> std::optional<QString> {
        const QString runs = askRunsFile();
        if (runs.isEmpty())
            return std::nullopt;
        const std::optional<QString> text = window->checkTrainingLog(logPath, runs);
        return text ? std::optional<QString>(checkMarkdown(*text)) : std::nullopt;
    };
    return action;
}

void addMenuActions(QMenu* file, MainWindow* window)
{
    QMenu* launchMenu = file->addMenu(QObject::tr("Export &Launch Configuration"));
    launchMenu->setObjectName(QStringLiteral("exportLaunchMenu"));
    const std::pair<QString, QString> targets[]
        = { { QStringLiteral("megatron"), QObject::tr("&Megatron-LM Arguments…") },
              { QStringLiteral("nemo"), QObject::tr("&NeMo 2.0 Recipe…") },
              { QStringLiteral("torchtitan"), QObject::tr("&torchtitan TOML…") },
              { QStringLiteral("slurm"), QObject::tr("Slurm &Benchmark Job (Megatron-LM)…") },
              { QStringLiteral("vllm"), QObject::tr("&vLLM Serve Command…") },
              { QStringLiteral("sglang"), QObject::tr("&SGLang Server Command…") },
              { QStringLiteral("trtllm"), QObject::tr("Tensor&RT-LLM Serve Command…") } };
    for (const auto& [target, label] : targets) {
        if (target == QLatin1String("vllm"))
            launchMenu->addSeparator(); // serving designs below, training above
        launchMenu->addAction(label, window, [window, target = target] {
            const QString path = QFileDialog::getSaveFileName(
                window, QObject::tr("Export launch configuration"), launch::suggestedFileName(target));
            if (!path.isEmpty())
                window->exportLaunch(target, path);
        });
    }
    // File > Check Training Log, and the same with the run added to a runs file (which grows by one record:
    // no overwrite question). A check alone offers the record afterwards, in its result window.
    const auto askRunsFile = [window] {
        return QFileDialog::getSaveFileName(window, QObject::tr("Add the run to a runs file"),
            QStringLiteral("runs.json"), QObject::tr("Runs (*.json)"), nullptr, QFileDialog::DontConfirmOverwrite);
    };
    const auto checkLog = [window, askRunsFile](bool record) {
        const QString path = QFileDialog::getOpenFileName(window,
            QObject::tr("A Megatron-LM, NeMo or torchtitan training log of this design"), QString(),
            QObject::tr("Logs (*.out *.log *.txt);;All files (*)"));
        if (path.isEmpty())
            return;
        const QString runs = record ? askRunsFile() : QString();
        if (record && runs.isEmpty())
            return;
        if (const std::optional<QString> text = window->checkTrainingLog(path, runs))
            PresetGallery::showMarkdown(window, QObject::tr("The log against the prediction"), checkMarkdown(*text),
                record ? PresetGallery::MarkdownAction {} : recordLogAction(window, path, askRunsFile));
    };
    file->addAction(QObject::tr("Check Training &Log…"), window, [checkLog] { checkLog(false); });
    file->addAction(QObject::tr("Record Training Log in Runs File…"), window, [checkLog] { checkLog(true); });
    file->addAction(QObject::tr("Import &Model (config.json)…"), window, [window] {
        const QString path = QFileDialog::getOpenFileName(
            window, QObject::tr("Import a Hugging Face config.json"), QString(), QObject::tr("Model config (*.json)"));
        if (!path.isEmpty())
            window->importModelFile(path);
    });
    file->addAction(QObject::tr("Import Launch &Command…"), window, [window] {
        bool ok = false;
        const QString text = QInputDialog::getMultiLineText(window, QObject::tr("Import launch command"),
            QObject::tr("Paste a Megatron-LM command line (torchrun … pretrain_gpt.py --flags) or NeMo overrides:"),
            QString(), &ok);
        if (ok && !text.trimmed().isEmpty())
            window->importLaunchText(text);
    });
    file->addAction(QObject::tr("Import Launch Command from &File…"), window, [window] {
        const QString path = QFileDialog::getOpenFileName(window, QObject::tr("Import a launch script"), QString(),
            QObject::tr("Launch scripts (*.sh *.py *.txt);;All files (*)"));
        if (!path.isEmpty())
            window->importLaunchFile(path);
    });
}

} // namespace parallax::ui::launch
