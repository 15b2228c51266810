#include "ui/ReportTabs.h"

#include "core/schedule/PipelineSchedule.h"
#include "ui/Format.h"
#include "ui/ScheduleRankModel.h"
#include "ui/StageMemoryModel.h"
#include "ui/Theme.h"

#include <QHeaderView>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

namespace parallax::ui {

namespace {
QTableView* makeTable(QWidget* parent, QAbstractItemModel* model, int sortRole)
{
    auto* proxy = new QSortFilterProxyModel(parent);
    proxy->setSourceModel(model);
    proxy->setSortRole(sortRole);
    auto* table = new QTableView(parent);
    table->setModel(proxy);
    table->setSortingEnabled(true);
    table->sortByColumn(0, Qt::AscendingOrder);
    table->setAlternatingRowColors(true);
    table->setSelectionBehavior(QAbstractItemView::SelectRows);
    table->verticalHeader()->setVisible(false);
    table->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    table->horizontalHeader()->setMinimumSectionSize(60);
    return table;
}

QLabel* makeSummary(QWidget* parent)
{
    auto* label = new QLabel(parent);
    label->setWordWrap(true);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    label->setTextFormat(Qt::RichText);
    return label;
}
} // namespace

MemoryTab::MemoryTab(QWidget* parent)
    : QWidget(parent)
    , m_summary(makeSummary(this))
    , m_model(new StageMemoryModel(this))
{
    m_table = makeTable(this, m_model, StageMemoryModel::SortRole);
    m_table->setObjectName(QStringLiteral("memoryTable"));
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_summary);
    layout->addWidget(m_table, 1);
}

void MemoryTab::setEvaluation(const EvaluationPtr& evaluation)
{
    m_model->setEvaluation(evaluation);
    const auto& r = evaluation->report;
    if (r.stages.empty()) {
        m_summary->setText(tr("No memory estimate: %1")
                               .arg(r.errors.empty() ? tr("the engine has not run yet")
                                                     : QString::fromStdString(r.errors.front().text).toHtmlEscaped()));
        return;
    }
    const bool over = r.hbmBytes > 0 && r.peakMemoryBytes > r.hbmBytes;
    QString text = tr("Peak <b>%1</b> per GPU on stage %2, of <b>%3</b> HBM (%4)")
                       .arg(format::bytes(r.peakMemoryBytes))
                       .arg(r.peakMemoryStage)
                       .arg(format::bytes(r.hbmBytes))
                       .arg(format::percent(r.hbmBytes > 0 ? r.peakMemoryBytes / r.hbmBytes : 0, 0));
    if (over)
        text += QStringLiteral(" · <span style='color:%1'><b>%2</b></span>")
                    .arg(theme::problemColor().name(),
                        tr("does not fit: over by %1").arg(format::bytes(r.peakMemoryBytes - r.hbmBytes)));
    else
        text += QStringLiteral(" · ") + tr("fits with %1 to spare").arg(format::bytes(r.hbmBytes - r.peakMemoryBytes));
    m_summary->setText(text);
}

ScheduleTab::ScheduleTab(QWidget* parent)
    : QWidget(parent)
    , m_summary(makeSummary(this))
    , m_model(new ScheduleRankModel(this))
{
    m_table = makeTable(this, m_model, ScheduleRankModel::SortRole);
    m_table->setObjectName(QStringLiteral("scheduleTable"));
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_summary);
    layout->addWidget(m_table, 1);
}

void ScheduleTab::setEvaluation(const EvaluationPtr& evaluation)
{
    m_model->setEvaluation(evaluation);
    const auto& r = evaluation->report;
    const auto& sim = r.schedule;
    if (sim.busySecondsPerRank.empty()) {
        m_summary->setText(tr("No simulated schedule: %1")
                               .arg(r.errors.empty() ? tr("the engine has not run yet")
                                                     : QString::fromStdString(r.errors.front().text).toHtmlEscaped()));
        return;
    }
    const auto& p = evaluation->scenario.parallel;
    QString text = tr("<b>%1</b> schedule, %2 pipeline ranks, %3 micro-batches per step: makespan <b>%4</b>, "
                      "bubble <b>%5</b>, %6 ops simulated")
                       .arg(format::scheduleName(p.schedule))
                       .arg(sim.busySecondsPerRank.size())
                       .arg(r.microbatches)
                       .arg(format::seconds(sim.makespan))
                       .arg(format::percent(sim.bubbleFraction))
                       .arg(sim.ops.size());
    text += QStringLiteral("<br>")
        + tr("Step %1 = pipeline %2 + exposed data-parallel %3 + optimizer %4")
              .arg(format::seconds(r.step.stepSeconds), format::seconds(r.step.pipelineSeconds),
                  format::seconds(r.step.dpExposedSeconds), format::seconds(r.step.optimizerSeconds));
    if (sim.deadlock)
        text += QStringLiteral("<br><span style='color:%1'>%2</span>")
                    .arg(theme::problemColor().name(), tr("The simulated schedule did not finish (deadlock)."));
    m_summary->setText(text);
}

RecommendationsTab::RecommendationsTab(QWidget* parent)
    : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    auto* label = new QLabel(
        tr("<h3>Recommendations</h3><p>This view comes with the recommender: it will enumerate the valid "
           "configurations for this topology and model, rank them by step time under the memory limit, and say "
           "why each alternative loses (out of memory by N GB, TP crosses InfiniBand, bubble X %, all-to-all "
           "imbalance).</p><p>Until then, edit the parallelism panel and watch the status bar, the rank map and "
           "the memory table.</p>"),
        this);
    label->setWordWrap(true);
    label->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    layout->addWidget(label);
    layout->addStretch(1);
}

} // namespace parallax::ui
