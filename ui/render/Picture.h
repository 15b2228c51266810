// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QSizeF>
#include <QString>
#include <functional>

class QPainter;

namespace parallax::render {

class SvgAnnotations;

// A finished picture: a size in logical pixels and the code that paints it into (0, 0, size).
// The exporters scale it (PNG), keep it vector (SVG, PDF) and, for SVG, add what `annotate` lists.
struct Picture {
    QSizeF size;
    std::function<void(QPainter&)> paint;
    std::function<void(SvgAnnotations&)> annotate; // optional
    QString title; // document metadata (SVG <title>, PDF title)
    QString description;
};

} // namespace parallax::render
