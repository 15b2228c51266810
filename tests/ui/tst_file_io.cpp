// SPDX-License-Identifier: Apache-2.0
// Files: save / open round trip (atomic save through the core), corrupt and invalid files leave
// the current work untouched, the unsaved-changes prompt, recent files and window state.
#include "TestSupport.h"

#include "ui/PresetGallery.h"
#include "ui/TopologyEditor.h"

#include <QListWidget>
#include <QTextBrowser>

#include <QDir>
#include <QSettings>
#include <QTemporaryDir>
#include <QUndoStack>

using namespace parallax;
using namespace parallax::ui;

class FileIoTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { test::initApplication(); }

    void saveOpenRoundTrip()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("edited.parallax.json"));
        QString saved;
        {
            test::Window w;
            w.load(test::presetScenario());
            // An explicit topology (moved GPU) and changed knobs must survive the trip.
            QVERIFY(w.window.topologyEditor()->drop(
                { TopologyDrag::Kind::Gpu, {}, 1, 0 }, w.window.topologyEditor()->domainScenePos(0)));
            w.doc()->edit(QStringLiteral("knobs"), [](core::Scenario& s) {
                s.parallel.zero = 2;
                s.training.recompute = core::Recompute::Full;
                s.name = "Round trip";
            });
            QVERIFY(w.doc()->isModified());
            QVERIFY(w.window.saveToFile(path));
            QVERIFY(!w.doc()->isModified());
            QVERIFY(w.window.windowTitle().contains(QStringLiteral("edited.parallax.json")));
            saved = test::serialized(w.doc()->scenario());
            QVERIFY(w.errors.isEmpty());
        }
        test::Window other;
        QVERIFY(other.window.openFile(path));
        QCOMPARE(test::serialized(other.doc()->scenario()), saved);
        QCOMPARE(other.doc()->scenario().topology.domains[0].gpuCount, 9);
        QVERIFY(!other.doc()->scenario().regularCluster);
        QCOMPARE(other.doc()->filePath(), QFileInfo(path).absoluteFilePath());
        QVERIFY(!other.doc()->isModified());
        QCOMPARE(QSettings().value(QStringLiteral("recentFiles")).toStringList().value(0),
            QFileInfo(path).absoluteFilePath());
    }

    void corruptOrInvalidFileLeavesTheScenarioIntact_data()
    {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<QString>("named"); // what the error must name
        QTest::addColumn<QString>("kind"); // "": a file of `content`; "directory", "device", "oversize"
        QTest::newRow("not json") << QByteArray("{ \"format\": \"parallax-scenario\", ") << QString() << QString();
        QTest::newRow("bad degree") << QByteArray(R"({"format":"parallax-scenario","version":1,"model":"llama3-8b",
            "cluster":{"gpu":"h100-sxm","nodes":1,"gpus_per_node":8},"parallel":{"tp":0},"training":{"global_batch":8}})")
                                    << QStringLiteral("parallel.tp") << QString();
        QTest::newRow("unknown gpu") << QByteArray(R"({"format":"parallax-scenario","version":1,"model":"llama3-8b",
            "cluster":{"gpu":"h1000","nodes":1,"gpus_per_node":8},"parallel":{},"training":{"global_batch":8}})")
                                     << QStringLiteral("h1000") << QString();
        QTest::newRow("missing file") << QByteArray() << QString() << QString();
        // Issue 16: these aborted or overflowed the stack of the GUI.
        QTest::newRow("number beyond double") << QByteArray(R"({"format":"parallax-scenario","version":1,
            "model":"llama3-8b","cluster":{"gpu":"h100-sxm","nodes":1,"gpus_per_node":8},"parallel":{"tp":1e400},
            "training":{"global_batch":8}})") << QStringLiteral("parallel.tp")
                                              << QString();
        QTest::newRow("deep nesting") << QByteArray(R"({"format":"parallax-scenario","x":)") + QByteArray(100000, '[')
                                      << QStringLiteral("nesting deeper than 64 levels") << QString();
        QTest::newRow("not utf-8") << QByteArray("{\"format\":\"parallax-scenario\",\"name\":\"\xff\"}")
                                   << QStringLiteral("not valid JSON in name") << QString();
        // Issue 16: files that are not regular or too large are refused before they are read, and
        // a model or a cluster of the wrong form gets the field and both accepted forms.
        QTest::newRow("directory") << QByteArray() << QStringLiteral("is a directory") << QStringLiteral("directory");
        QTest::newRow("device") << QByteArray() << QStringLiteral("is a device") << QStringLiteral("device");
        QTest::newRow("over the size cap") << QByteArray() << QStringLiteral("MiB") << QStringLiteral("oversize");
        QTest::newRow("model a number") << QByteArray(R"({"format":"parallax-scenario","version":1,"model":70,
            "cluster":{"gpu":"h100-sxm","nodes":1,"gpus_per_node":8},"parallel":{},"training":{"global_batch":8}})")
                                        << QStringLiteral("model: must be a model preset name") << QString();
        QTest::newRow("a million gpus") << QByteArray(R"({"format":"parallax-scenario","version":1,"model":"llama3-8b",
            "cluster":{"gpu":"h100-sxm","nodes":125000,"gpus_per_node":8},"parallel":{},"training":{"global_batch":8}})")
                                        << QStringLiteral("cluster.nodes: 1000000 GPUs") << QString();
    }

    void corruptOrInvalidFileLeavesTheScenarioIntact()
    {
        QFETCH(QByteArray, content);
        QFETCH(QString, named);
        QFETCH(QString, kind);
        test::Window w;
        w.load(test::presetScenario());
        w.doc()->edit(QStringLiteral("unsaved work"), [](core::Scenario& s) { s.parallel.zero = 3; });
        const QString before = test::serialized(w.doc()->scenario());
        const int undoSteps = w.doc()->undoStack()->count();

        QTemporaryDir dir;
        QString path = dir.filePath(QStringLiteral("broken.parallax.json"));
        if (kind == QStringLiteral("directory")) {
            QVERIFY(QDir(dir.path()).mkdir(QStringLiteral("broken.parallax.json")));
        } else if (kind == QStringLiteral("device")) {
            path = QStringLiteral("/dev/zero");
        } else if (kind == QStringLiteral("oversize")) {
            QFile file(path);
            QVERIFY(file.open(QIODevice::WriteOnly));
            QVERIFY(file.resize(qint64(17) << 20)); // over the 16 MiB cap of core/io/BoundedRead
        } else if (!content.isEmpty()) {
            QFile file(path);
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write(content);
        }
        QVERIFY(!w.window.openFile(path));
        QCOMPARE(w.errors.size(), 1);
        QVERIFY2(w.errors.front().contains(QFileInfo(path).fileName()), qPrintable(w.errors.front()));
        QVERIFY(w.errors.front().contains(QStringLiteral("unchanged")));
        if (!named.isEmpty())
            QVERIFY2(w.errors.front().contains(named), qPrintable(w.errors.front()));
        // The sentence names the file; the folder is left to Show Details, so that the field leads.
        if (kind.isEmpty() && !content.isEmpty())
            QVERIFY2(!w.errors.front().contains(dir.path()), qPrintable(w.errors.front()));
        if (kind.isEmpty() && content.contains("125000")) // the advice, in full behind Show Details
            QVERIFY2(w.window.lastErrorDetails().contains(QStringLiteral("model one representative slice")),
                qPrintable(w.window.lastErrorDetails()));
        QCOMPARE(test::serialized(w.doc()->scenario()), before);
        QCOMPARE(w.doc()->undoStack()->count(), undoSteps);
        QVERIFY(w.doc()->isModified());
        QVERIFY(w.doc()->filePath().isEmpty());
    }

    void unsavedChangesPromptOnClose()
    {
        test::Window w;
        w.load(test::presetScenario());
        QVERIFY(w.window.close()); // clean: no prompt
        QCOMPARE(w.prompts, 0);

        w.window.show();
        w.doc()->edit(QStringLiteral("change"), [](core::Scenario& s) { s.parallel.zero = 2; });
        w.answer = QMessageBox::Cancel;
        QVERIFY(!w.window.close());
        QCOMPARE(w.prompts, 1);
        QVERIFY(w.window.isVisible());

        w.answer = QMessageBox::Discard;
        QVERIFY(w.window.close());
        QCOMPARE(w.prompts, 2);
        QVERIFY(QSettings().contains(QStringLiteral("geometry")));
        QVERIFY(QSettings().contains(QStringLiteral("windowState")));

        // Save with a file behind the document: written, then closed.
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("kept.parallax.json"));
        w.window.show();
        QVERIFY(w.window.saveToFile(path));
        w.doc()->edit(QStringLiteral("change"), [](core::Scenario& s) { s.parallel.zero = 1; });
        w.answer = QMessageBox::Save;
        QVERIFY(w.window.close());
        core::LoadError error;
        const auto reread = core::loadScenarioFile(path.toStdString(), error);
        QVERIFY(reread);
        QCOMPARE(reread->parallel.zero, 1);
    }

    void iconIsCompiledIn()
    {
        QVERIFY(QFile::exists(QStringLiteral(":/icons/parallax.svg")));
        test::Window w;
        QVERIFY(!w.window.windowIcon().isNull());
        QVERIFY(!w.window.windowIcon().pixmap(64, 64).isNull());
    }

    void presetGalleryShowsEachLesson()
    {
        PresetGallery gallery;
        auto* list = gallery.findChild<QListWidget*>(QStringLiteral("presetList"));
        auto* text = gallery.findChild<QTextBrowser*>();
        QVERIFY(list && text);
        QCOMPARE(list->count(), static_cast<int>(core::PresetLibrary::instance().scenarios().size()));
        gallery.selectPreset(QString::fromLatin1(core::kDefaultScenarioPreset));
        QCOMPARE(gallery.selectedPresetId(), QString::fromLatin1(core::kDefaultScenarioPreset));
        const auto scenario = test::presetScenario();
        QVERIFY(!scenario.description.empty());
        // The lesson's Markdown is rendered, not shown raw.
        QVERIFY2(text->toPlainText().contains(QString::fromStdString(scenario.name)), qPrintable(text->toPlainText()));
        QVERIFY(!text->toPlainText().contains(QStringLiteral("**")));

        // A guide lesson's {{placeholders}} are filled in with the engine's numbers, off the UI thread.
        gallery.selectPreset(QStringLiteral("guide-70b-8xh100"));
        QTRY_VERIFY_WITH_TIMEOUT(!text->toPlainText().contains(QStringLiteral("Computing the lesson")), 20000);
        QVERIFY2(!text->toPlainText().contains(QStringLiteral("{{")), qPrintable(text->toPlainText()));
        QVERIFY2(text->toPlainText().contains(QStringLiteral("GiB")), qPrintable(text->toPlainText()));
    }

    void presetsOpenUntitledAndClean()
    {
        test::Window w;
        for (const auto& preset : core::PresetLibrary::instance().scenarios()) {
            QVERIFY2(w.window.openPreset(QString::fromStdString(preset.id)), preset.id.c_str());
            QVERIFY(w.doc()->filePath().isEmpty());
            QVERIFY(!w.doc()->isModified());
            QVERIFY(w.doc()->waitForEvaluation());
        }
        QVERIFY(!w.window.openPreset(QStringLiteral("no-such-preset")));
        QCOMPARE(w.errors.size(), 1);
    }
};

QTEST_MAIN(FileIoTest)
#include "tst_file_io.moc"
