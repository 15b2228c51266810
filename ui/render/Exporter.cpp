// SPDX-License-Identifier: Apache-2.0
#include "ui/render/Exporter.h"

#include "ui/render/RenderStyle.h"

#include "ui/render/SvgAnnotations.h"

#include <QBuffer>
#include <QDir>
#include <QFileInfo>
#include <QPageLayout>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QSaveFile>
#include <QSvgGenerator>
#include <cmath>

namespace parallax::render {

namespace {
constexpr double kLogicalDpi = 96; // one logical pixel = 1/96 inch, as on a standard screen

QSize deviceSize(QSizeF size, double scale)
{
    return QSize(std::max(1, static_cast<int>(std::lround(size.width() * scale))),
        std::max(1, static_cast<int>(std::lround(size.height() * scale))));
}
} // namespace

std::optional<ExportFormat> exportFormatFor(const QString& path)
{
    const QString ext = QFileInfo(path).suffix().toLower();
    if (ext == QStringLiteral("svg"))
        return ExportFormat::Svg;
    if (ext == QStringLiteral("png"))
        return ExportFormat::Png;
    if (ext == QStringLiteral("pdf"))
        return ExportFormat::Pdf;
    return std::nullopt;
}

QString exportFormatList()
{
    return QStringLiteral(".svg, .png or .pdf");
}

QString checkWritable(const QString& path)
{
    const QFileInfo info(path);
    if (info.fileName().isEmpty())
        return QStringLiteral("cannot write \"%1\": not a file name").arg(path);
    if (info.exists() && info.isDir())
        return QStringLiteral("cannot write \"%1\": it is a folder").arg(path);
    const QFileInfo dir(info.absolutePath());
    if (!dir.exists() || !dir.isDir())
        return QStringLiteral("cannot write \"%1\": the folder \"%2\" does not exist").arg(path, info.path());
    if (!dir.isWritable())
        return QStringLiteral("cannot write \"%1\": the folder \"%2\" is not writable").arg(path, info.path());
    if (info.exists() && !info.isWritable())
        return QStringLiteral("cannot write \"%1\": the file is read-only").arg(path);
    return {};
}

QImage renderImage(const Picture& picture, double scale)
{
    const style::ScopedLightScheme light; // a review document does not follow the screen's theme
    if (!(scale > 0))
        scale = 1;
    QImage image(deviceSize(picture.size, scale), QImage::Format_ARGB32_Premultiplied);
    image.setDevicePixelRatio(scale);
    const int dpm = static_cast<int>(std::lround(kLogicalDpi * scale / 0.0254));
    image.setDotsPerMeterX(dpm);
    image.setDotsPerMeterY(dpm);
    image.fill(Qt::white);
    QPainter painter(&image);
    painter.setRenderHint(QPainter::TextAntialiasing, true);
    if (picture.paint)
        picture.paint(painter);
    painter.end();
    return image.convertToFormat(QImage::Format_RGB32);
}

QByteArray encodePng(const QImage& image)
{
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    image.save(&buffer, "PNG");
    return bytes;
}

QByteArray renderSvg(const Picture& picture)
{
    const style::ScopedLightScheme light; // a review document does not follow the screen's theme
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    QSvgGenerator generator;
    generator.setOutputDevice(&buffer);
    generator.setSize(deviceSize(picture.size, 1));
    generator.setViewBox(QRectF(QPointF(0, 0), picture.size));
    generator.setResolution(static_cast<int>(kLogicalDpi));
    generator.setTitle(picture.title);
    generator.setDescription(picture.description);
    {
        QPainter painter(&generator);
        if (picture.paint)
            picture.paint(painter);
    }
    buffer.close();
    if (picture.annotate) {
        SvgAnnotations annotations;
        picture.annotate(annotations);
        const qsizetype end = bytes.lastIndexOf("</svg>");
        if (end >= 0 && !annotations.isEmpty())
            bytes.insert(end, annotations.toSvgGroup());
    }
    return bytes;
}

QByteArray renderPdf(const Picture& picture)
{
    const style::ScopedLightScheme light; // a review document does not follow the screen's theme
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    {
        QPdfWriter writer(&buffer);
        writer.setTitle(picture.title);
        writer.setCreator(QStringLiteral("Parallax"));
        writer.setResolution(static_cast<int>(kLogicalDpi));
        // One page of exactly the picture's size: 96 logical pixels per inch, 72 points per inch.
        const QSizeF points = picture.size * (72.0 / kLogicalDpi);
        writer.setPageLayout(QPageLayout(QPageSize(points, QPageSize::Point, QString(), QPageSize::ExactMatch),
            QPageLayout::Portrait, QMarginsF(0, 0, 0, 0)));
        QPainter painter(&writer);
        // The device may round the page to whole units; fit the picture to it.
        const double sx = painter.device()->width() / picture.size.width();
        const double sy = painter.device()->height() / picture.size.height();
        painter.scale(std::min(sx, sy), std::min(sx, sy));
        if (picture.paint)
            picture.paint(painter);
    }
    buffer.close();
    return bytes;
}

bool writeFile(const QString& path, const QByteArray& bytes, QString* error)
{
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) {
        if (error)
            *error = QStringLiteral("cannot write \"%1\": %2").arg(path, file.errorString());
        return false;
    }
    file.write(bytes);
    if (!file.commit()) {
        if (error)
            *error = QStringLiteral("cannot write \"%1\": %2").arg(path, file.errorString());
        return false;
    }
    return true;
}

bool exportPicture(const Picture& picture, const QString& path, double scale, QString* error)
{
    const auto format = exportFormatFor(path);
    if (!format) {
        if (error)
            *error = QStringLiteral("\"%1\": unknown format \"%2\"; use %3")
                         .arg(path,
                             QFileInfo(path).suffix().isEmpty() ? QStringLiteral("(no extension)")
                                                                : u'.' + QFileInfo(path).suffix(),
                             exportFormatList());
        return false;
    }
    if (const QString problem = checkWritable(path); !problem.isEmpty()) {
        if (error)
            *error = problem;
        return false;
    }
    QByteArray bytes;
    switch (*format) {
    case ExportFormat::Svg:
        bytes = renderSvg(picture);
        break;
    case ExportFormat::Png:
        bytes = encodePng(renderImage(picture, scale));
        break;
    case ExportFormat::Pdf:
        bytes = renderPdf(picture);
        break;
    }
    if (bytes.isEmpty()) {
        if (error)
            *error = QStringLiteral("rendering \"%1\" failed").arg(path);
        return false;
    }
    return writeFile(path, bytes, error);
}

} // namespace parallax::render
