// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/Scenario.h"
#include "core/search/DecisionMatrix.h"

#include <QDialog>
#include <QThreadPool>
#include <atomic>
#include <functional>
#include <memory>

class QComboBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace parallax::core {
struct Calibration;
}

namespace parallax::ui {

// Tools > Decision Matrix: the guide's summary table (shared/guide, sec. 5) filled by the engine, as
// `parallax-cli matrix` prints it, for the models, GPU counts and cluster the user picks: each cell is the
// best configuration of a full search (its step time, MFU and peak memory) or, where nothing fits, the
// smallest change that does. The search runs off the UI thread with progress and can be cancelled; a cell
// opens as a scenario, and the table copies as Markdown for a review.
class DecisionMatrixDialog : public QDialog {
public:
    using OpenScenario = std::function<void(const core::Scenario&)>;
    // The probe calibration a fill uses (null: datasheet numbers), asked at each fill: the document's now.
    using CurrentCalibration = std::function<std::shared_ptr<const core::Calibration>()>;

    DecisionMatrixDialog(CurrentCalibration calibration, OpenScenario open, QWidget* parent = nullptr);

    // The settings the fields give; `error` names the field that keeps them from being filled.
    core::DecisionMatrixSettings settings(QString* error = nullptr) const;
    void setSettings(const core::DecisionMatrixSettings& settings);
    void fill(); // starts the search (Fill); a running one is cancelled first
    void cancel();
    bool running() const { return m_running; }
    // The last filled matrix (partial when cancelled); null before the first fill ends.
    const core::DecisionMatrix* matrix() const { return m_matrix.get(); }
    QTableWidget* table() const { return m_table; }
    QString status() const;
    QString markdown() const; // the table as Markdown (Copy as Markdown)
    bool openCell(int row, int column); // false when that cell has no recommendation

private:
    void gpuChanged();
    void showMatrix(std::shared_ptr<const core::DecisionMatrix> matrix, bool cancelled);
    const core::DecisionMatrixCell* cellAt(int row, int column) const;
    void updateButtons();

    CurrentCalibration m_calibration;
    OpenScenario m_open;
    QComboBox* m_gpu;
    QSpinBox* m_gpusPerNode;
    QLineEdit* m_gpuCounts;
    QListWidget* m_models;
    QSpinBox* m_globalBatch;
    QSpinBox* m_seqLen;
    QComboBox* m_dtype;
    QPushButton* m_fill;
    QPushButton* m_cancel;
    QPushButton* m_copy;
    QPushButton* m_openButton;
    QProgressBar* m_progress;
    QLabel* m_status;
    QTableWidget* m_table;
    std::shared_ptr<const core::DecisionMatrix> m_matrix;
    std::shared_ptr<std::atomic<bool>> m_cancelFlag;
    std::uint64_t m_generation = 0;
    bool m_running = false;
    QThreadPool m_pool; // last: waits for a running fill
};

} // namespace parallax::ui
