// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "ui/Evaluation.h"

#include <QHash>
#include <QWidget>
#include <deque>
#include <functional>

class QAbstractButton;
class QCheckBox;
class QComboBox;
class QFormLayout;
class QGroupBox;
class QLabel;

namespace parallax::ui {

class MessageModel;
class ScenarioDocument;

// The mode switch (training / inference), the model, parallelism, training and serving panels with live validation:
// each field is bound to a JSON path of the scenario ("parallel.tp"); an engine error on that path marks the field (red
// frame, tooltip), shows the message under it and, for a degree that does not divide, buttons
// with the nearest valid values.
class ConfigPanel : public QWidget {
public:
    explicit ConfigPanel(ScenarioDocument* document, QWidget* parent = nullptr);
    ~ConfigPanel() override;

    QWidget* fieldEditor(const QString& path) const;
    bool isFieldMarked(const QString& path) const; // red: an error names this field
    QString fieldMessage(const QString& path) const; // the text shown under the field
    QStringList suggestions(const QString& path) const;
    void applySuggestion(const QString& path, int index);
    MessageModel* messageModel() const { return m_messages; }

private:
    struct Field {
        QString path;
        QWidget* editor = nullptr;
        QWidget* frame = nullptr; // draws the red (error) or amber (warning) mark
        QWidget* hint = nullptr; // message + suggestion buttons under the field
        QLabel* hintText = nullptr;
        QWidget* buttons = nullptr;
        QFormLayout* form = nullptr; // the form and row widget, to show the field in one mode only
        QWidget* row = nullptr;
        std::function<void()> refresh; // scenario -> widget
        bool marked = false;
        QStringList suggestionLabels;
        QStringList messages;
    };

    QGroupBox* buildModelGroup();
    QGroupBox* buildParallelGroup();
    QGroupBox* buildTrainingGroup();
    QGroupBox* buildKernelsGroup();
    QGroupBox* buildRecomputeModulesGroup(); // ConfigPanelRecompute.cpp
    QGroupBox* buildOptimizerGroup(); // ConfigPanelOptimizer.cpp
    QWidget* buildModeSwitch();
    QGroupBox* buildInferenceGroup();
    // Training-only panels and fields hide in inference mode and the serving ones in training mode.
    void showFieldsOfMode(bool inference);
    // An empty `label` lets the editor span the row (a check box that carries its own text).
    Field& addField(QFormLayout* form, const QString& label, const QString& path, QWidget* editor, const QString& tip);
    void intField(QFormLayout* form, const QString& label, const QString& path, int minimum, int maximum,
        std::function<int(const core::Scenario&)> get, std::function<void(core::Scenario&, int)> set,
        const QString& tip = {});
    // `values`: (value written to the scenario, text shown) pairs.
    void choiceField(QFormLayout* form, const QString& label, const QString& path,
        const std::vector<std::pair<QString, QString>>& values, std::function<QString(const core::Scenario&)> get,
        std::function<void(core::Scenario&, const QString&)> set, const QString& tip = {});
    void doubleField(QFormLayout* form, const QString& label, const QString& path, double minimum, double maximum,
        double step, int decimals, std::function<double(const core::Scenario&)> get,
        std::function<void(core::Scenario&, double)> set, const QString& tip = {});
    // `labelOnBox`: the label is the check box's own text (clickable) instead of the form's label.
    void boolField(QFormLayout* form, const QString& label, const QString& path,
        std::function<bool(const core::Scenario&)> get, std::function<void(core::Scenario&, bool)> set,
        const QString& tip = {}, bool labelOnBox = false);

    void refreshFromScenario();
    void refreshFromEvaluation();
    QString messageFor(const std::string& field, const QString& engineText) const;
    void clearMark(Field& field);
    void mark(Field& field, const QString& message, bool error);
    Field* fieldFor(const std::string& path); // exact, else the longest registered prefix

    ScenarioDocument* m_document;
    std::deque<Field> m_fields; // references stay valid as fields are added
    QHash<QString, std::size_t> m_byPath;
    bool m_updating = false;
    QComboBox* m_modelPreset = nullptr;
    QGroupBox* m_moeGroup = nullptr;
    QGroupBox* m_architectureGroup = nullptr; // layers, widths, MoE: under the other panels
    QGroupBox* m_trainingGroup = nullptr;
    QGroupBox* m_kernelsGroup = nullptr;
    QGroupBox* m_recomputeModulesGroup = nullptr;
    QGroupBox* m_optimizerGroup = nullptr;
    QGroupBox* m_inferenceGroup = nullptr;
    QAbstractButton* m_trainingMode = nullptr;
    QAbstractButton* m_inferenceMode = nullptr;
    QCheckBox* m_dpAttention = nullptr;
    QCheckBox* m_autoDp = nullptr;
    QLabel* m_modelSummary = nullptr;
    QLabel* m_parallelSummary = nullptr;
    QLabel* m_messageSummary = nullptr;
    QLabel* m_findings = nullptr;
    MessageModel* m_messages = nullptr;
};

} // namespace parallax::ui
