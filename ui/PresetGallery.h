// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/Scenario.h"

#include <QThreadPool>

#include <QDialog>

class QListWidget;
class QTextBrowser;

namespace parallax::ui {

// File > Open Preset: the scenarios compiled into the binary, each with its lesson (Markdown).
class PresetGallery : public QDialog {
public:
    explicit PresetGallery(QWidget* parent = nullptr);
    QString selectedPresetId() const;
    void selectPreset(const QString& id);

    // A window with Markdown text.
    static void showMarkdown(QWidget* parent, const QString& title, const QString& markdown);
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
