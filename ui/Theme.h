// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QColor>

class QApplication;

// Colors shared by every view and export. Group fills come from Paul Tol's "light" qualitative
// scheme (https://personal.sron.nl/~pault/, colour-blind safe, dark text stays legible on it);
// problems use Tol's "vibrant" red plus a dash pattern so that color is never the only cue.
namespace parallax::ui::theme {

int groupColorCount();
QColor groupColor(int index); // cycles through the scheme
QColor problemColor(); // groups that leave their NVLink domain, over-capacity memory
QColor warningColor(); // amber, warnings
QColor okColor();
QColor gpuTypeColor(int typeIndex); // GPU types in the topology editor (index in the GPU presets)

bool isDark(); // whether the application palette is dark
void applyPalette(QApplication& app, bool dark); // Fusion style with a light or dark palette

} // namespace parallax::ui::theme
