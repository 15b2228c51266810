// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "ui/Evaluation.h"

#include <QThreadPool>
#include <functional>
#include <optional>

class QObject;

namespace parallax::ui {

// Runs core::evaluate off the UI thread. At most one evaluation runs at a time; submitting while
// one runs replaces the pending scenario (only the newest edit is worth computing), and a result
// whose generation is older than the newest submission is dropped. All public calls and the
// callback happen on the thread of `context`.
class EngineRunner {
public:
    using Callback = std::function<void(EvaluationPtr)>;
    EngineRunner(QObject* context, Callback onResult);
    ~EngineRunner(); // waits for the running evaluation
    EngineRunner(const EngineRunner&) = delete;
    EngineRunner& operator=(const EngineRunner&) = delete;

    std::uint64_t submit(core::Scenario scenario);
    // Measurements used in place of datasheet numbers by the runs submitted from now on (null: none).
    void setCalibration(std::shared_ptr<const core::Calibration> calibration)
    {
        m_calibration = std::move(calibration);
    }
    const std::shared_ptr<const core::Calibration>& calibration() const { return m_calibration; }
    std::uint64_t latestGeneration() const { return m_generation; }
    bool busy() const { return m_running; }

private:
    struct Job {
        std::uint64_t generation = 0;
        core::Scenario scenario;
        std::shared_ptr<const core::Calibration> calibration;
    };
    void start(Job job);
    void finished(EvaluationPtr evaluation);

    QObject* m_context;
    Callback m_onResult;
    QThreadPool m_pool;
    std::uint64_t m_generation = 0;
    bool m_running = false;
    std::optional<Job> m_pending;
    std::shared_ptr<const core::Calibration> m_calibration;
};

} // namespace parallax::ui
