// SPDX-License-Identifier: Apache-2.0
#include "ui/ScheduleTab.h"

#include "core/inference/InferenceMarkdown.h"

#include "ui/BackgroundJob.h"
#include "ui/Format.h"
#include "ui/GanttView.h"
#include "ui/ScheduleRankModel.h"
#include "ui/TableSupport.h"
#include "ui/Theme.h"
#include "ui/render/GanttModel.h"
#include "ui/render/ReportPictures.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>
#include <atomic>

namespace parallax::ui {

namespace {
constexpr int kMaxCompared = 4;
constexpr double kSpeeds[] = { 0.25, 0.5, 1, 2, 4, 8 };

// Text buttons: glyphs in the palette's text color read on light and dark palettes alike (Fusion's
// media icons are dark gray pixmaps).
QToolButton* makeButton(QWidget* parent, const QString& text, const QString& tip)
{
    auto* b = new QToolButton(parent);
    b->setText(text);
    b->setToolTip(tip);
    b->setToolButtonStyle(Qt::ToolButtonTextOnly);
    b->setAutoRaise(true);
    return b;
}

QString firstError(const core::Report& r)
{
    return r.errors.empty() ? QObject::tr("not valid") : QString::fromStdString(r.errors.front().text);
}
} // namespace

ScheduleTab::ScheduleTab(QWidget* parent)
    : QWidget(parent)
    , m_summary(makeSummaryLabel(this))
    , m_gantt(new GanttView(this))
    , m_model(new ScheduleRankModel(this))
{
    m_pool.setMaxThreadCount(1);
    m_gantt->setObjectName(QStringLiteral("ganttView"));

    auto* playback = new QHBoxLayout;
    playback->setSpacing(2);
    m_playButton = makeButton(this, tr("▶ Play"),
        tr("Play the schedule: a cursor sweeps the "
           "timeline and ops appear as they start (Space)"));
    m_playButton->setMinimumWidth(
        std::max(fontMetrics().horizontalAdvance(tr("▶ Play")), fontMetrics().horizontalAdvance(tr("▮▮ Pause"))) + 16);
    m_stepBackButton = makeButton(this, QStringLiteral("|◀"), tr("Back to the previous op start or end (←)"));
    m_stepButton = makeButton(this, QStringLiteral("▶|"), tr("On to the next op start or end (→)"));
    m_resetButton = makeButton(this, tr("■ Show all"), tr("Stop playback and show every op"));
    m_fitButton = makeButton(this, tr("Fit"),
        tr("Zoom to the whole timeline (Home). Wheel: zoom around the mouse; drag or Shift+wheel: pan"));
    m_speedCombo = new QComboBox(this);
    m_speedCombo->setObjectName(QStringLiteral("scheduleSpeed"));
    m_speedCombo->setToolTip(tr("Playback speed: 1× sweeps the whole step in %1 s").arg(GanttView::kSweepSeconds));
    for (double s : kSpeeds)
        m_speedCombo->addItem(QStringLiteral("%1×").arg(s), s);
    m_speedCombo->setCurrentIndex(2);
    m_timeLabel = new QLabel(this);
    m_timeLabel->setObjectName(QStringLiteral("scheduleTime"));
    m_timeLabel->setMinimumWidth(m_timeLabel->fontMetrics().horizontalAdvance(QStringLiteral("t = 000 ms of 00.0 s")));
    for (QWidget* w : std::initializer_list<QWidget*> { m_playButton, m_stepBackButton, m_stepButton, m_resetButton })
        playback->addWidget(w);
    playback->addSpacing(8);
    playback->addWidget(new QLabel(tr("Speed:"), this));
    playback->addWidget(m_speedCombo);
    playback->addSpacing(12);
    playback->addWidget(m_timeLabel);
    playback->addStretch(1);
    playback->addWidget(m_fitButton);

    auto* compare = new QHBoxLayout;
    compare->setSpacing(2);
    m_compareCheck = new QCheckBox(tr("Compare:"), this);
    m_compareCheck->setObjectName(QStringLiteral("scheduleCompare"));
    m_compareCheck->setToolTip(
        tr("Evaluate this scenario under two to four schedules and stack them on one time axis"));
    compare->addWidget(m_compareCheck);
    for (core::ScheduleKind kind : comparableSchedules()) {
        auto* box = new QCheckBox(
            kind == core::ScheduleKind::Interleaved1F1B ? tr("interleaved") : render::scheduleName(kind), this);
        box->setChecked(kind == core::ScheduleKind::OneFOneB || kind == core::ScheduleKind::Interleaved1F1B
            || kind == core::ScheduleKind::DualPipe);
        box->setEnabled(false);
        m_scheduleChecks.push_back(box);
        compare->addWidget(box);
        connect(box, &QCheckBox::toggled, this, [this] {
            updateCompareChecks();
            if (compareMode())
                startComparison();
        });
    }
    compare->addStretch(1);
    m_compareStatus = new QLabel(this);
    m_compareStatus->setObjectName(QStringLiteral("scheduleCompareStatus"));
    m_compareStatus->setWordWrap(true);
    m_compareStatus->setVisible(false);

    m_table = makeSortedTable(this, m_model, ScheduleRankModel::SortRole);
    m_table->setObjectName(QStringLiteral("scheduleTable"));
    m_splitter = new QSplitter(Qt::Vertical, this);
    m_splitter->setChildrenCollapsible(false);
    m_splitter->addWidget(m_gantt);
    m_splitter->addWidget(m_table);
    m_splitter->setStretchFactor(0, 4);
    m_splitter->setStretchFactor(1, 1);
    connect(m_splitter, &QSplitter::splitterMoved, this, [this] { m_splitterMoved = true; });

    auto* layout = new QVBoxLayout(this);
    layout->setSpacing(4);
    layout->addWidget(m_summary);
    layout->addLayout(playback);
    layout->addLayout(compare);
    layout->addWidget(m_compareStatus);
    layout->addWidget(m_splitter, 1);

    connect(m_playButton, &QToolButton::clicked, this,
        [this] { m_gantt->isPlaying() ? m_gantt->pause() : m_gantt->play(); });
    connect(m_stepButton, &QToolButton::clicked, m_gantt, &GanttView::stepForward);
    connect(m_stepBackButton, &QToolButton::clicked, m_gantt, &GanttView::stepBackward);
    connect(m_resetButton, &QToolButton::clicked, this, [this] {
        m_gantt->pause();
        m_gantt->setCursorTime(-1);
    });
    connect(m_fitButton, &QToolButton::clicked, this, [this] { m_gantt->zoomToFit(); });
    connect(m_speedCombo, &QComboBox::currentIndexChanged, this,
        [this](int index) { m_gantt->setSpeed(m_speedCombo->itemData(index).toDouble()); });
    connect(m_compareCheck, &QCheckBox::toggled, this, [this](bool on) {
        updateCompareChecks();
        if (on)
            startComparison();
        else
            showSingle();
    });
    m_gantt->setPlaybackCallback([this] { updatePlaybackControls(); });
    updatePlaybackControls();
}

ScheduleTab::~ScheduleTab()
{
    m_gantt->setPlaybackCallback({});
}

void ScheduleTab::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    fitSplitter();
}

void ScheduleTab::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    fitSplitter();
}

// The chart gets the height at which its rows stop growing (leaving the table three rows at least),
// the table the rest, until the user moves the splitter.
void ScheduleTab::fitSplitter()
{
    if (m_splitterMoved || !m_gantt->renderer() || !isVisible())
        return;
    const int total = m_splitter->height() - m_splitter->handleWidth();
    const int minimumTable
        = m_table->horizontalHeader()->height() + 3 * m_table->verticalHeader()->defaultSectionSize();
    const int chart
        = std::clamp(m_gantt->naturalHeight(), std::min(200, total / 2), std::max(total / 2, total - minimumTable));
    m_splitter->setSizes({ chart, total - chart });
}

void ScheduleTab::setEvaluation(const EvaluationPtr& evaluation)
{
    m_evaluation = evaluation;
    m_model->setEvaluation(evaluation);
    const auto& r = evaluation->report;
    const auto& sim = r.schedule;
    // Comparing schedules needs a training pipeline; a serving scenario has none.
    m_compareCheck->setEnabled(!r.inference);
    m_compareCheck->setToolTip(r.inference
            ? tr("A serving scenario has no training pipeline: there are no schedules to compare")
            : tr("Evaluate this scenario under two to four schedules and stack them on one time axis"));
    if (r.inference) {
        // A serving scenario has no training pipeline: say what one decode step is made of instead,
        // naming only the terms it has (no "TP 0.00 s" on a scenario without tensor parallelism).
        const auto& d = r.inference->decode;
        QStringList terms;
        const std::pair<QString, double> parts[] = { { tr("weights"), d.weightsSeconds },
            { tr("KV cache"), d.kvSeconds }, { tr("compute"), d.computeSeconds }, { tr("TP"), d.tpSeconds },
            { tr("EP"), d.epSeconds }, { tr("PP"), d.ppSeconds }, { tr("drafts"), d.draftSeconds } };
        for (const auto& [name, seconds] : parts) {
            if (seconds > 0)
                terms << name + QLatin1Char(' ') + format::seconds(seconds);
        }
        QString text = tr("Serving scenario: no training pipeline to schedule. One decode step at concurrency %1 "
                          "takes <b>%2</b> = %3; prefill of one request (TTFT) %4. The Memory tab shows the KV cache.")
                           .arg(r.inference->concurrency)
                           .arg(format::seconds(d.stepSeconds), terms.join(QStringLiteral(" + ")),
                               format::seconds(r.inference->ttftSeconds));
        if (r.inference->speculativeTokens > 0)
            text += QStringLiteral("<br>")
                + tr("%1: TPOT <b>%2</b>")
                      .arg(QString::fromStdString(core::describeSpeculation(*r.inference)).toHtmlEscaped(),
                          format::seconds(r.inference->tpotSeconds));
        m_summary->setText(text);
    } else if (sim.busySecondsPerRank.empty()) {
        m_summary->setText(tr("No simulated schedule: %1")
                               .arg(r.errors.empty() ? tr("the engine has not run yet")
                                                     : QString::fromStdString(r.errors.front().text).toHtmlEscaped()));
    } else {
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
    if (compareMode())
        startComparison();
    else
        showSingle();
}

void ScheduleTab::showSingle()
{
    m_latestRequest->store(++m_compareGeneration); // a comparison still queued is no longer wanted
    m_comparePending = false;
    m_comparison.clear();
    m_compareStatus->setVisible(false);
    if (!m_evaluation || m_evaluation->report.schedule.ops.empty()) {
        m_gantt->setModel(nullptr,
            !m_evaluation || m_evaluation->generation == 0 ? tr("Computing…")
                : m_evaluation->report.inference
                ? tr("Serving scenario: the pipeline schedule is a training view (switch Plan for to Training).")
                : tr("No simulated schedule for this configuration."));
        updatePlaybackControls();
        return;
    }
    std::vector<render::GanttTrack> tracks { render::ganttTrack(m_evaluation->scenario, m_evaluation->report) };
    m_gantt->setModel(std::make_shared<const render::GanttModel>(std::move(tracks)));
    fitSplitter();
    updatePlaybackControls();
}

void ScheduleTab::setCompareMode(bool on)
{
    m_compareCheck->setChecked(on); // starts or ends the comparison through the signal
}

bool ScheduleTab::compareMode() const
{
    return m_compareCheck->isChecked();
}

void ScheduleTab::setComparedSchedules(const std::vector<core::ScheduleKind>& kinds)
{
    const auto& all = comparableSchedules();
    for (std::size_t i = 0; i < all.size(); ++i) {
        const QSignalBlocker block(m_scheduleChecks[i]);
        m_scheduleChecks[i]->setChecked(std::find(kinds.begin(), kinds.end(), all[i]) != kinds.end());
    }
    updateCompareChecks();
    if (compareMode())
        startComparison();
}

std::vector<core::ScheduleKind> ScheduleTab::comparedSchedules() const
{
    std::vector<core::ScheduleKind> kinds;
    const auto& all = comparableSchedules();
    for (std::size_t i = 0; i < all.size(); ++i) {
        if (m_scheduleChecks[i]->isChecked())
            kinds.push_back(all[i]);
    }
    return kinds;
}

void ScheduleTab::updateCompareChecks()
{
    const bool on = compareMode();
    const bool full = static_cast<int>(comparedSchedules().size()) >= kMaxCompared;
    for (QCheckBox* box : m_scheduleChecks) {
        box->setEnabled(on && (box->isChecked() || !full));
        box->setToolTip(full && !box->isChecked() ? tr("At most %1 schedules at once").arg(kMaxCompared) : QString());
    }
}

void ScheduleTab::startComparison()
{
    const std::vector<core::ScheduleKind> kinds = comparedSchedules();
    if (!m_evaluation || m_evaluation->generation == 0)
        return;
    if (kinds.empty()) {
        showSingle();
        m_compareStatus->setText(tr("Check the schedules to compare."));
        m_compareStatus->setVisible(true);
        return;
    }
    const std::uint64_t generation = ++m_compareGeneration;
    m_comparePending = true;
    m_compareStatus->setText(
        tr("Evaluating %1…").arg(format::plural(static_cast<int>(kinds.size()), tr("schedule"), tr("schedules"))));
    m_compareStatus->setVisible(true);
    m_latestRequest->store(generation);
    const auto latest = m_latestRequest;
    const EvaluationPtr evaluation = m_evaluation;
    // The engine runs on the worker; the Gantt model is prepared there too (sorting, in-flight steps).
    using Result = std::pair<std::vector<ComparedSchedule>, std::shared_ptr<const render::GanttModel>>;
    runInBackground(
        m_pool, this,
        [evaluation, kinds, latest, generation]() -> Result {
            if (latest->load() != generation)
                return {}; // superseded while queued
            auto compared = evaluateSchedules(evaluation->scenario, kinds, evaluation->calibration.get());
            std::vector<render::GanttTrack> tracks;
            for (const ComparedSchedule& c : compared) {
                if (c.report.valid && !c.report.schedule.ops.empty())
                    tracks.push_back(render::ganttTrack(c.scenario, c.report, c.label));
            }
            std::shared_ptr<const render::GanttModel> model;
            if (!tracks.empty())
                model = std::make_shared<const render::GanttModel>(std::move(tracks));
            return { std::move(compared), std::move(model) };
        },
        [this, generation](
            Result result) { comparisonArrived(generation, std::move(result.first), std::move(result.second)); });
}

void ScheduleTab::comparisonArrived(
    std::uint64_t generation, std::vector<ComparedSchedule> result, std::shared_ptr<const render::GanttModel> model)
{
    if (generation != m_compareGeneration)
        return; // an edit or another choice of schedules came since
    m_comparePending = false;
    m_comparison = std::move(result);
    m_gantt->setModel(model, tr("None of the checked schedules is valid for this configuration."));
    fitSplitter();
    m_compareStatus->setText(compareStatus());
    m_compareStatus->setVisible(!m_compareStatus->text().isEmpty());
    updatePlaybackControls();
}

// Step times (the lanes' headers carry bubble and peaks) and why a schedule is missing.
QString ScheduleTab::compareStatus() const
{
    QStringList parts;
    for (const ComparedSchedule& c : m_comparison) {
        if (!c.report.valid)
            parts << tr("<b>%1</b> not shown: %2").arg(c.label.toHtmlEscaped(), firstError(c.report).toHtmlEscaped());
        else
            parts << tr("<b>%1</b> step %2%3")
                         .arg(c.label.toHtmlEscaped(), format::seconds(c.report.stepTimeSeconds),
                             c.report.fits ? QString()
                                           : QStringLiteral(" <span style='color:%1'>✖ %2</span>")
                                                 .arg(theme::problemColor().name(), tr("does not fit")));
    }
    return parts.join(QStringLiteral(" · "));
}

std::shared_ptr<const render::GanttModel> ScheduleTab::ganttModel() const
{
    return m_gantt->modelPtr();
}

bool ScheduleTab::showsComparison() const
{
    return compareMode() && !m_comparison.empty();
}

void ScheduleTab::updatePlaybackControls()
{
    const bool playing = m_gantt->isPlaying();
    const bool hasModel = m_gantt->model() != nullptr;
    m_playButton->setText(playing ? tr("▮▮ Pause") : tr("▶ Play"));
    for (QToolButton* b : { m_playButton, m_stepBackButton, m_stepButton, m_resetButton, m_fitButton })
        b->setEnabled(hasModel);
    const double t = m_gantt->cursorTime();
    if (!hasModel || t < 0) {
        m_timeLabel->setText(
            hasModel ? tr("makespan %1").arg(m_gantt->model()->formatTime(0, m_gantt->model()->endTime())) : QString());
        return;
    }
    const render::GanttModel* m = m_gantt->model();
    m_timeLabel->setText(tr("t = %1 of %2").arg(m->formatTime(0, t), m->formatTime(0, m->endTime())));
}

} // namespace parallax::ui
