// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "ui/RankMapInfo.h"
#include "ui/render/Picture.h"
#include "ui/render/RankMapRenderer.h"

#include <QWidget>
#include <functional>
#include <memory>
#include <optional>

class QComboBox;
class QLabel;
class QLineEdit;
class QScrollArea;

namespace parallax::ui {

class ElidedLabel;
class GpuDetailPanel;
class RankMapCanvas;

// The "Rank map" tab: dimension and coloring pickers, the problems banner, and the map with its
// legend, painted by render::RankMapRenderer (the same code as the exports). Hover a cell for its
// rank and coordinates (its group is outlined); click a cell to highlight its group (again to clear)
// and to show the GPU in the detail panel beside the map. At scale (1024 to 16,384 GPUs) the map
// zooms (Ctrl+wheel, the +/- buttons) and pans (scroll bars, wheel), cells gaining their labels as
// they grow; the search box finds "rank 517", "gpu 12" or a domain ("node77").
class RankMapView : public QWidget {
public:
    using ColorBy = render::RankMapRenderer::ColorBy;

    explicit RankMapView(QWidget* parent = nullptr);
    ~RankMapView() override;

    void setEvaluation(EvaluationPtr evaluation);
    void setDimension(core::Dim dim);
    core::Dim dimension() const { return m_options.dim; }
    void setColorBy(ColorBy colorBy);
    const render::RankMapRenderer::Options& options() const { return m_options; }

    // A click on a GPU cell (also the test entry point): selects its group, or clears the selection.
    void clickGpu(int gpu);
    int selectedGroup() const { return m_selectedGroup; }
    // Called with the GPUs of the selected group (empty when cleared), to highlight them elsewhere.
    void setHighlightCallback(std::function<void(const std::vector<int>&)> callback);

    // Zoom over the fitted map: 1 fits the view, up to kMaxZoom. `anchor` (viewport coordinates)
    // keeps the point under it in place; none: the view's centre.
    static constexpr double kMaxZoom = 32;
    void setZoom(double zoom, std::optional<QPointF> anchor = std::nullopt);
    double zoom() const { return m_zoom; }
    // The search box's query: selects what it finds (shown outlined, scrolled into view, the first
    // GPU in the detail panel); false and a message beside the box when nothing matches.
    bool find(const QString& query);
    const std::vector<int>& foundGpus() const { return m_found; }
    GpuDetailPanel* detailPanel() const { return m_detail; }
    QScrollArea* scrollArea() const { return m_scroll; }
    // Called with a GPU clicked here, so that other views can show it too.
    void setGpuClickedCallback(std::function<void(int)> callback) { m_gpuClicked = std::move(callback); }
    void showGpuDetail(int gpu); // the detail panel only (a click in the topology editor)

    const RankMapInfo& info() const { return m_info; }
    // Null while there is no topology to draw.
    const render::RankMapRenderer* renderer() const { return m_renderer.get(); }
    const render::RankMapRenderer::Layout& mapLayout() const { return m_layout; }
    QRectF cellRect(int gpu) const; // in canvas coordinates
    QStringList problemLines() const;
    QWidget* canvas() const;

    // The map with a title block and its legend, as the exports draw it; nullopt without a map.
    std::optional<render::Picture> picture() const;
    // The picture as .svg, .png or .pdf; false and `error` on failure.
    bool exportTo(const QString& path, QString* error) const;

private:
    friend class RankMapCanvas;
    void refresh();
    void selectionChanged();

    RankMapInfo m_info;
    std::shared_ptr<const render::RankMapRenderer> m_renderer;
    render::RankMapRenderer::Options m_options;
    render::RankMapRenderer::Layout m_layout;
    int m_selectedGroup = -1;
    QComboBox* m_dimCombo = nullptr;
    QComboBox* m_colorCombo = nullptr;
    ElidedLabel* m_summary = nullptr;
    QLabel* m_banner = nullptr;
    QScrollArea* m_scroll = nullptr;
    RankMapCanvas* m_canvas = nullptr;
    std::function<void(const std::vector<int>&)> m_highlight;
    std::function<void(int)> m_gpuClicked;
    double m_zoom = 1;
    std::vector<int> m_found;
    QLineEdit* m_search = nullptr;
    QLabel* m_searchStatus = nullptr;
    GpuDetailPanel* m_detail = nullptr;
};

} // namespace parallax::ui
