// SPDX-License-Identifier: Apache-2.0
// QAbstractItemModelTester on every item model of the UI, over every scenario preset and over
// edits that change the row count; plus the numbers they expose against the report.
#include "TestSupport.h"

#include "ui/EngineRunner.h"
#include "ui/MessageModel.h"
#include "ui/ScheduleRankModel.h"
#include "ui/StageMemoryModel.h"

#include "core/Engine.h"

#include <QAbstractItemModelTester>

using namespace parallax;
using namespace parallax::ui;

namespace {
EvaluationPtr evaluated(core::Scenario s)
{
    auto e = std::make_shared<Evaluation>();
    e->generation = 1;
    e->report = core::evaluate(s);
    e->scenario = std::move(s);
    return e;
}
} // namespace

class ModelsTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { test::initApplication(); }

    void modelsPassTheTester_data()
    {
        QTest::addColumn<QString>("preset");
        for (const auto& p : core::PresetLibrary::instance().scenarios())
            QTest::newRow(p.id.c_str()) << QString::fromStdString(p.id);
    }

    void modelsPassTheTester()
    {
        QFETCH(QString, preset);
        StageMemoryModel memory;
        ScheduleRankModel schedule;
        MessageModel messages;
        QAbstractItemModelTester t1(&memory, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester t2(&schedule, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester t3(&messages, QAbstractItemModelTester::FailureReportingMode::QtTest);

        core::Scenario s = test::presetScenario(preset.toStdString());
        const EvaluationPtr e = evaluated(s);
        memory.setEvaluation(e);
        schedule.setEvaluation(e);
        messages.setEvaluation(e);
        const auto& r = e->report;
        QCOMPARE(memory.rowCount(), static_cast<int>(r.stages.size()));
        QCOMPARE(schedule.rowCount(), static_cast<int>(r.schedule.busySecondsPerRank.size()));
        QCOMPARE(messages.rowCount(), static_cast<int>(r.errors.size() + r.warnings.size() + r.notes.size()));
        for (int row = 0; row < memory.rowCount(); ++row) {
            const auto& st = r.stages[static_cast<std::size_t>(row)];
            QCOMPARE(memory.index(row, StageMemoryModel::Total).data(StageMemoryModel::BytesRole).toDouble(),
                st.totalBytes());
            QCOMPARE(memory.index(row, StageMemoryModel::Weights).data(StageMemoryModel::BytesRole).toDouble(),
                st.weightsBytes);
            QVERIFY(memory.index(row, StageMemoryModel::Total).data().toString().endsWith(QLatin1String("iB")));
            QCOMPARE(memory.index(row, StageMemoryModel::Total).data(StageMemoryModel::OverCapacityRole).toBool(),
                st.totalBytes() > r.hbmBytes);
        }
        for (int row = 0; row < schedule.rowCount(); ++row) {
            QCOMPARE(schedule.index(row, ScheduleRankModel::Bubble).data(ScheduleRankModel::ValueRole).toDouble(),
                r.schedule.bubbleFractionPerRank[static_cast<std::size_t>(row)]);
            if (!r.schedule.ops.empty())
                QVERIFY(schedule.index(row, ScheduleRankModel::Ops).data(ScheduleRankModel::ValueRole).toInt() > 0);
        }

        // An invalid configuration empties the tables (resets are checked by the testers).
        s.parallel.tp = 3;
        const EvaluationPtr invalid = evaluated(s);
        memory.setEvaluation(invalid);
        schedule.setEvaluation(invalid);
        messages.setEvaluation(invalid);
        QCOMPARE(memory.rowCount(), 0);
        QVERIFY(messages.count(MessageModel::Error) > 0);
        QCOMPARE(messages.index(0, MessageModel::Message).data(MessageModel::SeverityRole).toInt(),
            int(MessageModel::Error));
        memory.setEvaluation(nullptr);
        schedule.setEvaluation(nullptr);
        messages.setEvaluation(nullptr);
        QCOMPARE(messages.rowCount(), 0);
    }

    // A newer submission supersedes an older result: only the newest generation reaches the views.
    void engineRunnerDeliversOnlyTheNewestResult()
    {
        QObject context;
        std::vector<std::uint64_t> delivered;
        EngineRunner runner(&context, [&](EvaluationPtr e) { delivered.push_back(e->generation); });
        core::Scenario s = test::presetScenario("guide-70b-1024xh100");
        for (int i = 0; i < 5; ++i) {
            s.training.globalBatch = 512 + 16 * i;
            runner.submit(s);
        }
        QCOMPARE(runner.latestGeneration(), std::uint64_t(5));
        QTRY_VERIFY_WITH_TIMEOUT(!delivered.empty() && !runner.busy(), 30000);
        QCOMPARE(delivered, (std::vector<std::uint64_t> { 5 }));
        QTest::qWait(50);
        QCOMPARE(delivered.size(), std::size_t(1));
    }

    void modelsOfTheWindowPassTheTester()
    {
        test::Window w;
        w.load(test::presetScenario());
        const QList<QAbstractItemModel*> models = w.window.findChildren<QAbstractItemModel*>();
        QVERIFY(models.size() >= 3);
        std::vector<std::unique_ptr<QAbstractItemModelTester>> testers;
        for (QAbstractItemModel* m : models)
            testers.push_back(
                std::make_unique<QAbstractItemModelTester>(m, QAbstractItemModelTester::FailureReportingMode::QtTest));
        // Edits that change the number of stages and messages, through the views' real models.
        w.doc()->edit(QStringLiteral("pp 4"), [](core::Scenario& s) { s.parallel.pp = 4; });
        QVERIFY(w.doc()->waitForEvaluation());
        w.doc()->edit(QStringLiteral("tp 3"), [](core::Scenario& s) { s.parallel.tp = 3; });
        QVERIFY(w.doc()->waitForEvaluation());
        w.doc()->undoStack()->setIndex(0);
        QVERIFY(w.doc()->waitForEvaluation());
    }
};

QTEST_MAIN(ModelsTest)
#include "tst_models.moc"
