// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QMetaObject>
#include <QObject>
#include <QThreadPool>
#include <memory>
#include <type_traits>
#include <utility>

namespace parallax::ui {

// Runs `work` on `pool` (off the UI thread) and hands its result to `done` on the thread of
// `context`, queued. The owner keeps the pool as its last member, so that its destruction waits
// for running work; a result posted to a context being destroyed is discarded by Qt.
template <class Work, class Done> void runInBackground(QThreadPool& pool, QObject* context, Work work, Done done)
{
    using Result = std::invoke_result_t<Work&>;
    pool.start([context, work = std::move(work), done = std::move(done)]() mutable {
        auto result = std::make_shared<Result>(work());
        QMetaObject::invokeMethod(
            context, [done, result]() mutable { done(std::move(*result)); }, Qt::QueuedConnection);
    });
}

} // namespace parallax::ui
