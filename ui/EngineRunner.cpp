// SPDX-License-Identifier: Apache-2.0
#include "ui/EngineRunner.h"

#include "core/Engine.h"
#include "core/calibration/Calibration.h"

#include <QElapsedTimer>
#include <QMetaObject>
#include <exception>

namespace parallax::ui {

EngineRunner::EngineRunner(QObject* context, Callback onResult)
    : m_context(context)
    , m_onResult(std::move(onResult))
{
    m_pool.setMaxThreadCount(1);
    m_pool.setObjectName(QStringLiteral("parallax-engine"));
}

EngineRunner::~EngineRunner()
{
    m_pending.reset();
    m_pool.waitForDone();
}

std::uint64_t EngineRunner::submit(core::Scenario scenario)
{
    Job job { ++m_generation, std::move(scenario), m_calibration };
    if (m_running)
        m_pending = std::move(job);
    else
        start(std::move(job));
    return m_generation;
}

void EngineRunner::start(Job job)
{
    m_running = true;
    auto shared = std::make_shared<Job>(std::move(job));
    m_pool.start([this, shared] {
        auto evaluation = std::make_shared<Evaluation>();
        evaluation->generation = shared->generation;
        QElapsedTimer timer;
        timer.start();
        try {
            core::EvaluateOptions options;
            options.calibration = shared->calibration.get();
            evaluation->calibration = shared->calibration;
            evaluation->report = core::evaluate(shared->scenario, options);
            // The engine stops at validation errors; the rank map is pure mapping, so the views still
            // get it when the degrees fill the cluster (say, while only the batch size is wrong).
            core::Report& r = evaluation->report;
            const auto& p = shared->scenario.parallel;
            if (!r.valid && r.rankMap.worldSize() == 0 && p.tp > 0 && p.cp > 0 && p.pp > 0 && p.dp > 0
                && static_cast<long long>(p.tp) * p.cp * p.pp * p.dp == shared->scenario.topology.gpuCount()) {
                r.rankMap = core::RankMap::build(p, &shared->scenario.topology);
                for (int d = 0; d < core::kDimCount; ++d)
                    r.groupsCrossingDomains[static_cast<std::size_t>(d)]
                        = r.rankMap.groupsCrossingDomains(static_cast<core::Dim>(d));
            }
        } catch (const std::exception& e) {
            // The engine reports bad input as messages; an exception is a bug, shown rather than fatal.
            evaluation->report = {};
            evaluation->report.errors.push_back({ {}, std::string("internal engine error: ") + e.what() });
        }
        evaluation->elapsedMilliseconds = static_cast<double>(timer.nsecsElapsed()) / 1e6;
        evaluation->scenario = std::move(shared->scenario);
        EvaluationPtr result = std::move(evaluation);
        // Queued to the context's thread; if the context dies first, Qt discards the call.
        QMetaObject::invokeMethod(
            m_context, [this, result] { finished(result); }, Qt::QueuedConnection);
    });
}

void EngineRunner::finished(EvaluationPtr evaluation)
{
    m_running = false;
    if (m_pending) {
        Job next = std::move(*m_pending);
        m_pending.reset();
        start(std::move(next));
    }
    if (evaluation->generation == m_generation)
        m_onResult(std::move(evaluation));
}

} // namespace parallax::ui
