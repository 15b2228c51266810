// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "ui/Evaluation.h"

#include <QWidget>

class QLabel;

namespace parallax::ui {

// One GPU in full, for the rank map and the topology editor: its rank and coordinates, every
// parallel group it belongs to with the group's members and the links they use (NVLink inside
// one domain, InfiniBand across), the memory it holds, and its busy and idle time in the
// simulated schedule. Plain data from the Evaluation; nothing is computed here.
class GpuDetailPanel : public QWidget {
public:
    explicit GpuDetailPanel(QWidget* parent = nullptr);

    void setEvaluation(EvaluationPtr evaluation); // keeps the GPU shown when it still exists
    void showGpu(int gpu); // -1 clears
    int gpu() const { return m_gpu; }
    QString plainText() const; // what the panel says, without markup (tests, copy)

    // "512–519", "0, 8, 16, … 56 (8 ranks)": a group's members in a line.
    static QString rankList(const std::vector<int>& ranks);

private:
    void refresh();

    EvaluationPtr m_evaluation;
    int m_gpu = -1;
    QLabel* m_text;
};

} // namespace parallax::ui
