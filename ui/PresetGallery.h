#pragma once

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

    // A window with Markdown text (Help > Lesson).
    static void showMarkdown(QWidget* parent, const QString& title, const QString& markdown);

private:
    void showCurrent();
    QListWidget* m_list;
    QTextBrowser* m_text;
};

} // namespace parallax::ui
