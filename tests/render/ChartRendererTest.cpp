// SPDX-License-Identifier: Apache-2.0
#include "RenderTestSupport.h"

#include "core/Engine.h"
#include "core/io/ScenarioIo.h"
#include "ui/render/Exporter.h"
#include "ui/render/MemoryChartRenderer.h"
#include "ui/render/RankMapRenderer.h"
#include "ui/render/RenderStyle.h"

#include <gtest/gtest.h>

using namespace parallax;
using render::MemoryChartRenderer;
using render::RankMapRenderer;

namespace {

core::GpuSpec h100()
{
    core::GpuSpec g;
    g.id = "h100";
    g.name = "H100";
    return g;
}

core::Report evaluateConfig(int nodes, int tp, int pp, int dp, int globalBatch)
{
    core::LoadError error;
    auto s = core::loadScenarioFile(
        std::string(PARALLAX_SOURCE_DIR) + "/presets/scenarios/llama3-70b-64xh100.parallax.json", error);
    EXPECT_TRUE(s) << error.text();
    s->topology = core::Topology::regular(s->topology.domains.front().gpu, nodes, 8, 400);
    s->parallel.tp = tp;
    s->parallel.pp = pp;
    s->parallel.dp = dp;
    s->parallel.vpp = 1;
    s->parallel.schedule = core::ScheduleKind::OneFOneB;
    s->training.globalBatch = globalBatch;
    return core::evaluate(*s);
}

} // namespace

// 1024 GPUs in 128 HGX domains: the cells fit the area without overlapping and stay big enough
// to see a color; 8 GPUs get large cells with their rank written in.
TEST(RankMapRenderer, LegibleFromEightToThousandsOfGpus)
{
    for (int nodes : { 1, 128 }) {
        const core::Topology topo = core::Topology::regular(h100(), nodes, 8, 400);
        core::ParallelConfig c;
        c.tp = 8;
        c.pp = nodes >= 8 ? 8 : 1;
        c.dp = nodes * 8 / (c.tp * c.pp);
        const RankMapRenderer renderer(core::RankMap::build(c, &topo), topo);
        RankMapRenderer::Options o;
        const QRectF area(0, 0, 1368, renderer.preferredHeight(1368, o));
        const auto l = renderer.layout(area, o);
        ASSERT_EQ(static_cast<int>(l.cells.size()), nodes * 8);
        EXPECT_GE(l.cellSize, nodes == 1 ? 48 : 14) << nodes;
        EXPECT_LE(area.height(), 960);
        for (std::size_t i = 0; i < l.cells.size(); ++i) {
            EXPECT_TRUE(area.contains(l.cells[i])) << i;
            if (i > 0 && l.cells[i].top() == l.cells[i - 1].top()) {
                EXPECT_GE(l.cells[i].left(), l.cells[i - 1].right() - 1e-9);
            }
        }
        EXPECT_EQ(l.gpuAt(l.cells[5].center()), 5);
        EXPECT_TRUE(renderer.toolTip(l, l.cells[5].center(), o).contains(QStringLiteral("rank 5")));
        const QImage image = render::renderImage(
            render::rankMapPicture(std::make_shared<const RankMapRenderer>(renderer), std::nullopt, o), 1);
        EXPECT_GE(render::test::distinctColors(image), 8);
    }
}

// The legend counts in words: "8 groups of 1 GPU" (tp = 1), "1 group of 8 GPUs".
TEST(RankMapRenderer, LegendCountsGroupsAndGpusInWords)
{
    const core::Topology topo = core::Topology::regular(h100(), 1, 8, 400);
    for (const auto& [tp, says] : { std::pair { 1, "(8 groups of 1 GPU)" }, std::pair { 8, "(1 group of 8 GPUs)" } }) {
        core::ParallelConfig c;
        c.tp = tp;
        c.dp = 8 / tp;
        RankMapRenderer::Options o;
        const QByteArray svg = render::renderSvg(render::rankMapPicture(
            std::make_shared<const RankMapRenderer>(core::RankMap::build(c, &topo), topo), std::nullopt, o));
        EXPECT_TRUE(svg.contains(says)) << tp;
    }
}

// TP = 16 on 8-GPU nodes: every TP group leaves its NVLink domain, and the map says so.
TEST(RankMapRenderer, MarksGroupsThatLeaveTheirDomain)
{
    const core::Topology topo = core::Topology::regular(h100(), 4, 8, 400);
    core::ParallelConfig c;
    c.tp = 16;
    c.dp = 2;
    const RankMapRenderer renderer(core::RankMap::build(c, &topo), topo);
    EXPECT_TRUE(renderer.crossesDomain(0, core::Dim::Tp));
    EXPECT_FALSE(renderer.crossesDomain(0, core::Dim::Pp));
    RankMapRenderer::Options o;
    const auto l = renderer.layout(QRectF(0, 0, 1000, 600), o);
    EXPECT_TRUE(renderer.toolTip(l, l.cells[3].center(), o).contains(QStringLiteral("crosses IB")));
}

TEST(MemoryChartRenderer, MarksBarsOverCapacityAndHitTestsSegments)
{
    std::vector<MemoryChartRenderer::Bar> bars(2);
    const double g = 1024.0 * 1024 * 1024;
    bars[0].label = QStringLiteral("0");
    bars[0].bytes = { 10 * g, 10 * g, 20 * g, 30 * g, 5 * g }; // 75 GiB
    bars[1].label = QStringLiteral("1");
    bars[1].bytes = { 10 * g, 10 * g, 20 * g, 45 * g, 5 * g }; // 90 GiB, over an 80 GiB HBM
    const MemoryChartRenderer chart(bars, 80 * g);
    const auto l = chart.layout(QRectF(0, 0, 800, 500));
    EXPECT_GE(l.yMaxBytes, 90 * g);
    const QRectF b1 = l.bars[1];
    // A point in the activations segment of bar 1.
    const QPointF inActivations(b1.center().x(), l.toY(10 * g + 10 * g + 20 * g + 20 * g));
    const auto hit = chart.hitTest(l, inActivations);
    EXPECT_EQ(hit.bar, 1);
    EXPECT_EQ(hit.component, MemoryChartRenderer::Activations);
    const QString tip = chart.toolTip(l, inActivations);
    EXPECT_TRUE(tip.contains(QStringLiteral("10.00 GiB over the HBM"))) << tip.toStdString();
    EXPECT_FALSE(chart.hitTest(l, QPointF(1, 1)).valid());
    const QImage image = render::renderImage(
        render::memoryPicture(std::make_shared<const MemoryChartRenderer>(chart), std::nullopt, 800), 1);
    image.save(render::test::outputPath(QStringLiteral("memory-over.png")));
    // The over-capacity mark is drawn in Tol's red.
    bool red = false;
    for (int y = 0; y < image.height() && !red; ++y)
        for (int x = 0; x < image.width() && !red; ++x)
            red = image.pixel(x, y) == qRgb(0xcc, 0x33, 0x11);
    EXPECT_TRUE(red);
}

// Sixteen stages over the HBM on a 1200-pixel chart: each excess label fits its own bar's slot.
TEST(MemoryChartRenderer, OverCapacityLabelsFitTheirSlots)
{
    const double g = 1024.0 * 1024 * 1024;
    const QFontMetricsF fm(render::style::font(render::style::kSmallText, true));
    const double wide = fm.horizontalAdvance(QStringLiteral("+11.8 GiB over")) + 2;
    EXPECT_EQ(MemoryChartRenderer::overCapacityLabel(11.8 * g, wide, fm), QStringLiteral("+11.8 GiB over"));
    EXPECT_EQ(MemoryChartRenderer::overCapacityLabel(11.8 * g, wide - 1, fm), QStringLiteral("+11.8 GiB"));
    EXPECT_EQ(MemoryChartRenderer::overCapacityLabel(11.8 * g, 10, fm), QStringLiteral("+11.8"));
    for (const double slot : { 40.0, 60.0, 70.0, 100.0 }) {
        const QString label = MemoryChartRenderer::overCapacityLabel(11.8 * g, slot, fm);
        if (label != QStringLiteral("+11.8")) {
            EXPECT_LE(fm.horizontalAdvance(label), slot - 2) << label.toStdString();
        }
    }
}

TEST(MemoryChartRenderer, ReadsTheReportStages)
{
    const core::Report r = evaluateConfig(8, 8, 8, 1, 64);
    ASSERT_TRUE(r.valid);
    const auto chart = MemoryChartRenderer::fromReport(r);
    ASSERT_EQ(chart.bars().size(), r.stages.size());
    EXPECT_NEAR(chart.bars()[0].total(), r.stages[0].totalBytes(), 1);
    EXPECT_DOUBLE_EQ(chart.hbmBytes(), r.hbmBytes);
}
