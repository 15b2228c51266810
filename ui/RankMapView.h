#pragma once

#include "ui/RankMapRenderer.h"

#include <QWidget>
#include <functional>

class QComboBox;
class QLabel;
class QScrollArea;

namespace parallax::ui {

class RankMapCanvas;

// The "Rank map" tab: dimension and coloring pickers, the problems banner, the map, its legend.
// Hover a cell for its rank and coordinates; click a cell to highlight its group (again to clear).
class RankMapView : public QWidget {
public:
    explicit RankMapView(QWidget* parent = nullptr);
    ~RankMapView() override;

    void setEvaluation(EvaluationPtr evaluation);
    void setDimension(core::Dim dim);
    core::Dim dimension() const { return m_style.dim; }
    void setColorBy(RankMapRenderer::ColorBy colorBy);

    // A click on a GPU cell (also the test entry point): selects its group, or clears the selection.
    void clickGpu(int gpu);
    int selectedGroup() const { return m_style.selectedGroup; }
    // Called with the GPUs of the selected group (empty when cleared), to highlight them elsewhere.
    void setHighlightCallback(std::function<void(const std::vector<int>&)> callback);

    const RankMapRenderer& renderer() const { return m_renderer; }
    const RankMapRenderer::Style& style() const { return m_style; }
    QStringList problemLines() const;
    QWidget* canvas() const;
    // The map with a title and its legend, light colors, as .svg or .png (2x); false and `error` on failure.
    bool exportTo(const QString& path, QString* error) const;

private:
    friend class RankMapCanvas;
    void refresh();
    void selectionChanged();
    void updateStyleColors();
    void changeEvent(QEvent* event) override;

    RankMapRenderer m_renderer;
    RankMapRenderer::Style m_style;
    QComboBox* m_dimCombo = nullptr;
    QComboBox* m_colorCombo = nullptr;
    QLabel* m_summary = nullptr;
    QLabel* m_banner = nullptr;
    QLabel* m_legend = nullptr;
    QScrollArea* m_scroll = nullptr;
    RankMapCanvas* m_canvas = nullptr;
    std::function<void(const std::vector<int>&)> m_highlight;
};

} // namespace parallax::ui
