// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/search/ConfigSearch.h"

#include <QThreadPool>
#include <QWidget>
#include <atomic>
#include <memory>

class QCheckBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QTableView;
class QTimer;

namespace parallax::ui {

class CandidateModel;
class ElidedLabel;
class RejectedFamilyModel;
class ScenarioDocument;

// The Recommendations tab: searches every valid configuration of the scenario's model, cluster and
// batch (core::searchConfigurations) off the UI thread with a progress bar and Cancel, lists the
// ranked candidates and why each family of alternatives loses, and applies a candidate to the
// scenario as one undoable edit. A result whose inputs have changed since is marked stale and is
// not applied. With auto-refresh (the default) every edit of the scenario starts a new search after
// a short debounce, cancelling the running one; a result of an older generation is dropped.
class RecommendationsTab : public QWidget {
public:
    explicit RecommendationsTab(ScenarioDocument* document, QWidget* parent = nullptr);
    ~RecommendationsTab() override;

    void startSearch();
    void cancelSearch();
    bool isSearching() const { return m_searching; }
    bool isStale() const { return m_stale; }
    // Applies the candidate at `row` of the candidate model (one undo step); false when there is
    // none or the result is stale.
    bool applyCandidate(int row);
    // The Megatron-LM flags that run the candidate at `row` on this scenario (empty when there is
    // none); copyCandidateFlags puts them on the clipboard.
    QString candidateMegatronFlags(int row) const;
    bool copyCandidateFlags(int row);

    const core::SearchResult* result() const { return m_result.get(); }
    CandidateModel* candidateModel() const { return m_candidates; }
    RejectedFamilyModel* rejectedModel() const { return m_rejected; }
    // Tests narrow the search (limits); the progress callback and cancel flag are set here.
    void setSearchOptions(const core::SearchOptions& options);
    double progress() const; // 0..1 of the running search

    // Search again by itself after each edit (debounced by refreshDelayMs()).
    void setAutoRefresh(bool on);
    bool autoRefresh() const { return m_autoRefresh; }
    static constexpr int refreshDelayMs() { return 30; }
    bool refreshPending() const;
    // Results of superseded searches that arrived and were dropped, since construction.
    int droppedResults() const { return m_droppedResults; }
    // Generation of the search the shown result answers (0: none yet).
    std::uint64_t resultGeneration() const { return m_resultGeneration; }

private:
    void searchFinished(std::uint64_t generation, std::shared_ptr<const core::SearchResult> result, double seconds);
    void updateStale();
    void updateButtons();
    void showSummary();
    int selectedRow() const;
    void showDetails();
    QString searchKey() const;
    QString refreshKey() const; // the whole scenario: the baseline is the current design
    void scheduleRefresh();
    void refreshNow();

    ScenarioDocument* m_document;
    core::SearchOptions m_options;
    QPushButton* m_searchButton;
    QPushButton* m_cancelButton;
    QCheckBox* m_cpCommTypes; // SearchLimits::includeCpCommTypes
    QPushButton* m_applyButton;
    QPushButton* m_copyButton;
    QProgressBar* m_progress;
    ElidedLabel* m_status;
    QLabel* m_staleBanner;
    QLabel* m_summary;
    QLabel* m_details; // the selected candidate's reasons in full
    QTableView* m_candidateTable;
    QTableView* m_rejectedTable;
    CandidateModel* m_candidates;
    RejectedFamilyModel* m_rejected;
    std::shared_ptr<const core::SearchResult> m_result;
    QString m_resultKey; // searchKey() of the scenario the result answers
    const void* m_resultCalibration = nullptr;
    std::shared_ptr<std::atomic<bool>> m_cancel;
    QTimer* m_refreshTimer;
    QString m_refreshKey; // refreshKey() of the last search started
    bool m_autoRefresh = true;
    int m_droppedResults = 0;
    std::uint64_t m_resultGeneration = 0;
    std::uint64_t m_generation = 0;
    bool m_searching = false;
    bool m_stale = false;
    QThreadPool m_pool; // last: waits for a running search
};

} // namespace parallax::ui
