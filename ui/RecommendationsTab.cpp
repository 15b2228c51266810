// SPDX-License-Identifier: Apache-2.0
#include "ui/RecommendationsTab.h"

#include "core/io/ScenarioIo.h"
#include "core/launch/MegatronArgsWriter.h"
#include "core/search/SearchSpace.h"
#include "ui/BackgroundJob.h"
#include "ui/CandidateModel.h"
#include "ui/ElidedLabel.h"
#include "ui/Format.h"
#include "ui/RejectedFamilyModel.h"
#include "ui/ScenarioDocument.h"
#include "ui/TableSupport.h"
#include "ui/Theme.h"

#include <QCheckBox>
#include <QClipboard>
#include <QElapsedTimer>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

namespace parallax::ui {

namespace {
constexpr int kProgressSteps = 1000;
// Column widths in pixels. The rejected families' reasons are what that table is for and keep kMinReasonWidth of
// the view; its configurations ("TP=8 PP=4 DP=2 v=5 ZeRO-1 interleaved-1f1b mb=1 recompute selective") and family
// labels take their contents' width up to the first figure and give way down to the second (both elide; the
// tooltips have them whole).
constexpr int kMinReasonWidth = 200;
constexpr int kConfigurationWidth = 300;
constexpr int kMinConfigurationWidth = 110;
constexpr int kFamilyWidth = 160;
constexpr int kMinFamilyWidth = 64;
constexpr int kMinNumberWidth = 36; // "Fits": its contents' width

QWidget* titled(const QString& title, QWidget* content, QWidget* parent)
{
    auto* box = new QWidget(parent);
    auto* layout = new QVBoxLayout(box);
    layout->setContentsMargins(0, 4, 0, 0);
    layout->setSpacing(2);
    auto* label = new QLabel(QStringLiteral("<b>%1</b>").arg(title), box);
    layout->addWidget(label);
    layout->addWidget(content, 1);
    return box;
}
} // namespace

RecommendationsTab::RecommendationsTab(ScenarioDocument* document, QWidget* parent)
    : QWidget(parent)
    , m_document(document)
    , m_candidates(new CandidateModel(this))
    , m_rejected(new RejectedFamilyModel(this))
{
    m_pool.setMaxThreadCount(1);
    m_options.topK = 10;

    m_searchButton = new QPushButton(tr("Search configurations"), this);
    m_searchButton->setObjectName(QStringLiteral("searchButton"));
    m_searchButton->setToolTip(tr("Enumerate every valid configuration of this model, cluster and batch, rank them by "
                                  "simulated step time under the memory limit, and say why the others lose"));
    m_cancelButton = new QPushButton(tr("Cancel"), this);
    m_cancelButton->setObjectName(QStringLiteral("cancelSearchButton"));
    m_progress = new QProgressBar(this);
    m_progress->setRange(0, kProgressSteps);
    m_progress->setTextVisible(true);
    m_progress->setFormat(QStringLiteral("%p%"));
    // Three "100%" wide: the counts line beside it needs the room at 1366 px.
    m_progress->setMaximumWidth(3 * m_progress->fontMetrics().horizontalAdvance(QStringLiteral("100%")));
    // Elided with "…" where the bar is narrow (1366x768), the whole line as its tooltip: a clipped "99 s[imulated]"
    // read as 99 seconds. Long counts never widen the window.
    m_status = new ElidedLabel(this);
    m_status->setObjectName(QStringLiteral("searchStatus"));
    m_cpCommTypes = new QCheckBox(tr("All CP communications"), this);
    m_cpCommTypes->setObjectName(QStringLiteral("searchCpCommTypes"));
    m_cpCommTypes->setChecked(m_options.limits.includeCpCommTypes);
    m_cpCommTypes->setToolTip(tr("On layouts with CP > 1, try Ulysses' all-to-all (a2a) and the hierarchical a2a+p2p "
                                 "beside the ring (Megatron-Core --cp-comm-type). Clear it to keep the scenario's own "
                                 "type, e.g. for torchtitan, whose context parallelism is the ring only"));
    auto* bar = new QHBoxLayout;
    bar->addWidget(m_searchButton);
    bar->addWidget(m_cancelButton);
    bar->addWidget(m_cpCommTypes);
    bar->addWidget(m_progress, 1);
    bar->addWidget(m_status, 2);

    m_staleBanner = new QLabel(this);
    m_staleBanner->setObjectName(QStringLiteral("searchStale"));
    m_staleBanner->setWordWrap(true);
    m_staleBanner->setText(QStringLiteral("<span style='color:%1'>⚠ %2</span>")
                               .arg(theme::warningColor().darker(130).name(),
                                   tr("Stale: the model, cluster, batch or search options changed since this "
                                      "search. Its candidates answer the old question and cannot be applied; search "
                                      "again.")));
    m_staleBanner->setVisible(false);
    m_summary = makeSummaryLabel(this);
    m_summary->setObjectName(QStringLiteral("searchSummary"));

    m_candidateTable = makeSortedTable(this, m_candidates, CandidateModel::SortRole);
    m_candidateTable->setObjectName(QStringLiteral("candidateTable"));
    m_candidateTable->setSelectionMode(QAbstractItemView::SingleSelection);
    m_candidateTable->setWordWrap(false);
    // A candidate is its configuration, which keeps its room (candidates differ late in it: the schedule, the
    // micro-batch); the selected one's reasons are shown in full beside the Apply button.
    m_candidateTable->setTextElideMode(Qt::ElideRight);
    auto* ch = m_candidateTable->horizontalHeader();
    ch->setSectionResizeMode(QHeaderView::ResizeToContents);
    ch->setSectionResizeMode(CandidateModel::Configuration, QHeaderView::Interactive);
    ch->setSectionResizeMode(CandidateModel::Reasons, QHeaderView::Stretch);
    ch->resizeSection(CandidateModel::Configuration, kConfigurationWidth);
    m_rejectedTable = makeSortedTable(this, m_rejected, RejectedFamilyModel::SortRole);
    m_rejectedTable->setObjectName(QStringLiteral("rejectedTable"));
    m_rejectedTable->setWordWrap(false);
    m_rejectedTable->setTextElideMode(Qt::ElideRight);
    auto* rh = m_rejectedTable->horizontalHeader();
    rh->setSectionResizeMode(QHeaderView::ResizeToContents);
    rh->setMinimumSectionSize(kMinNumberWidth);
    rh->setSectionResizeMode(RejectedFamilyModel::Reason, QHeaderView::Stretch);
    // A family is one dimension's value ("tp=4"), but where one configuration is the best of several families
    // (nothing fits: the leanest stands for tp=1, cp=1, zero=3, ...) its label names them all.
    keepTextColumnInView(m_rejectedTable,
        { { RejectedFamilyModel::Family, kMinFamilyWidth, kFamilyWidth },
            { RejectedFamilyModel::Configuration, kMinConfigurationWidth, kConfigurationWidth } },
        RejectedFamilyModel::Reason, kMinReasonWidth);

    m_applyButton = new QPushButton(tr("Apply to the scenario"), this);
    m_applyButton->setObjectName(QStringLiteral("applyCandidateButton"));
    m_applyButton->setToolTip(tr("Set the parallelism panels to the selected candidate (one undoable step)"));
    m_copyButton = new QPushButton(tr("Copy Megatron-LM flags"), this);
    m_copyButton->setObjectName(QStringLiteral("copyCandidateFlagsButton"));
    m_copyButton->setToolTip(tr("Copy the Megatron-LM arguments of the selected candidate to the clipboard"));
    m_details = makeSummaryLabel(this);
    m_details->setObjectName(QStringLiteral("candidateDetails"));
    auto* candidates = new QWidget(this);
    auto* cl = new QVBoxLayout(candidates);
    cl->setContentsMargins(0, 0, 0, 0);
    // At 1366x768 the table keeps several rows in view, and neither it nor the Apply button moves
    // as the selected candidate's reasons run longer or shorter: the reasons scroll in a box of
    // fixed height beside the button.
    const int rowHeight = m_candidateTable->verticalHeader()->defaultSectionSize();
    m_candidateTable->setMinimumHeight(m_candidateTable->horizontalHeader()->sizeHint().height() + 4 * rowHeight + 4);
    cl->addWidget(m_candidateTable, 1);
    auto* detailsScroll = new QScrollArea(candidates);
    detailsScroll->setObjectName(QStringLiteral("candidateDetailsScroll"));
    detailsScroll->setWidgetResizable(true);
    detailsScroll->setFrameShape(QFrame::NoFrame);
    detailsScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    detailsScroll->setWidget(m_details);
    detailsScroll->setFixedHeight(5 * fontMetrics().lineSpacing() + 6);
    auto* applyRow = new QHBoxLayout;
    applyRow->addWidget(m_applyButton, 0, Qt::AlignTop);
    applyRow->addWidget(m_copyButton, 0, Qt::AlignTop);
    applyRow->addWidget(detailsScroll, 1);
    cl->addLayout(applyRow);

    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->setChildrenCollapsible(false);
    splitter->addWidget(titled(tr("Candidates that fit, fastest first"), candidates, splitter));
    splitter->addWidget(titled(tr("Why the alternatives lose"), m_rejectedTable, splitter));
    splitter->setStretchFactor(0, 1);
    splitter->setStretchFactor(1, 1);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(bar);
    layout->addWidget(m_staleBanner);
    layout->addWidget(m_summary);
    layout->addWidget(splitter, 1);

    connect(m_searchButton, &QPushButton::clicked, this, &RecommendationsTab::startSearch);
    connect(m_cancelButton, &QPushButton::clicked, this, &RecommendationsTab::cancelSearch);
    connect(m_cpCommTypes, &QCheckBox::toggled, this, [this](bool on) {
        m_options.limits.includeCpCommTypes = on;
        updateStale();
    });
    connect(m_applyButton, &QPushButton::clicked, this, [this] { applyCandidate(selectedRow()); });
    connect(m_copyButton, &QPushButton::clicked, this, [this] { copyCandidateFlags(selectedRow()); });
    connect(m_candidateTable, &QTableView::doubleClicked, this, [this] { applyCandidate(selectedRow()); });
    connect(m_candidateTable->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
        updateButtons();
        showDetails();
    });
    connect(m_document, &ScenarioDocument::scenarioChanged, this, &RecommendationsTab::updateStale);
    connect(m_document, &ScenarioDocument::calibrationChanged, this, &RecommendationsTab::updateStale);
    m_refreshTimer = new QTimer(this);
    m_refreshTimer->setSingleShot(true);
    m_refreshTimer->setInterval(refreshDelayMs());
    connect(m_refreshTimer, &QTimer::timeout, this, &RecommendationsTab::refreshNow);
    connect(m_document, &ScenarioDocument::scenarioChanged, this, &RecommendationsTab::scheduleRefresh);
    connect(m_document, &ScenarioDocument::calibrationChanged, this, &RecommendationsTab::scheduleRefresh);
    m_summary->setText(tr("Search to rank every valid configuration of this model on this cluster by simulated step "
                          "time, and to see why each alternative loses."));
    updateButtons();
}

RecommendationsTab::~RecommendationsTab()
{
    if (m_cancel)
        m_cancel->store(true); // the pool's destructor then waits only for the search to notice
}

void RecommendationsTab::setSearchOptions(const core::SearchOptions& options)
{
    m_options = options;
    m_cpCommTypes->setChecked(options.limits.includeCpCommTypes);
}

QString RecommendationsTab::searchKey() const
{
    // The search varies the parallel degrees and knobs (the MoE token dispatcher and the CP communication too,
    // unless the options keep the scenario's); everything else is its input.
    core::Scenario s = core::applyPoint(m_document->scenario(), core::SearchPoint {});
    if (m_options.limits.includeDeepEp)
        s.training.moeTokenDispatcher = core::MoeDispatcher::AllToAll;
    if (m_options.limits.includeCpCommTypes) {
        s.parallel.cpCommType = core::CpCommType::P2p;
        s.parallel.cpA2aSize = 0;
    }
    s.name.clear();
    s.description.clear();
    // The option itself is part of the question: a ring-only search does not answer one over every type.
    return QString::fromStdString(core::serializeScenario(s))
        + (m_options.limits.includeCpCommTypes ? QString() : QStringLiteral("\ncp communication: the scenario's"));
}

QString RecommendationsTab::refreshKey() const
{
    core::Scenario s = m_document->scenario();
    s.name.clear();
    s.description.clear();
    return QString::fromStdString(core::serializeScenario(s));
}

void RecommendationsTab::setAutoRefresh(bool on)
{
    m_autoRefresh = on;
    if (!on)
        m_refreshTimer->stop();
}

bool RecommendationsTab::refreshPending() const
{
    return m_refreshTimer->isActive();
}

void RecommendationsTab::scheduleRefresh()
{
    if (!m_autoRefresh)
        return;
    // The running search answers an older scenario: stop it now, not when the debounce ends, and
    // drop what it returns.
    if (m_searching && m_cancel) {
        m_cancel->store(true);
        ++m_generation;
        m_searching = false;
        updateButtons();
    }
    m_status->setFullText(tr("Refreshing after the edit…"));
    m_refreshTimer->start();
}

void RecommendationsTab::refreshNow()
{
    const bool answered = m_result && !m_result->cancelled && m_refreshKey == refreshKey()
        && m_resultCalibration == m_document->calibration().get();
    if (answered && !m_searching) {
        m_status->setFullText(tr("Up to date")); // an undo back to the scenario the shown result answers
        return;
    }
    startSearch();
}

double RecommendationsTab::progress() const
{
    return static_cast<double>(m_progress->value()) / kProgressSteps;
}

void RecommendationsTab::startSearch()
{
    if (m_searching)
        cancelSearch();
    m_refreshTimer->stop();
    m_refreshKey = refreshKey();
    const std::uint64_t generation = ++m_generation;
    m_searching = true;
    m_cancel = std::make_shared<std::atomic<bool>>(false);
    m_progress->setValue(0);
    m_status->setFullText(tr("Searching…"));
    updateButtons();

    const core::Scenario scenario = m_document->scenario();
    const auto calibration = m_document->calibration();
    const QString key = searchKey();
    core::SearchOptions options = m_options;
    options.calibration = calibration.get();
    options.cancel = m_cancel.get();
    options.progress = [this, generation](const core::SearchProgress& p) {
        const int value = static_cast<int>(p.fraction * kProgressSteps);
        const QString phase = QString::fromLatin1(p.phase);
        const long long scored = p.scored;
        QMetaObject::invokeMethod(
            this,
            [this, generation, value, phase, scored] {
                if (generation != m_generation || !m_searching)
                    return;
                m_progress->setValue(value);
                m_status->setFullText(tr("%1: %2 configurations scored").arg(phase).arg(scored));
            },
            Qt::QueuedConnection);
    };
    const auto cancel = m_cancel;
    using Result = std::pair<std::shared_ptr<const core::SearchResult>, double>;
    runInBackground(
        m_pool, this,
        [scenario, options, calibration, cancel]() -> Result {
            // `calibration` and `cancel` are captured to outlive the search that points at them.
            QElapsedTimer timer;
            timer.start();
            auto result = std::make_shared<const core::SearchResult>(core::searchConfigurations(scenario, options));
            return { std::move(result), static_cast<double>(timer.elapsed()) / 1000.0 };
        },
        [this, generation, key, calibration](Result r) {
            if (generation != m_generation) {
                ++m_droppedResults; // a newer search superseded this one
                return;
            }
            m_resultKey = key;
            m_resultCalibration = calibration.get();
            searchFinished(generation, std::move(r.first), r.second);
        });
}

void RecommendationsTab::cancelSearch()
{
    if (!m_searching || !m_cancel)
        return;
    m_cancel->store(true);
    m_status->setFullText(tr("Cancelling…"));
    m_cancelButton->setEnabled(false);
}

void RecommendationsTab::searchFinished(
    std::uint64_t generation, std::shared_ptr<const core::SearchResult> result, double seconds)
{
    m_searching = false;
    m_resultGeneration = generation;
    m_result = std::move(result);
    m_candidates->setResult(m_result);
    m_rejected->setResult(m_result);
    m_progress->setValue(m_result->cancelled ? m_progress->value() : kProgressSteps);
    const auto& st = m_result->stats;
    if (m_result->cancelled)
        m_status->setFullText(tr("Cancelled after %1 s: showing what was found so far").arg(seconds, 0, 'f', 1));
    else
        m_status->setFullText(tr("%1 valid · %2 scored · %3 simulated · %4 s")
                                  .arg(st.enumerated)
                                  .arg(st.scored)
                                  .arg(st.simulated)
                                  .arg(seconds, 0, 'f', 1));
    m_candidateTable->clearSelection();
    if (m_candidates->rowCount() > 0)
        m_candidateTable->selectRow(0);
    showDetails(); // never the previous run's candidate
    updateStale();
    showSummary();
    updateButtons();
}

void RecommendationsTab::showSummary()
{
    const core::SearchResult& r = *m_result;
    if (!r.error.empty()) {
        m_summary->setText(QStringLiteral("<span style='color:%1'>%2</span>")
                               .arg(theme::problemColor().name(), QString::fromStdString(r.error).toHtmlEscaped()));
        return;
    }
    QString text;
    if (r.cancelled) {
        // A cancelled search has not looked at everything: it must not claim that nothing fits.
        text = tr("<b>Search cancelled</b> after %1 configurations scored and %2 simulated.")
                   .arg(r.stats.scored)
                   .arg(r.stats.simulated);
        if (r.candidates.empty())
            text += QStringLiteral(" ") + tr("No candidate had been ranked yet; search again and let it finish.");
        else
            text += QStringLiteral(" ")
                + tr("Best found so far: %1, step %2 (not the whole space; search again for the full ranking).")
                      .arg(QString::fromStdString(core::describe(r.candidates.front().point)).toHtmlEscaped(),
                          format::seconds(r.candidates.front().report.stepTimeSeconds));
    } else if (r.candidates.empty()) {
        text = tr("<b>No configuration fits</b> in %1 HBM.").arg(format::bytes(r.hbmBytes));
        if (r.leanest)
            text += QStringLiteral(" ")
                + tr("The leanest, %1, needs %2 per GPU.")
                      .arg(QString::fromStdString(core::describe(*r.leanest)).toHtmlEscaped(),
                          format::bytes(r.leanestPeakBytes));
    } else {
        const core::Candidate& best = r.candidates.front();
        text = tr("<b>Best: %1</b> — step %2, MFU %3, peak %4 of %5.")
                   .arg(QString::fromStdString(core::describe(best.point)).toHtmlEscaped(),
                       format::seconds(best.report.stepTimeSeconds), format::percent(best.report.mfu),
                       format::bytes(best.report.peakMemoryBytes), format::bytes(r.hbmBytes));
        if (r.baseline && r.baselineReason)
            text += QStringLiteral("<br>")
                + tr("This scenario's configuration: step %1. %2")
                      .arg(format::seconds(r.baseline->stepTimeSeconds),
                          QString::fromStdString(r.baselineReason->text).toHtmlEscaped());
        else if (r.baseline)
            text += QStringLiteral("<br>") + tr("This scenario's configuration is the best one found.");
    }
    if (m_resultCalibration)
        text += QStringLiteral("<br>") + tr("Ranked with the probe calibration.");
    m_summary->setText(text);
}

void RecommendationsTab::updateStale()
{
    const bool stale
        = m_result && (searchKey() != m_resultKey || m_document->calibration().get() != m_resultCalibration);
    if (stale == m_stale)
        return;
    m_stale = stale;
    m_staleBanner->setVisible(stale);
    updateButtons();
}

void RecommendationsTab::showDetails()
{
    const core::Candidate* c = m_candidates->candidate(selectedRow());
    if (!c) {
        m_details->clear();
        return;
    }
    QString text = QStringLiteral("<b>%1</b>").arg(QString::fromStdString(core::describe(c->point)).toHtmlEscaped());
    for (const core::Reason& r : c->reasons)
        text += QStringLiteral("<br>• ") + QString::fromStdString(r.text).toHtmlEscaped();
    m_details->setText(text);
}

int RecommendationsTab::selectedRow() const
{
    const QModelIndexList rows = m_candidateTable->selectionModel()->selectedRows();
    if (rows.isEmpty())
        return -1;
    const auto* proxy = static_cast<const QSortFilterProxyModel*>(m_candidateTable->model());
    return proxy->mapToSource(rows.front()).row();
}

void RecommendationsTab::updateButtons()
{
    m_searchButton->setEnabled(!m_searching);
    m_cancelButton->setEnabled(m_searching);
    m_progress->setVisible(m_searching || m_result);
    m_applyButton->setEnabled(!m_searching && !m_stale && m_candidates->candidate(selectedRow()));
    m_copyButton->setEnabled(!m_searching && !m_stale && m_candidates->candidate(selectedRow()));
    m_applyButton->setToolTip(m_stale ? tr("The result is stale: search again first")
                                      : tr("Set the parallelism panels to the selected candidate (one undoable step)"));
}

bool RecommendationsTab::applyCandidate(int row)
{
    const core::Candidate* c = m_candidates->candidate(row);
    if (!c || m_stale || m_searching)
        return false;
    const core::SearchPoint point = c->point;
    m_document->edit(tr("Apply recommendation %1").arg(QString::fromStdString(core::describe(point))),
        [point](core::Scenario& s) { s = core::applyPoint(s, point); });
    return true;
}

QString RecommendationsTab::candidateMegatronFlags(int row) const
{
    const core::Candidate* c = m_candidates->candidate(row);
    if (!c)
        return {};
    return QString::fromStdString(
        core::MegatronArgsWriter::flagsOnly(core::applyPoint(m_document->scenario(), c->point)));
}

bool RecommendationsTab::copyCandidateFlags(int row)
{
    if (m_stale || m_searching)
        return false;
    const QString flags = candidateMegatronFlags(row);
    if (flags.isEmpty())
        return false;
    QGuiApplication::clipboard()->setText(flags);
    m_status->setFullText(tr("Copied the Megatron-LM flags of candidate %1").arg(row + 1));
    return true;
}

} // namespace parallax::ui
