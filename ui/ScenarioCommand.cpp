// SPDX-License-Identifier: Apache-2.0
#include "ui/ScenarioCommand.h"

#include "ui/ScenarioDocument.h"

namespace parallax::ui {

namespace {
constexpr qint64 kMergeWindowMs = 2000; // a pause longer than this starts a new undo step
}

ScenarioCommand::ScenarioCommand(ScenarioDocument* document, core::Scenario before, core::Scenario after,
    const QString& text, const QString& mergeKey)
    : QUndoCommand(text)
    , m_document(document)
    , m_before(std::move(before))
    , m_after(std::move(after))
    , m_mergeKey(mergeKey)
{
    m_lastChange.start();
}

void ScenarioCommand::undo()
{
    m_document->applyScenario(m_before);
}

void ScenarioCommand::redo()
{
    m_document->applyScenario(m_after);
}

bool ScenarioCommand::mergeWith(const QUndoCommand* other)
{
    const auto* next = static_cast<const ScenarioCommand*>(other);
    if (m_mergeKey.isEmpty() || next->m_mergeKey != m_mergeKey || m_lastChange.elapsed() > kMergeWindowMs)
        return false;
    m_after = next->m_after;
    m_lastChange.restart();
    return true;
}

} // namespace parallax::ui
