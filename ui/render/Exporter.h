// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "ui/render/Picture.h"

#include <QByteArray>
#include <QImage>
#include <QString>
#include <optional>

namespace parallax::render {

enum class ExportFormat { Svg, Png, Pdf };

// The format of a path from its extension (case-insensitive): .svg, .png, .pdf; nullopt otherwise.
std::optional<ExportFormat> exportFormatFor(const QString& path);
QString exportFormatList(); // ".svg, .png or .pdf", for messages

// Empty when `path` can be written (its folder exists and is writable, and the file, if it
// exists, is writable); otherwise why not, naming the path.
QString checkWritable(const QString& path);

// The picture in each format. PNG: size x scale device pixels (scale 2 for a crisp slide);
// SVG: the painted picture plus the annotation layer; PDF: one page of the picture's size.
QImage renderImage(const Picture& picture, double scale = 1);
QByteArray renderSvg(const Picture& picture);
QByteArray renderPdf(const Picture& picture);
QByteArray encodePng(const QImage& image);

// Renders in the format of the extension and writes atomically. False with `error` set on an
// unknown extension, an unwritable path or a failed write.
bool exportPicture(const Picture& picture, const QString& path, double scale, QString* error);
// Atomic write of any bytes (QSaveFile); false with `error` set.
bool writeFile(const QString& path, const QByteArray& bytes, QString* error);

} // namespace parallax::render
