// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/Scenario.h"

#include <QElapsedTimer>
#include <QString>
#include <QUndoCommand>

namespace parallax::ui {

class ScenarioDocument;

// One edit of the scenario as a before/after pair (Qt's undoframework). A scenario is small (a
// 1024-GPU cluster is ~130 domains), so snapshots are cheaper and safer than inverse operations.
// Consecutive edits of the same field (`mergeKey`, e.g. "parallel.tp" while a spin box steps)
// within a short pause merge into one undo step.
class ScenarioCommand : public QUndoCommand {
public:
    enum { Id = 0x5041 };
    ScenarioCommand(ScenarioDocument* document, core::Scenario before, core::Scenario after, const QString& text,
        const QString& mergeKey = {});

    void undo() override;
    void redo() override;
    int id() const override { return m_mergeKey.isEmpty() ? -1 : Id; }
    bool mergeWith(const QUndoCommand* other) override;

    const QString& mergeKey() const { return m_mergeKey; }

private:
    ScenarioDocument* m_document;
    core::Scenario m_before;
    core::Scenario m_after;
    QString m_mergeKey;
    QElapsedTimer m_lastChange;
};

} // namespace parallax::ui
