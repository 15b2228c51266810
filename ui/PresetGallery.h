// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/Scenario.h"

#include <QThreadPool>

#include <QDialog>

#include <functional>
#include <optional>

class QListWidget;
class QTextBrowser;

namespace parallax::ui {

// File > Open Preset: the scenarios compiled into the binary, each with its lesson (Markdown).
class PresetGallery : public QDialog {
public:
    explicit PresetGallery(QWidget* parent = nullptr);
    QString selectedPresetId() const;
    void selectPreset(const QString& id);

    // A follow-up a Markdown window offers beside Close: its button runs `run`, whose text (nullopt: cancelled or
    // failed, the window unchanged) replaces the window's, and is then disabled.
    struct MarkdownAction {
        QString label;
        std::function<std::optional<QString>()> run;
    };
    // A window with Markdown text (and an action, when it has a label), not yet shown; showMarkdown runs it.
    static QDialog* markdownDialog(
        QWidget* parent, const QString& title, const QString& markdown, const MarkdownAction& action = {});
    static void showMarkdown(
        QWidget* parent, const QString& title, const QString& markdown, const MarkdownAction& action = {});
    // Help > Lesson: a non-modal window whose numbers the engine fills in off the UI thread.
    static void showLessonOf(QWidget* parent, const core::Scenario& scenario);

private:
    void showCurrent();
    QListWidget* m_list;
    QTextBrowser* m_text;
    int m_generation = 0;
    QThreadPool m_pool; // last: its destruction waits for a lesson being rendered
};

} // namespace parallax::ui
