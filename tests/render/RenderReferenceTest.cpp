// SPDX-License-Identifier: Apache-2.0
#include "RenderTestSupport.h"

#include "ui/render/Exporter.h"
#include "ui/render/GuiSession.h"

#include <QFile>
#include <gtest/gtest.h>

#include <cstdlib>

using namespace parallax;

// An offscreen render of a small fixed schedule (1F1B, p=4, m=8, uniform times) against a
// checked-in PNG. Fixed font (DejaVu Sans at pixel sizes), size and scale make it deterministic;
// the tolerance absorbs antialiasing differences between FreeType versions. After an intended
// change of the picture, rerun with PARALLAX_UPDATE_REFERENCE=1 and look at the new PNG.
TEST(RenderReference, Gantt1F1BMatchesTheCheckedInPicture)
{
    // Without DejaVu Sans every glyph differs (or is a box): say that rather than "pixels differ".
    ASSERT_TRUE(render::GuiSession::fontProblem().isEmpty()) << render::GuiSession::fontProblem().toStdString();
    render::TitleBlock title;
    title.title = QStringLiteral("1F1B");
    title.chart = QStringLiteral("p=4, m=8, uniform op times");
    title.figures.push_back({ QStringLiteral("bubble"), QStringLiteral("27.3%") });
    const render::Picture picture
        = render::ganttPicture(render::test::uniformModel(core::ScheduleKind::OneFOneB, 4, 8), title, 900);
    const QImage actual = render::renderImage(picture, 1);
    const QString reference = QStringLiteral(PARALLAX_RENDER_REFERENCE_DIR "/gantt-1f1b-p4-m8.png");
    actual.save(render::test::outputPath(QStringLiteral("gantt-1f1b-p4-m8.actual.png")));
    if (qEnvironmentVariable("PARALLAX_UPDATE_REFERENCE") == QStringLiteral("1")) {
        ASSERT_TRUE(actual.save(reference));
        GTEST_SKIP() << "reference rewritten: " << reference.toStdString();
    }
    ASSERT_TRUE(QFile::exists(reference))
        << "missing " << reference.toStdString() << "; run with PARALLAX_UPDATE_REFERENCE=1 to create it";
    const QImage expected = QImage(reference).convertToFormat(QImage::Format_RGB32);
    ASSERT_EQ(actual.size(), expected.size());

    constexpr int kChannelTolerance = 40; // per channel, 0..255
    constexpr double kMaxDifferingFraction = 0.005; // of all pixels
    QImage diff(actual.size(), QImage::Format_RGB32);
    diff.fill(Qt::white);
    long differing = 0;
    for (int y = 0; y < actual.height(); ++y) {
        for (int x = 0; x < actual.width(); ++x) {
            const QRgb a = actual.pixel(x, y), e = expected.pixel(x, y);
            const int d = std::max(
                { std::abs(qRed(a) - qRed(e)), std::abs(qGreen(a) - qGreen(e)), std::abs(qBlue(a) - qBlue(e)) });
            if (d > kChannelTolerance) {
                ++differing;
                diff.setPixel(x, y, qRgb(255, 0, 0));
            }
        }
    }
    const double fraction = static_cast<double>(differing) / (actual.width() * actual.height());
    if (fraction > kMaxDifferingFraction)
        diff.save(render::test::outputPath(QStringLiteral("gantt-1f1b-p4-m8.diff.png")));
    EXPECT_LE(fraction, kMaxDifferingFraction)
        << differing << " pixels differ; see "
        << render::test::outputPath(QStringLiteral("gantt-1f1b-p4-m8.diff.png")).toStdString();
}
