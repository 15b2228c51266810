// SPDX-License-Identifier: Apache-2.0
// Issue 14: the desktop app as a demanding user found it. One test (or more) per defect, each
// failing on the code before the fix: a cancelled search's verdict, the Configuration dock's width,
// the Gantt export's range, 1366x768, stale status lines, context-free fix hints, the default
// lesson against the engine's own search, the dark theme's canvases, and the small things.
#include "TestSupport.h"

#include "core/model/ModelMath.h"
#include "core/search/ConfigSearch.h"
#include "core/search/SearchSpace.h"
#include "ui/CandidateModel.h"
#include "ui/ConfigPanel.h"
#include "ui/ExportDialog.h"
#include "ui/GanttView.h"
#include "ui/MemoryChartWidget.h"
#include "ui/MemoryTab.h"
#include "ui/PresetGallery.h"
#include "ui/RankMapView.h"
#include "ui/RecommendationsTab.h"
#include "ui/ReportExport.h"
#include "ui/ScheduleTab.h"
#include "ui/Theme.h"
#include "ui/TopologyEditor.h"
#include "ui/TopologyItems.h"
#include "ui/render/GanttModel.h"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDockWidget>
#include <QGraphicsScene>
#include <QGraphicsView>
#include <QHeaderView>
#include <QLabel>
#include <QMenuBar>
#include <QPushButton>
#include <QScrollArea>
#include <QTableView>
#include <QTemporaryDir>
#include <QTextBrowser>
#include <QUndoStack>
#include <set>

using namespace parallax;
using namespace parallax::ui;

namespace {
core::SearchOptions quickOptions()
{
    core::SearchOptions o;
    o.topK = 5;
    o.threads = 2;
    o.limits.maxMicroBatch = 2;
    o.limits.maxVirtualStages = 2;
    return o;
}

core::Scenario smallSearch()
{
    return test::smallClusterWith(1, 8, 8, "llama3-8b", 32);
}

QLabel* label(QWidget* root, const char* name)
{
    auto* l = root->findChild<QLabel*>(QString::fromLatin1(name));
    if (!l)
        qFatal("no label %s", name);
    return l;
}

// Whether every visible descendant of `panel` lies inside its width (nothing cut off at the edge).
QStringList clippedChildren(QWidget* panel, int width)
{
    QStringList out;
    for (QWidget* w : panel->findChildren<QWidget*>()) {
        if (!w->isVisibleTo(panel) || w->width() <= 0)
            continue;
        const QRect r(w->mapTo(panel, QPoint(0, 0)), w->size());
        if (r.right() > width + 1)
            out << QStringLiteral("%1 %2 right=%3 > %4")
                       .arg(QString::fromLatin1(w->metaObject()->className()), w->objectName())
                       .arg(r.right())
                       .arg(width);
    }
    return out;
}

double lightness(const QImage& image, QPoint p)
{
    return QColor(image.pixel(p)).lightnessF();
}
} // namespace

class UserDefectsTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { test::initApplication(); }
    void cleanup() { theme::applyPalette(*qApp, false); }

    // Defect 1: Cancel must say it was cancelled, show what it found, never "nothing fits", and
    // not keep the previous run's candidate in the detail pane.
    void cancelledSearchSaysSoAndKeepsNoStaleDetails()
    {
        test::Window w;
        w.load(smallSearch());
        RecommendationsTab* tab = w.window.recommendationsTab();
        tab->setSearchOptions(quickOptions());
        tab->startSearch();
        QTRY_VERIFY_WITH_TIMEOUT(!tab->isSearching(), 120000);
        QVERIFY(!label(tab, "candidateDetails")->text().isEmpty()); // the finished run's best

        w.load(test::presetScenario("llama3-405b-16kxh100"));
        tab->setSearchOptions({});
        tab->startSearch();
        QTest::qWait(50);
        tab->cancelSearch();
        QTRY_VERIFY_WITH_TIMEOUT(!tab->isSearching(), 30000);
        QVERIFY(tab->result()->cancelled);
        const QString summary = label(tab, "searchSummary")->text();
        QVERIFY2(summary.contains(QStringLiteral("cancelled")), qPrintable(summary));
        QVERIFY2(!summary.contains(QStringLiteral("No configuration fits")), qPrintable(summary));
        QCOMPARE(tab->candidateModel()->rowCount(), static_cast<int>(tab->result()->candidates.size()));
        const QString details = label(tab, "candidateDetails")->text();
        if (tab->result()->candidates.empty())
            QVERIFY2(details.isEmpty(), qPrintable(details));
        else
            QVERIFY(details.contains(
                QString::fromStdString(core::describe(tab->result()->candidates.front().point)).toHtmlEscaped()));
    }

    // Defect 2: long messages and fix buttons wrap inside the Configuration dock at 1366x768; the
    // dock does not widen and nothing is cut off at its edge.
    void configurationDockDoesNotOverflowWithLongMessages()
    {
        test::Window w;
        w.window.resize(1366, 768);
        w.load(test::presetScenario("gpt3-175b-1536xa100"));
        QApplication::processEvents();
        auto* dock = w.window.findChild<QDockWidget*>(QStringLiteral("configDock"));
        auto* scroll = qobject_cast<QScrollArea*>(dock->widget());
        QVERIFY(scroll);
        const int dockWidth = dock->width();
        w.doc()->edit(QStringLiteral("tp=5"), [](core::Scenario& s) { s.parallel.tp = 5; });
        QVERIFY(w.doc()->waitForEvaluation());
        QApplication::processEvents();
        auto* panel = w.window.configPanel();
        QVERIFY(!panel->fieldMessage(QStringLiteral("parallel.tp")).isEmpty());
        QVERIFY(!panel->suggestions(QStringLiteral("parallel.tp")).isEmpty());
        QCOMPARE(dock->width(), dockWidth);
        const int visible = scroll->viewport()->width();
        QVERIFY2(panel->width() <= visible, qPrintable(QStringLiteral("%1 > %2").arg(panel->width()).arg(visible)));
        const QStringList clipped = clippedChildren(panel, visible);
        QVERIFY2(clipped.isEmpty(), qPrintable(clipped.join(QStringLiteral("; "))));

        // The 288-GPU case of the issue: 4 x GB200 NVL72 with pp=4.
        w.window.topologyEditor()->generateCluster(QStringLiteral("gb200"), 4, 72, 400);
        w.doc()->edit(QStringLiteral("pp=4"), [](core::Scenario& s) { s.parallel.pp = 4; });
        QVERIFY(w.doc()->waitForEvaluation());
        QApplication::processEvents();
        QCOMPARE(dock->width(), dockWidth);
        const QStringList clipped288 = clippedChildren(panel, scroll->viewport()->width());
        QVERIFY2(clipped288.isEmpty(), qPrintable(clipped288.join(QStringLiteral("; "))));
    }

    // Defect 3 (the view's half): in compare mode the title lines are not cut at the cursor.
    void playbackKeepsTheCompareTitlesWhole()
    {
        test::Window w;
        w.load(test::presetScenario());
        ScheduleTab* schedule = w.window.scheduleTab();
        w.window.tabs()->setCurrentWidget(schedule);
        schedule->setComparedSchedules({ core::ScheduleKind::OneFOneB, core::ScheduleKind::Interleaved1F1B });
        schedule->setCompareMode(true);
        QTRY_VERIFY_WITH_TIMEOUT(!schedule->comparisonPending(), 60000);
        GanttView* gantt = schedule->gantt();
        QVERIFY(gantt->model() && gantt->model()->trackCount() == 2);
        gantt->setCursorTime(-1);
        const QImage full = gantt->grab().toImage();
        gantt->setCursorTime(gantt->model()->endTime() * 0.3);
        const QImage playing = gantt->grab().toImage();
        const double cursorX = gantt->axis().toPixel(gantt->cursorTime());
        full.save(QDir::temp().filePath(QStringLiteral("parallax-compare-full.png")));
        playing.save(QDir::temp().filePath(QStringLiteral("parallax-compare-playing.png")));
        const double right = gantt->chartLayout().plot.right();
        for (const QRectF& h : gantt->chartLayout().headers) {
            for (int y = static_cast<int>(h.top()); y < static_cast<int>(h.bottom()); ++y)
                for (int x = static_cast<int>(cursorX) + 3; x < static_cast<int>(right); ++x)
                    QVERIFY2(
                        full.pixel(x, y) == playing.pixel(x, y), qPrintable(QStringLiteral("x=%1 y=%2").arg(x).arg(y)));
        }
    }

    // Defect 4: the export follows the Schedule tab's zoom (and offers the whole step).
    void exportOfAZoomedScheduleHoldsTheVisibleRange()
    {
        test::Window w;
        w.load(test::presetScenario());
        GanttView* gantt = w.window.scheduleTab()->gantt();
        QVERIFY(gantt->model());
        const double end = gantt->model()->endTime();
        gantt->setView(0.40 * end, 0.41 * end, false);
        const ExportSources sources = w.window.exportSources();
        QVERIFY(sources.ganttView.has_value());
        QCOMPARE(sources.ganttView->start, gantt->targetAxis().viewStart());
        ExportRequest r;
        QCOMPARE(r.ganttRange, ExportRequest::GanttRange::Visible); // the default
        const auto range = ganttRangeOf(r, sources);
        QVERIFY(range && std::abs(range->end - 0.41 * end) < 1e-9 * end);
        r.ganttRange = ExportRequest::GanttRange::WholeStep;
        QVERIFY(!ganttRangeOf(r, sources));
        r.ganttRange = ExportRequest::GanttRange::FirstMicrobatches;
        r.firstMicrobatches = 2;
        const auto first = ganttRangeOf(r, sources);
        QVERIFY(first && first->start == 0 && first->end < end);

        QTemporaryDir dir;
        r = ExportRequest {};
        r.folder = dir.path();
        r.rankMap = r.memory = r.trace = r.markdown = false;
        QVERIFY(w.window.exportFiles(r));
        QFile svg(r.pathOf(QStringLiteral("-gantt"), QStringLiteral("svg")));
        QVERIFY(svg.open(QIODevice::ReadOnly));
        const QByteArray bytes = svg.readAll();
        // Every op element of the SVG overlaps the visible range.
        int ops = 0;
        for (qsizetype at = bytes.indexOf("class=\"op\""); at >= 0; at = bytes.indexOf("class=\"op\"", at + 1)) {
            const qsizetype tagEnd = bytes.indexOf('>', at);
            const QByteArray tag = bytes.mid(at, tagEnd - at);
            const auto attr = [&](const char* name) {
                const qsizetype p = tag.indexOf(QByteArray(QByteArray(name) + "=\""));
                return tag.mid(p + qstrlen(name) + 2, tag.indexOf('"', p + qstrlen(name) + 2) - p - qstrlen(name) - 2)
                    .toDouble();
            };
            QVERIFY(attr("data-end") > 0.40 * end && attr("data-start") < 0.41 * end);
            ++ops;
        }
        QVERIFY(ops > 0);
        QVERIFY(static_cast<std::size_t>(ops) < gantt->model()->opCount());
    }

    // Defect 5: at 1366x768 the candidate table shows several rows, the model preset is in view,
    // and the Apply button stays put as the detail pane changes height.
    void smallScreenKeepsTheEssentialsInView()
    {
        test::Window w;
        w.window.resize(1366, 768);
        w.load(smallSearch());
        QApplication::processEvents();
        auto* preset = w.window.findChild<QComboBox*>(QStringLiteral("modelPreset"));
        auto* dock = w.window.findChild<QDockWidget*>(QStringLiteral("configDock"));
        auto* scroll = qobject_cast<QScrollArea*>(dock->widget());
        const QPoint at = preset->mapTo(scroll->viewport(), QPoint(0, preset->height()));
        QVERIFY2(at.y() <= scroll->viewport()->height(), qPrintable(QString::number(at.y())));

        RecommendationsTab* tab = w.window.recommendationsTab();
        w.window.tabs()->setCurrentWidget(tab);
        tab->setSearchOptions(quickOptions());
        tab->startSearch();
        QTRY_VERIFY_WITH_TIMEOUT(!tab->isSearching(), 120000);
        QApplication::processEvents();
        auto* table = tab->findChild<QTableView*>(QStringLiteral("candidateTable"));
        QVERIFY(tab->candidateModel()->rowCount() >= 3);
        const int rowHeight = table->verticalHeader()->defaultSectionSize();
        QVERIFY2(table->viewport()->height() >= 3 * rowHeight,
            qPrintable(QStringLiteral("%1 px for rows of %2").arg(table->viewport()->height()).arg(rowHeight)));
        auto* apply = tab->findChild<QPushButton*>(QStringLiteral("applyCandidateButton"));
        std::set<int> ys;
        for (int row = 0; row < std::min(4, tab->candidateModel()->rowCount()); ++row) {
            table->selectRow(row);
            QApplication::processEvents();
            ys.insert(apply->mapTo(tab, QPoint(0, 0)).y());
        }
        QCOMPARE(ys.size(), std::size_t(1));
    }

    // Defect 6: the topology status line follows the scenario (undo, rename, File > New).
    void topologyStatusFollowsTheScenario()
    {
        test::Window w;
        w.load(test::presetScenario());
        TopologyEditor* editor = w.window.topologyEditor();
        QLabel* status = label(editor, "topologyStatus");
        editor->generateCluster(QStringLiteral("gb200"), 4, 72, 400);
        QVERIFY2(status->text().contains(QStringLiteral("Generate")), qPrintable(status->text()));
        QVERIFY2(status->text().contains(QStringLiteral("288 GPUs")), qPrintable(status->text()));
        w.doc()->undoStack()->undo();
        QVERIFY2(!status->text().contains(QStringLiteral("Generate")), qPrintable(status->text()));
        QVERIFY2(status->text().contains(QStringLiteral("64 GPUs in 8 domains")), qPrintable(status->text()));
        w.doc()->undoStack()->redo();
        w.window.openDefault();
        QVERIFY2(status->text().contains(QStringLiteral("64 GPUs in 8 domains")), qPrintable(status->text()));
        QVERIFY(!status->text().contains(QStringLiteral("288")));
    }

    // Defect 7: fix hints that know the context.
    void fixHintsKnowTheContext()
    {
        test::Window w;
        // Out of memory at dp=1: no "higher ZeRO stage", which would do nothing.
        core::Scenario oom = test::presetScenario("guide-70b-8xh100");
        oom.parallel.dp = 1;
        w.load(oom);
        const auto& warnings = w.doc()->evaluation()->report.warnings;
        const auto it = std::find_if(
            warnings.begin(), warnings.end(), [](const core::Message& m) { return m.field == "memory"; });
        QVERIFY(it != warnings.end());
        QVERIFY2(it->text.find("ZeRO stage") == std::string::npos, it->text.c_str());
        QVERIFY2(it->text.find("ZeRO has no effect at dp=1") != std::string::npos, it->text.c_str());

        // 65 GPUs: say how to resize the cluster.
        core::Scenario odd = test::smallCluster(1, 8, 8);
        odd.topology = core::Topology::regular(*core::PresetLibrary::instance().gpu("h100-sxm"), 1, 65, 400);
        w.doc()->setAutoDataParallel(false);
        w.load(odd);
        auto* panel = w.window.configPanel();
        const QString dp = panel->fieldMessage(QStringLiteral("parallel.dp"));
        QVERIFY2(dp.contains(QStringLiteral("remove 1 GPU")), qPrintable(dp));

        // dp automatic, 288 GPUs, tp*cp*pp = 64: no stale "dp=16" in the message.
        w.doc()->setAutoDataParallel(true);
        core::Scenario big = test::presetScenario();
        big.parallel.dp = 16;
        big.topology = core::Topology::regular(*core::PresetLibrary::instance().gpu("gb200"), 4, 72, 400);
        w.load(big);
        const QString autoDp = panel->fieldMessage(QStringLiteral("parallel.dp"));
        QVERIFY2(autoDp.contains(QStringLiteral("dp is automatic")), qPrintable(autoDp));
        QVERIFY2(!autoDp.contains(QStringLiteral("16")), qPrintable(autoDp));
        QVERIFY2(autoDp.contains(QStringLiteral("256 or 320")), qPrintable(autoDp));
    }

    // Defect 8: the default lesson says what the engine's own search finds for its scenario.
    void defaultLessonAgreesWithTheEngine()
    {
        const core::Scenario s = test::presetScenario();
        core::SearchOptions o;
        o.topK = 3;
        const core::SearchResult search = core::searchConfigurations(s, o);
        QVERIFY(!search.candidates.empty());
        QWidget parent;
        PresetGallery::showLessonOf(&parent, s);
        QTextBrowser* text = nullptr;
        QTRY_VERIFY_WITH_TIMEOUT((text = parent.findChild<QTextBrowser*>(QStringLiteral("lessonText")))
                && !text->toPlainText().contains(QStringLiteral("Computing")),
            120000);
        const QString lesson = text->toPlainText();
        const QString best = QString::fromStdString(core::describe(search.candidates.front().point));
        QVERIFY2(lesson.contains(best), qPrintable(lesson));
        if (search.baselineReason)
            QVERIFY2(lesson.contains(QStringLiteral("No: the engine's search")), qPrintable(lesson));
        else
            QVERIFY2(lesson.contains(QStringLiteral("Yes:")), qPrintable(lesson));
        QVERIFY(!lesson.contains(QStringLiteral("{{")));
    }

    // Defect 9: the dark palette reaches the rank map, memory and Gantt canvases (exports stay light).
    void darkThemeReachesTheCanvases()
    {
        test::Window w;
        w.load(test::presetScenario());
        w.window.setDarkPalette(true);
        QApplication::processEvents();
        QWidget* canvases[] = { w.window.rankMapView()->canvas(), w.window.memoryTab()->findChild<MemoryChartWidget*>(),
            w.window.scheduleTab()->gantt() };
        for (int i = 0; i < 3; ++i) {
            w.window.tabs()->setCurrentIndex(i);
            QApplication::processEvents();
            QWidget* c = canvases[i];
            c->resize(std::max(c->width(), 400), std::max(c->height(), 300));
            const QImage image = c->grab().toImage();
            QVERIFY2(lightness(image, QPoint(image.width() - 3, image.height() - 3)) < 0.3,
                qPrintable(QStringLiteral("canvas %1 is light").arg(i)));
        }
        // An unchecked check box's frame stands out from the dark window.
        QCheckBox box(QStringLiteral("auto"));
        box.resize(80, 24);
        const QImage boxImage = box.grab().toImage();
        const double window = box.palette().color(QPalette::Window).lightnessF();
        double contrast = 0;
        for (int y = 0; y < boxImage.height(); ++y)
            for (int x = 0; x < 20; ++x)
                contrast = std::max(contrast, std::abs(lightness(boxImage, QPoint(x, y)) - window));
        QVERIFY2(contrast > 0.3, qPrintable(QString::number(contrast)));
        // Exports are painted light whatever the screen's theme.
        const auto picture = w.window.rankMapView()->picture();
        QVERIFY(picture);
        const QImage exported = render::renderImage(*picture, 1);
        QVERIFY(lightness(exported, QPoint(2, 2)) > 0.9);
    }

    // Defect 10, small things.
    void redoAndSaveAsHaveTheirKeys()
    {
        test::Window w;
        w.load(test::presetScenario());
        w.doc()->edit(QStringLiteral("zero=3"), [](core::Scenario& s) { s.parallel.zero = 3; });
        w.doc()->undoStack()->undo();
        QAction* redo = nullptr;
        QAction* saveAs = nullptr;
        for (QAction* a : w.window.findChildren<QAction*>()) {
            if (a->text().startsWith(QStringLiteral("&Redo")))
                redo = a;
            if (a->text() == QStringLiteral("Save &As…"))
                saveAs = a;
        }
        QVERIFY(redo && saveAs);
        QVERIFY(redo->shortcuts().contains(QKeySequence(Qt::CTRL | Qt::Key_Y)));
        QVERIFY(redo->shortcuts().contains(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z)));
        QVERIFY(!saveAs->shortcut().isEmpty());
        w.window.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&w.window));
        const int before = w.doc()->undoStack()->index();
        QTest::keyClick(&w.window, Qt::Key_Y, Qt::ControlModifier);
        QCOMPARE(w.doc()->undoStack()->index(), before + 1);
    }

    void exportFolderAndMissingFolder()
    {
        test::Window w;
        w.load(test::presetScenario());
        QTemporaryDir dir;
        QSettings().setValue(QStringLiteral("exportFolder"), QString(QDir::tempPath() + QStringLiteral("/elsewhere")));
        const QString path = dir.filePath(QStringLiteral("design.parallax.json"));
        QVERIFY(w.window.saveToFile(path));
        QCOMPARE(QDir(w.window.initialExportRequest().folder).absolutePath(), QDir(dir.path()).absolutePath());

        // A folder that cannot be made: one message, the dialog stays open with the choices.
        ExportRequest initial;
        initial.folder = QStringLiteral("/proc/parallax-cannot-exist/charts");
        initial.trace = false;
        ExportDialog dialog(initial);
        dialog.show();
        dialog.accept();
        QVERIFY(dialog.isVisible());
        QVERIFY(dialog.result() != QDialog::Accepted);
        QVERIFY(dialog.findChild<QLabel*>(QStringLiteral("exportError"))->isVisible());
        QVERIFY(!dialog.request().trace);
        const ExportOutcome outcome = exportReport(initial, w.window.exportSources());
        QCOMPARE(outcome.errors.size(), 1);
    }

    void modelPresetsSortBySize()
    {
        test::Window w;
        auto* combo = w.window.findChild<QComboBox*>(QStringLiteral("modelPreset"));
        double previous = 0;
        for (int i = 0; i < combo->count(); ++i) {
            const auto id = combo->itemData(i).toString().toStdString();
            if (id.empty())
                continue;
            const double params = core::totalParameters(*core::PresetLibrary::instance().model(id));
            QVERIFY2(params >= previous, qPrintable(combo->itemText(i)));
            previous = params;
        }
    }

    void topologyWordsColorsAndRefusedDrops()
    {
        test::Window w;
        core::Scenario s = test::smallCluster(2, 8, 8);
        const auto& lib = core::PresetLibrary::instance();
        s.topology.domains[1].gpu = *lib.gpu("a100-sxm-80gb");
        s.topology.domains.push_back({ "loose", *lib.gpu("h100-sxm"), 8, 0 });
        s.parallel.dp = 3;
        edits::normalizeCluster(s);
        w.load(s);
        TopologyEditor* editor = w.window.topologyEditor();
        auto* scene = editor->findChild<QGraphicsView*>()->scene();
        FabricItem* orphan = nullptr;
        std::vector<DomainItem*> domains(3, nullptr);
        for (QGraphicsItem* item : scene->items()) {
            if (auto* f = qgraphicsitem_cast<FabricItem*>(item); f && f->fabricIndex() < 0)
                orphan = f;
            if (auto* d = qgraphicsitem_cast<DomainItem*>(item); d && d->domainIndex() < 3)
                domains[static_cast<std::size_t>(d->domainIndex())] = d;
        }
        QVERIFY(orphan);
        QCOMPARE(orphan->title(), QStringLiteral("Not on a fabric (1 domain)"));
        // A GPU of node0 (H100) over the A100 domain would be refused: no highlight.
        TopologyDrag drag { TopologyDrag::Kind::Gpu, QString(), 0, 0 };
        editor->hoverDrop(drag, domains[1]->sceneBoundingRect().center());
        QVERIFY(!domains[1]->isDropTarget());
        editor->hoverDrop(drag, domains[2]->sceneBoundingRect().center());
        QVERIFY(domains[2]->isDropTarget());
        // Every GPU preset has its own color, far from the others.
        const auto& gpus = lib.gpus();
        for (std::size_t a = 0; a < gpus.size(); ++a)
            for (std::size_t b = a + 1; b < gpus.size(); ++b) {
                const QColor ca = theme::gpuTypeColor(static_cast<int>(a)),
                             cb = theme::gpuTypeColor(static_cast<int>(b));
                const int d = std::abs(ca.red() - cb.red()) + std::abs(ca.green() - cb.green())
                    + std::abs(ca.blue() - cb.blue());
                QVERIFY2(d > 90,
                    qPrintable(QStringLiteral("%1 vs %2")
                                   .arg(QString::fromStdString(gpus[a].id), QString::fromStdString(gpus[b].id))));
            }
    }

    void windowTitleFollowsTheDesign()
    {
        test::Window w;
        w.window.openDefault();
        QVERIFY(w.doc()->waitForEvaluation());
        QVERIFY(w.window.windowTitle().startsWith(QStringLiteral("Llama 3 70B on 64 H100")));
        const auto model = core::PresetLibrary::instance().model("llama3-8b");
        QVERIFY(model);
        w.doc()->edit(QStringLiteral("model"), [model](core::Scenario& s) {
            s.model = *model;
            s.modelPreset = "llama3-8b";
        });
        QVERIFY2(
            w.window.windowTitle().contains(QString::fromStdString(model->name)), qPrintable(w.window.windowTitle()));
    }

    void corruptFileSaysItInOneSentence()
    {
        test::Window w;
        w.load(test::presetScenario());
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("broken.parallax.json"));
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("{ \"format\": \"parallax-scenario\",\n \"model\": \"llama3-8b\",\n \"cluster\": { \"gpu\": ");
        file.close();
        QVERIFY(!w.window.openFile(path));
        QCOMPARE(w.errors.size(), 1);
        QVERIFY2(w.errors.front().count(u'\n') <= 2, qPrintable(w.errors.front()));
        // One sentence that names the field where the file stops and the line, the parser's text behind Details.
        QVERIFY2(w.errors.front().contains(QStringLiteral("not valid JSON in cluster.gpu (line 3")),
            qPrintable(w.errors.front()));
        QVERIFY(w.window.lastErrorDetails().contains(QStringLiteral("parse error")));
    }
};

QTEST_MAIN(UserDefectsTest)
#include "tst_user_defects.moc"
