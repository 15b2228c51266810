// SPDX-License-Identifier: Apache-2.0
// The Recommendations tab: the search runs off the UI thread with progress and Cancel, lists
// candidates and rejected families, applies a candidate as one undo step, and marks a result stale
// when the scenario's model, cluster or batch changed.
#include "TestSupport.h"

#include "core/search/SearchSpace.h"
#include "ui/CandidateModel.h"
#include "ui/ElidedLabel.h"
#include "ui/RecommendationsTab.h"
#include "ui/RejectedFamilyModel.h"

#include <QAbstractItemModelTester>
#include <QCheckBox>
#include <QElapsedTimer>
#include <QHeaderView>
#include <QTabWidget>
#include <QTableView>
#include <QUndoStack>

using namespace parallax;
using namespace parallax::ui;

namespace {
// Llama 3 8B on one HGX node of H100: a search of a few hundred configurations.
core::Scenario smallSearch()
{
    return test::smallClusterWith(1, 8, 8, "llama3-8b", 32);
}

core::SearchOptions quickOptions()
{
    core::SearchOptions o;
    o.topK = 5;
    o.threads = 2;
    o.limits.maxMicroBatch = 2;
    o.limits.maxVirtualStages = 2;
    return o;
}
} // namespace

class RecommendationsTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { test::initApplication(); }

    void searchOnASmallTopologyCompletesAndAppliesAsOneUndoStep()
    {
        test::Window w;
        w.load(smallSearch());
        RecommendationsTab* tab = w.window.recommendationsTab();
        QAbstractItemModelTester candidatesTester(
            tab->candidateModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester rejectedTester(
            tab->rejectedModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        tab->setSearchOptions(quickOptions());
        tab->startSearch();
        QVERIFY(tab->isSearching()); // the UI thread is free while it runs
        QTRY_VERIFY_WITH_TIMEOUT(!tab->isSearching(), 120000);
        const core::SearchResult* r = tab->result();
        QVERIFY(r);
        QVERIFY2(r->error.empty(), r->error.c_str());
        QVERIFY(!r->cancelled);
        QCOMPARE(tab->progress(), 1.0);
        QVERIFY(tab->candidateModel()->rowCount() > 0);
        QCOMPARE(tab->candidateModel()->rowCount(), static_cast<int>(r->candidates.size()));
        QCOMPARE(tab->rejectedModel()->rowCount(), static_cast<int>(r->rejected.size()));
        QVERIFY(tab->rejectedModel()->rowCount() > 0);
        // Ranked by step time; every candidate fits.
        for (int row = 1; row < tab->candidateModel()->rowCount(); ++row)
            QVERIFY(tab->candidateModel()->candidate(row - 1)->report.stepTimeSeconds
                <= tab->candidateModel()->candidate(row)->report.stepTimeSeconds);
        const QModelIndex fits = tab->candidateModel()->index(0, CandidateModel::Fits);
        QVERIFY(tab->candidateModel()->data(fits).toString().startsWith(QStringLiteral("yes")));
        const QModelIndex why = tab->rejectedModel()->index(0, RejectedFamilyModel::Reason);
        QVERIFY(!tab->rejectedModel()->data(why).toString().isEmpty());
        QVERIFY(!tab->isStale());
        // The counts line is elided with "…" where the bar is narrow, never clipped mid-word ("99 s[imulated]"
        // read as 99 seconds), and the whole line is its tooltip.
        const auto* status = tab->findChild<ElidedLabel*>(QStringLiteral("searchStatus"));
        QVERIFY(status);
        QVERIFY(status->fullText().contains(QStringLiteral(" simulated · ")));
        QCOMPARE(status->toolTip(), status->fullText());
        const QString shown = status->text();
        QVERIFY2(shown == status->fullText()
                || (shown.endsWith(QChar(0x2026)) && status->fullText().startsWith(shown.chopped(1))),
            qPrintable(shown));

        // Apply: one undo step that sets the degrees; undo restores the scenario exactly.
        const QString before = test::serialized(w.doc()->scenario());
        const int steps = w.doc()->undoStack()->count();
        const core::SearchPoint best = tab->candidateModel()->candidate(0)->point;
        QVERIFY(tab->applyCandidate(0));
        QCOMPARE(w.doc()->undoStack()->count(), steps + 1);
        QVERIFY(core::pointOf(w.doc()->scenario()) == best);
        QVERIFY(!tab->isStale()); // the degrees are what the search varies, not its input
        QVERIFY(w.doc()->waitForEvaluation());
        QVERIFY(w.doc()->evaluation()->report.valid);
        w.doc()->undoStack()->undo();
        QCOMPARE(test::serialized(w.doc()->scenario()), before);
        QVERIFY(!tab->applyCandidate(99)); // no such row
    }

    // The CP communications box is the search's SearchLimits::includeCpCommTypes: on by default, set by the search
    // options, and a result searched with it on is stale once it is cleared (and fresh again when it is set back).
    // Applying a candidate of any CP communication leaves the result fresh: the type is what the search varies.
    void theCpCommunicationsBoxIsASearchOption()
    {
        test::Window w;
        core::Scenario s = smallSearch();
        s.training.seqLen = 32768;
        s.training.globalBatch = 16;
        w.load(s);
        RecommendationsTab* tab = w.window.recommendationsTab();
        auto* box = tab->findChild<QCheckBox*>(QStringLiteral("searchCpCommTypes"));
        QVERIFY(box);
        QVERIFY(box->isChecked());
        core::SearchOptions ringOnly = quickOptions();
        ringOnly.limits.includeCpCommTypes = false;
        tab->setSearchOptions(ringOnly);
        QVERIFY(!box->isChecked());
        box->setChecked(true);
        tab->startSearch();
        QTRY_VERIFY_WITH_TIMEOUT(!tab->isSearching(), 120000);
        QVERIFY(!tab->isStale());
        int row = -1;
        for (int k = 0; k < tab->candidateModel()->rowCount() && row < 0; ++k) {
            if (tab->candidateModel()->candidate(k)->point.cpComm != core::CpCommType::P2p)
                row = k;
        }
        QVERIFY2(row >= 0, "no candidate with Ulysses' all-to-all at 32K tokens");
        box->setChecked(false);
        QVERIFY(tab->isStale());
        box->setChecked(true);
        QVERIFY(!tab->isStale());
        const core::SearchPoint pick = tab->candidateModel()->candidate(row)->point;
        QVERIFY(tab->applyCandidate(row));
        QCOMPARE(w.doc()->scenario().parallel.cpCommType, pick.cpComm);
        QVERIFY(!tab->isStale());
    }

    // For a MoE model the search varies the token dispatcher: switching it in the panels leaves the result fresh,
    // and applying a candidate sets the candidate's dispatcher.
    void theDispatcherIsOneOfTheSearchedKnobs()
    {
        test::Window w;
        w.load(test::smallClusterWith(2, 8, 8, "mixtral-8x7b", 16));
        RecommendationsTab* tab = w.window.recommendationsTab();
        tab->setSearchOptions(quickOptions());
        tab->startSearch();
        QTRY_VERIFY_WITH_TIMEOUT(!tab->isSearching(), 120000);
        QVERIFY(tab->candidateModel()->rowCount() > 0);
        int row = -1;
        for (int k = 0; k < tab->candidateModel()->rowCount() && row < 0; ++k) {
            if (tab->candidateModel()->candidate(k)->point.ep > 1)
                row = k;
        }
        QVERIFY2(row >= 0, "no candidate with expert parallelism");
        const core::SearchPoint pick = tab->candidateModel()->candidate(row)->point;
        // The other dispatcher in the panels first: the result stays the answer.
        const core::MoeDispatcher other = pick.dispatcher == core::MoeDispatcher::DeepEp ? core::MoeDispatcher::AllToAll
                                                                                         : core::MoeDispatcher::DeepEp;
        w.doc()->edit(
            QStringLiteral("dispatcher"), [other](core::Scenario& sc) { sc.training.moeTokenDispatcher = other; });
        QVERIFY(!tab->isStale());
        QVERIFY(tab->applyCandidate(row));
        QCOMPARE(w.doc()->scenario().training.moeTokenDispatcher, pick.dispatcher);
        QVERIFY(core::pointOf(w.doc()->scenario()) == pick);
        QVERIFY(!tab->isStale());
    }

    // Nothing fits a 1T MoE on one node: one leanest configuration is the best of many families and its label
    // names them all. The family column stays narrow (eliding, the tooltip has the label) and the reasons stay
    // in view.
    void theReasonsStayInViewWhenAFamilyLabelIsLong()
    {
        test::Window w;
        w.load(test::smallClusterWith(1, 8, 8, "moe-1t", 16));
        RecommendationsTab* tab = w.window.recommendationsTab();
        w.window.tabs()->setCurrentWidget(tab);
        core::SearchOptions options; // the whole space: every family's leanest member is the same configuration
        options.threads = 2;
        tab->setSearchOptions(options);
        tab->startSearch();
        QTRY_VERIFY_WITH_TIMEOUT(!tab->isSearching(), 120000);
        QVERIFY(tab->result() && tab->result()->candidates.empty());
        const RejectedFamilyModel* model = tab->rejectedModel();
        int longest = 0;
        for (int row = 1; row < model->rowCount(); ++row) {
            if (model->family(row)->family.size() > model->family(longest)->family.size())
                longest = row;
        }
        const QString label = QString::fromStdString(model->family(longest)->family);
        QVERIFY2(label.count(QStringLiteral(" / ")) >= 3, qPrintable(label));
        QVERIFY(model->data(model->index(longest, RejectedFamilyModel::Family), Qt::ToolTipRole)
                    .toString()
                    .startsWith(label));
        // At the screenshots' window size the reasons keep at least 200 px of the view; at 1024 px wide (the docks
        // keep their widths) they still start inside it.
        const auto* table = tab->findChild<QTableView*>(QStringLiteral("rejectedTable"));
        QVERIFY(table);
        const QHeaderView* header = table->horizontalHeader();
        for (const int width : { 1400, 1024 }) {
            w.window.resize(width, 900);
            QCoreApplication::processEvents();
            const int at = header->sectionViewportPosition(RejectedFamilyModel::Reason);
            const int room = width == 1400 ? 200 : 1;
            QVERIFY2(at >= 0 && table->viewport()->width() - at >= room,
                qPrintable(QStringLiteral("at %1 px the reasons start at %2 of %3 px")
                               .arg(width)
                               .arg(at)
                               .arg(table->viewport()->width())));
            QVERIFY(header->sectionSize(RejectedFamilyModel::Family) < table->fontMetrics().horizontalAdvance(label));
        }
    }

    void aStaleResultIsMarkedAndNotApplied()
    {
        test::Window w;
        w.load(smallSearch());
        RecommendationsTab* tab = w.window.recommendationsTab();
        tab->setSearchOptions(quickOptions());
        tab->startSearch();
        QTRY_VERIFY_WITH_TIMEOUT(!tab->isSearching(), 120000);
        QVERIFY(tab->candidateModel()->rowCount() > 0);
        // A larger global batch is another search question.
        w.doc()->edit(QStringLiteral("batch"), [](core::Scenario& s) { s.training.globalBatch = 64; });
        QVERIFY(tab->isStale());
        const int steps = w.doc()->undoStack()->count();
        QVERIFY(!tab->applyCandidate(0));
        QCOMPARE(w.doc()->undoStack()->count(), steps);
        w.doc()->undoStack()->undo(); // back to the searched scenario: fresh again
        QVERIFY(!tab->isStale());
    }

    // Auto-refresh: an edit starts a new search by itself after the debounce, and the tab then
    // shows the answer to the edited scenario, the same winner a search of it finds directly.
    void anEditRefreshesTheRecommendationByItself()
    {
        test::Window w;
        RecommendationsTab* tab = w.window.recommendationsTab();
        QVERIFY(tab->autoRefresh());
        tab->setSearchOptions(quickOptions());
        w.load(smallSearch()); // loading is an edit too
        QTRY_VERIFY_WITH_TIMEOUT(tab->resultGeneration() > 0 && !tab->isSearching() && !tab->refreshPending(), 120000);
        const std::uint64_t before = tab->resultGeneration();
        w.doc()->edit(QStringLiteral("batch"), [](core::Scenario& s) { s.training.globalBatch = 64; });
        QVERIFY(tab->isStale());
        QVERIFY(tab->refreshPending());
        QTRY_VERIFY_WITH_TIMEOUT(tab->resultGeneration() > before && !tab->isSearching(), 120000);
        QVERIFY(!tab->isStale());
        QVERIFY(tab->candidateModel()->rowCount() > 0);
        core::SearchOptions o = quickOptions();
        const core::SearchResult direct = core::searchConfigurations(w.doc()->scenario(), o);
        QVERIFY(!direct.candidates.empty());
        QVERIFY(tab->candidateModel()->candidate(0)->point == direct.candidates.front().point);
        QVERIFY(direct.baseline && tab->result()->baseline);
        QCOMPARE(tab->result()->baseline->stepTimeSeconds, direct.baseline->stepTimeSeconds);
    }

    // A search superseded by an edit is cancelled and its result, when it arrives, is dropped: the
    // tab shows only the answer to the latest scenario.
    void aSupersededResultIsDropped()
    {
        test::Window w;
        RecommendationsTab* tab = w.window.recommendationsTab();
        tab->setSearchOptions(quickOptions());
        w.load(smallSearch());
        QTRY_VERIFY_WITH_TIMEOUT(tab->resultGeneration() > 0 && !tab->isSearching() && !tab->refreshPending(), 120000);
        const int dropped = tab->droppedResults();
        tab->startSearch(); // answers global batch 32
        QVERIFY(tab->isSearching());
        const std::uint64_t superseded = tab->resultGeneration() + 1;
        w.doc()->edit(QStringLiteral("batch"), [](core::Scenario& s) { s.training.globalBatch = 64; });
        QTRY_COMPARE_WITH_TIMEOUT(tab->droppedResults(), dropped + 1, 120000);
        QTRY_VERIFY_WITH_TIMEOUT(tab->resultGeneration() > superseded && !tab->isSearching(), 120000);
        QVERIFY(!tab->isStale());
        QVERIFY(!tab->result()->cancelled);
        const core::SearchResult direct = core::searchConfigurations(w.doc()->scenario(), quickOptions());
        QVERIFY(tab->candidateModel()->candidate(0)->point == direct.candidates.front().point);
        QCOMPARE(tab->droppedResults(), dropped + 1); // nothing else was superseded
    }

    void cancelStopsALongSearch()
    {
        test::Window w;
        w.load(test::presetScenario("llama3-405b-16kxh100")); // 115k configurations: seconds of work
        RecommendationsTab* tab = w.window.recommendationsTab();
        tab->startSearch();
        QVERIFY(tab->isSearching());
        QTRY_VERIFY_WITH_TIMEOUT(tab->progress() > 0, 20000); // under way, progress reported
        QElapsedTimer timer;
        timer.start();
        tab->cancelSearch();
        QTRY_VERIFY_WITH_TIMEOUT(!tab->isSearching(), 30000);
        qInfo("search stopped %lld ms after Cancel", timer.elapsed());
        QVERIFY(tab->result());
        QVERIFY(tab->result()->cancelled);
        QVERIFY(timer.elapsed() < 10000);
        // A new search after a cancelled one starts clean.
        w.load(smallSearch());
        tab->setSearchOptions(quickOptions());
        tab->startSearch();
        QTRY_VERIFY_WITH_TIMEOUT(!tab->isSearching(), 120000);
        QVERIFY(!tab->result()->cancelled);
    }
};

QTEST_MAIN(RecommendationsTest)
#include "tst_recommendations.moc"
