// SPDX-License-Identifier: Apache-2.0
#include "ui/PresetGallery.h"

#include "core/Engine.h"
#include "core/io/PresetLibrary.h"
#include "core/io/ScenarioIo.h"
#include "core/search/ConfigSearch.h"
#include "core/search/LessonText.h"
#include "ui/BackgroundJob.h"

#include <QDialogButtonBox>
#include <QHBoxLayout>
#include <QListWidget>
#include <QPushButton>
#include <QSplitter>
#include <QTextBrowser>
#include <QVBoxLayout>
#include <nlohmann/json.hpp>

namespace parallax::ui {

namespace {
// The lesson and a one-line card of a preset, read leniently (the strict reader runs on Open).
QString lessonMarkdown(const core::ScenarioPresetInfo& info)
{
    const nlohmann::json j = nlohmann::json::parse(info.json, nullptr, false);
    QString md = QStringLiteral("# %1\n\n").arg(QString::fromStdString(info.name));
    if (j.is_object()) {
        QStringList card;
        if (j.contains("model") && j["model"].is_string())
            card << QObject::tr("model `%1`").arg(QString::fromStdString(j["model"].get<std::string>()));
        if (j.contains("cluster") && j["cluster"].is_object()) {
            const auto& c = j["cluster"];
            if (c.contains("nodes") && c.contains("gpus_per_node") && c["nodes"].is_number()
                && c["gpus_per_node"].is_number())
                card << QObject::tr("%1 × %2 GPUs").arg(c["nodes"].get<int>()).arg(c["gpus_per_node"].get<int>());
            if (c.contains("gpu") && c["gpu"].is_string())
                card << QStringLiteral("`%1`").arg(QString::fromStdString(c["gpu"].get<std::string>()));
        }
        if (!card.isEmpty())
            md += QStringLiteral("*") + card.join(QStringLiteral(" · ")) + QStringLiteral("*\n\n");
    }
    return md;
}

// A lesson's {{placeholders}} rendered with the engine (core/search/LessonText.h). Runs off the UI
// thread: a lesson that quotes the recommendation needs a search over the scenario's cluster.
QString renderedLesson(const core::Scenario& scenario)
{
    const core::Report report = core::evaluate(scenario);
    core::RenderedLesson lesson;
    if (core::lessonNeedsSearch(scenario.description)) {
        core::SearchOptions options;
        options.topK = 3;
        const core::SearchResult search = core::searchConfigurations(scenario, options);
        lesson = core::renderLesson(scenario, report, &search);
    } else {
        lesson = core::renderLesson(scenario, report);
    }
    return QString::fromStdString(lesson.markdown);
}

const QString kRendering = QObject::tr("*Computing the lesson's numbers with the engine...*");
} // namespace

void PresetGallery::showLessonOf(QWidget* parent, const core::Scenario& scenario)
{
    auto* dialog = new QDialog(parent);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setWindowTitle(tr("Lesson: %1").arg(QString::fromStdString(scenario.name)));
    dialog->resize(760, 600);
    auto* layout = new QVBoxLayout(dialog);
    auto* text = new QTextBrowser(dialog);
    text->setObjectName(QStringLiteral("lessonText"));
    text->setOpenExternalLinks(true);
    const QString title = QStringLiteral("# %1\n\n").arg(QString::fromStdString(scenario.name));
    text->setMarkdown(title + kRendering);
    layout->addWidget(text);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, dialog);
    QObject::connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::reject);
    layout->addWidget(buttons);
    auto* pool = new QThreadPool(dialog); // destroyed with the dialog, after its work ends
    runInBackground(
        *pool, text, [scenario] { return renderedLesson(scenario); },
        [text, title](const QString& markdown) { text->setMarkdown(title + markdown); });
    dialog->show();
}

PresetGallery::PresetGallery(QWidget* parent)
    : QDialog(parent)
    , m_list(new QListWidget(this))
    , m_text(new QTextBrowser(this))
{
    setWindowTitle(tr("Open Preset"));
    resize(900, 560);
    auto* layout = new QVBoxLayout(this);
    auto* splitter = new QSplitter(this);
    splitter->addWidget(m_list);
    splitter->addWidget(m_text);
    splitter->setStretchFactor(1, 2);
    layout->addWidget(splitter, 1);
    m_list->setObjectName(QStringLiteral("presetList"));
    m_list->setWordWrap(true);
    m_list->setUniformItemSizes(false);
    m_text->setOpenExternalLinks(true);
    for (const auto& s : core::PresetLibrary::instance().scenarios()) {
        auto* item = new QListWidgetItem(QString::fromStdString(s.name), m_list);
        item->setData(Qt::UserRole, QString::fromStdString(s.id));
        item->setToolTip(QString::fromStdString(s.summary));
    }
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Open | QDialogButtonBox::Cancel, this);
    layout->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_list, &QListWidget::currentRowChanged, this, [this] { showCurrent(); });
    connect(m_list, &QListWidget::itemDoubleClicked, this, &QDialog::accept);
    if (m_list->count() > 0)
        m_list->setCurrentRow(0);
    buttons->button(QDialogButtonBox::Open)->setEnabled(m_list->count() > 0);
}

QString PresetGallery::selectedPresetId() const
{
    const QListWidgetItem* item = m_list->currentItem();
    return item ? item->data(Qt::UserRole).toString() : QString();
}

void PresetGallery::selectPreset(const QString& id)
{
    for (int i = 0; i < m_list->count(); ++i) {
        if (m_list->item(i)->data(Qt::UserRole).toString() == id)
            m_list->setCurrentRow(i);
    }
}

void PresetGallery::showCurrent()
{
    const auto* info = core::PresetLibrary::instance().scenario(selectedPresetId().toStdString());
    const int generation = ++m_generation;
    if (!info) {
        m_text->clear();
        return;
    }
    const QString card = lessonMarkdown(*info);
    m_text->setMarkdown(card + kRendering);
    core::LoadError error;
    auto scenario = core::parseScenario(info->json, error);
    if (!scenario) {
        m_text->setMarkdown(card + tr("This preset does not load: %1").arg(QString::fromStdString(error.text())));
        return;
    }
    runInBackground(
        m_pool, this, [s = *scenario] { return renderedLesson(s); },
        [this, generation, card](const QString& markdown) {
            if (generation == m_generation) // a newer selection supersedes this one
                m_text->setMarkdown(card + markdown);
        });
}

QDialog* PresetGallery::markdownDialog(
    QWidget* parent, const QString& title, const QString& markdown, const MarkdownAction& action)
{
    auto* dialog = new QDialog(parent);
    dialog->setWindowTitle(title);
    dialog->resize(720, 560);
    auto* layout = new QVBoxLayout(dialog);
    auto* text = new QTextBrowser(dialog);
    text->setObjectName(QStringLiteral("markdownText"));
    text->setOpenExternalLinks(true);
    text->setMarkdown(markdown);
    layout->addWidget(text);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, dialog);
    QObject::connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::reject);
    if (!action.label.isEmpty() && action.run) {
        QPushButton* button = buttons->addButton(action.label, QDialogButtonBox::ActionRole);
        button->setObjectName(QStringLiteral("markdownAction"));
        QObject::connect(button, &QPushButton::clicked, dialog, [text, button, run = action.run] {
            if (const std::optional<QString> result = run()) {
                text->setMarkdown(*result);
                button->setEnabled(false);
            }
        });
    }
    layout->addWidget(buttons);
    return dialog;
}

void PresetGallery::showMarkdown(
    QWidget* parent, const QString& title, const QString& markdown, const MarkdownAction& action)
{
    QDialog* dialog = markdownDialog(parent, title, markdown, action);
    dialog->exec();
    delete dialog;
}

} // namespace parallax::ui
