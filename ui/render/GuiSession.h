// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QString>
#include <memory>

class QGuiApplication;

namespace parallax::render {

// Painting text needs a QGuiApplication (fonts come from the platform plugin). A headless tool
// creates one for the duration of a command: on the offscreen platform unless QT_QPA_PLATFORM
// says otherwise, so no display is needed. Does nothing when an application already exists.
class GuiSession {
public:
    GuiSession();
    ~GuiSession();
    GuiSession(const GuiSession&) = delete;
    GuiSession& operator=(const GuiSession&) = delete;

    // Non-empty when DejaVu Sans, the font every picture uses, is not installed (glyphs would
    // fall back to another font, or to empty boxes when there is none: install fonts-dejavu-core).
    static QString fontProblem();

private:
    int m_argc = 1;
    char m_name[16] = "parallax-cli";
    char* m_argv[2] = { m_name, nullptr };
    std::unique_ptr<QGuiApplication> m_app;
};

} // namespace parallax::render
