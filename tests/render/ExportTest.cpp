// SPDX-License-Identifier: Apache-2.0
#include "RenderTestSupport.h"

#include "core/Engine.h"
#include "core/io/ScenarioIo.h"
#include "core/report/ReportMarkdown.h"
#include "ui/render/Exporter.h"
#include "ui/render/GanttRenderer.h"
#include "ui/render/ReportPictures.h"
#include "ui/render/SvgAnnotations.h"

#include <QFile>
#include <QPainter>
#include <QSvgRenderer>
#include <QTemporaryDir>
#include <QXmlStreamReader>
#include <gtest/gtest.h>

using namespace parallax;
using core::ScheduleKind;

namespace {

render::Picture smallGantt()
{
    render::TitleBlock title;
    title.title = QStringLiteral("1F1B");
    title.chart = QStringLiteral("pipeline schedule, p=4, m=8");
    title.lines << QStringLiteral("Uniform op times");
    title.figures.push_back({ QStringLiteral("bubble"), QStringLiteral("27.3%") });
    return render::ganttPicture(render::test::uniformModel(ScheduleKind::OneFOneB, 4, 8), title, 1200);
}

core::Scenario loadPreset(const char* name)
{
    core::LoadError error;
    auto s = core::loadScenarioFile(std::string(PARALLAX_SOURCE_DIR) + "/presets/scenarios/" + name, error);
    EXPECT_TRUE(s.has_value()) << error.text();
    return s ? *s : core::Scenario {};
}

} // namespace

TEST(Export, FormatComesFromTheExtension)
{
    EXPECT_EQ(render::exportFormatFor(QStringLiteral("a/b.SVG")), render::ExportFormat::Svg);
    EXPECT_EQ(render::exportFormatFor(QStringLiteral("x.png")), render::ExportFormat::Png);
    EXPECT_EQ(render::exportFormatFor(QStringLiteral("x.pdf")), render::ExportFormat::Pdf);
    EXPECT_FALSE(render::exportFormatFor(QStringLiteral("x.bmp")).has_value());
    EXPECT_FALSE(render::exportFormatFor(QStringLiteral("x")).has_value());
}

// The SVG is well-formed XML and carries one <rect class="op"> per op of a schedule drawn in full.
TEST(Export, SvgParsesAndHoldsOneElementPerOp)
{
    const render::Picture picture = smallGantt();
    const QByteArray svg = render::renderSvg(picture);
    QXmlStreamReader xml(svg);
    int opRects = 0, texts = 0;
    QStringList ids;
    while (!xml.atEnd()) {
        xml.readNext();
        if (!xml.isStartElement())
            continue;
        if (xml.name() == QStringLiteral("rect")
            && xml.attributes().value(QStringLiteral("class")) == QStringLiteral("op")) {
            ++opRects;
            ids << xml.attributes().value(QStringLiteral("id")).toString();
        }
        if (xml.name() == QStringLiteral("text"))
            ++texts;
    }
    ASSERT_FALSE(xml.hasError()) << xml.errorString().toStdString();
    EXPECT_EQ(opRects, 4 * 8 * 2);
    ids.removeDuplicates();
    EXPECT_EQ(ids.size(), opRects); // unique ids
    EXPECT_GT(texts, 20); // labels, ticks, title are text, not paths
    EXPECT_TRUE(svg.contains("<title>op r3 F7"));
}

TEST(Export, PngHasTheRequestedSizeAndIsNotBlank)
{
    const render::Picture picture = smallGantt();
    const QImage image = render::renderImage(picture, 2);
    EXPECT_EQ(image.width(), qRound(picture.size.width() * 2));
    EXPECT_EQ(image.height(), qRound(picture.size.height() * 2));
    EXPECT_GE(render::test::distinctColors(image), 16);
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("gantt.png"));
    QString error;
    ASSERT_TRUE(render::exportPicture(picture, path, 1.5, &error)) << error.toStdString();
    const QImage read(path);
    EXPECT_EQ(read.size(), QSize(qRound(picture.size.width() * 1.5), qRound(picture.size.height() * 1.5)));
    EXPECT_GE(render::test::distinctColors(read), 16);
}

TEST(Export, PdfIsOnePage)
{
    const QByteArray pdf = render::renderPdf(smallGantt());
    ASSERT_GT(pdf.size(), 1000);
    EXPECT_TRUE(pdf.startsWith("%PDF"));
    EXPECT_TRUE(pdf.contains("/Type /Page\n") || pdf.contains("/Type /Page ") || pdf.contains("/Type /Page/")
        || pdf.contains("/Type /Page>"));
    EXPECT_EQ(pdf.count("/Type /Page\n") + pdf.count("/Type /Page "), 1);
}

TEST(Export, UnknownFormatAndUnwritablePathFailWithAMessage)
{
    const render::Picture picture = smallGantt();
    QString error;
    EXPECT_FALSE(render::exportPicture(picture, QStringLiteral("/tmp/x.bmp"), 1, &error));
    EXPECT_TRUE(error.contains(QStringLiteral("unknown format"))) << error.toStdString();
    EXPECT_FALSE(render::exportPicture(picture, QStringLiteral("/no/such/folder/x.png"), 1, &error));
    EXPECT_TRUE(error.contains(QStringLiteral("cannot write"))) << error.toStdString();
    QTemporaryDir dir;
    EXPECT_FALSE(render::exportPicture(picture, dir.path(), 1, &error)); // a folder, no extension
}

// Every picture of a real report: the 64-GPU preset's schedule, rank map and memory chart.
TEST(Export, ReportPicturesRenderInEveryFormat)
{
    const core::Scenario s = loadPreset("llama3-70b-64xh100.parallax.json");
    const core::Report r = core::evaluate(s);
    ASSERT_TRUE(r.valid);
    std::vector<render::GanttTrack> tracks { render::ganttTrack(s, r) };
    const auto title = render::TitleBlock::forReport(s, r, QStringLiteral("pipeline schedule"));
    EXPECT_TRUE(title.lines.join(u' ').contains(QStringLiteral("TP 8 (SP)")));
    const render::Picture gantt
        = render::ganttPicture(std::make_shared<const render::GanttModel>(std::move(tracks)), title);
    render::RankMapRenderer::Options o;
    const render::Picture rankMap
        = render::rankMapPicture(std::make_shared<const render::RankMapRenderer>(r.rankMap, s.topology), title, o);
    const render::Picture memory = render::memoryPicture(
        std::make_shared<const render::MemoryChartRenderer>(render::MemoryChartRenderer::fromReport(r)), title);
    for (const render::Picture* p : { &gantt, &rankMap, &memory }) {
        const QImage image = render::renderImage(*p, 1);
        EXPECT_GE(render::test::distinctColors(image), 16) << p->title.toStdString();
        QXmlStreamReader xml(render::renderSvg(*p));
        while (!xml.atEnd())
            xml.readNext();
        EXPECT_FALSE(xml.hasError()) << p->title.toStdString() << ": " << xml.errorString().toStdString();
        EXPECT_TRUE(render::renderPdf(*p).startsWith("%PDF"));
    }
    // The Gantt's SVG accounts for all 16,384 ops (individually or in folded bars).
    render::SvgAnnotations a;
    gantt.annotate(a);
    int ops = 0;
    for (const auto& item : a.items()) {
        if (item.cssClass == QStringLiteral("op"))
            ++ops;
        for (const auto& [k, v] : item.data)
            if (item.cssClass == QStringLiteral("fold") && k == QStringLiteral("ops"))
                ops += v.toInt();
    }
    EXPECT_EQ(static_cast<std::size_t>(ops), r.schedule.ops.size());
}

// The SVG draws the same picture as the PNG: rendered back with QSvgRenderer, nearly every pixel
// agrees (text rasterizes a little differently).
// A serving scenario's title block leads with its serving figures and configuration, not an empty training step
// ("0.00 s step time, 0.0% MFU" on the rank map it still exports).
TEST(Export, ServingTitleBlockShowsServingFigures)
{
    const core::Scenario s = loadPreset("serve-dsv3-dpattn-8xh200.parallax.json");
    const core::Report r = core::evaluate(s);
    ASSERT_TRUE(r.valid);
    ASSERT_TRUE(r.inference.has_value());
    const auto title = render::TitleBlock::forReport(s, r, QStringLiteral("rank map"));
    QStringList captions;
    for (const auto& f : title.figures)
        captions << f.caption;
    EXPECT_EQ(captions.join(u','), QStringLiteral("TTFT,TPOT,tokens/s per GPU,peak memory"));
    EXPECT_EQ(title.figures[0].value, QString::fromStdString(core::formatSeconds(r.inference->ttftSeconds)));
    EXPECT_TRUE(title.lines.join(u' ').contains(QStringLiteral("weights fp8")));
    EXPECT_FALSE(title.lines.join(u' ').contains(QStringLiteral("micro-batch")));
}

// A serving report is one bar, its fullest GPU: what the engine loads, the KV cache pool and the
// reserve, which fill the HBM exactly when the design fits; a pool that does not fit is drawn as none.
TEST(MemoryChartRenderer, ReadsAServingReportAsItsFullestGpu)
{
    const core::Scenario s = loadPreset("serve-dsv3-dpattn-8xh200.parallax.json");
    const core::Report r = core::evaluate(s);
    ASSERT_TRUE(r.valid && r.inference);
    const core::ServingMemory& m = r.inference->memory;
    const auto chart = render::MemoryChartRenderer::fromReport(r);
    EXPECT_EQ(chart.kind(), render::MemoryChartRenderer::Kind::Serving);
    ASSERT_EQ(chart.bars().size(), 1u);
    ASSERT_EQ(chart.componentCount(), static_cast<int>(render::MemoryChartRenderer::ServingComponentCount));
    EXPECT_EQ(chart.componentName(render::MemoryChartRenderer::KvCache), QStringLiteral("KV cache pool"));
    EXPECT_DOUBLE_EQ(chart.bars()[0].bytes[render::MemoryChartRenderer::KvCache], m.kvCacheBytes);
    EXPECT_DOUBLE_EQ(chart.bars()[0].bytes[render::MemoryChartRenderer::Reserve], m.reserveBytes);
    ASSERT_GT(m.kvCacheBytes, 0);
    EXPECT_NEAR(chart.bars()[0].total(), m.hbmBytes, 1e3);
    EXPECT_DOUBLE_EQ(chart.hbmBytes(), m.hbmBytes);

    core::ServingMemory short_ = m;
    short_.weightsBytes = m.hbmBytes; // the weights alone fill the HBM
    short_.kvCacheBytes = m.hbmBytes - m.reserveBytes - short_.usedBytes();
    const auto over = render::MemoryChartRenderer::fromServing(short_);
    EXPECT_EQ(over.bars()[0].bytes[render::MemoryChartRenderer::KvCache], 0);
    EXPECT_GT(over.bars()[0].total(), m.hbmBytes);
    // The KV cache pool is drawn in its own color (Tol's teal) in the picture.
    const QImage image = render::renderImage(
        render::memoryPicture(std::make_shared<const render::MemoryChartRenderer>(chart), std::nullopt, 800), 1);
    image.save(render::test::outputPath(QStringLiteral("memory-serving.png")));
    long teal = 0;
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x)
            teal += image.pixel(x, y) == qRgb(0x00, 0x99, 0x88);
    EXPECT_GT(teal, 1000);
}

TEST(Export, SvgLooksLikeThePng)
{
    const render::Picture picture = smallGantt();
    const QImage png = render::renderImage(picture, 1);
    QSvgRenderer svg(render::renderSvg(picture));
    ASSERT_TRUE(svg.isValid());
    QImage back(png.size(), QImage::Format_RGB32);
    back.fill(Qt::white);
    QPainter p(&back);
    svg.render(&p, QRectF(QPointF(0, 0), picture.size));
    p.end();
    back.save(render::test::outputPath(QStringLiteral("gantt-from-svg.png")));
    long differing = 0;
    for (int y = 0; y < png.height(); ++y)
        for (int x = 0; x < png.width(); ++x) {
            const QRgb a = png.pixel(x, y), b = back.pixel(x, y);
            differing += std::max({ std::abs(qRed(a) - qRed(b)), std::abs(qGreen(a) - qGreen(b)),
                             std::abs(qBlue(a) - qBlue(b)) })
                > 64;
        }
    EXPECT_LT(static_cast<double>(differing) / (png.width() * png.height()), 0.05);
}

// A Gantt picture of a time range (issue 14, defect 4: the export of a zoomed view) holds only the
// ops of that range, each drawn on its own where the whole step would fold them into a grey slab.
TEST(Export, GanttOfATimeRangeHoldsOnlyThatRangesOps)
{
    const auto model = render::test::uniformModel(ScheduleKind::OneFOneB, 8, 512); // 8,192 ops
    auto count = [](const render::Picture& p, int* folded, double* first, double* last) {
        render::SvgAnnotations a;
        p.annotate(a);
        int ops = 0;
        *folded = 0;
        *first = 1e300;
        *last = -1e300;
        for (const auto& item : a.items()) {
            if (item.cssClass == QStringLiteral("op")) {
                ++ops;
                for (const auto& [k, v] : item.data) {
                    if (k == QStringLiteral("start"))
                        *first = std::min(*first, v.toDouble());
                    if (k == QStringLiteral("end"))
                        *last = std::max(*last, v.toDouble());
                }
            }
            for (const auto& [k, v] : item.data)
                if (item.cssClass == QStringLiteral("fold") && k == QStringLiteral("ops"))
                    *folded += v.toInt();
        }
        return ops;
    };
    int folded = 0;
    double first = 0, last = 0;
    const int whole = count(render::ganttPicture(model, std::nullopt), &folded, &first, &last);
    EXPECT_EQ(static_cast<std::size_t>(whole + folded), model->opCount());
    EXPECT_GT(folded, 4000); // the whole step folds

    const render::GanttTimeRange range { 100, 130 };
    const render::Picture zoomed = render::ganttPicture(model, std::nullopt, render::kGanttWidth, {}, range);
    const int inRange = count(zoomed, &folded, &first, &last);
    std::size_t expected = 0;
    for (const auto& op : model->ops(0))
        expected += op.end > range.start && op.start < range.end;
    EXPECT_EQ(folded, 0);
    EXPECT_EQ(static_cast<std::size_t>(inRange), expected);
    EXPECT_GT(last, range.start);
    EXPECT_LT(first, range.end);
    EXPECT_GE(first, range.start - 2); // an op that began just before the range is cut at its edge
    EXPECT_LE(last, range.end + 2);
    render::renderImage(zoomed, 1).save(render::test::outputPath(QStringLiteral("gantt-range.png")));
}
