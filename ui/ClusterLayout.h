#pragma once

#include <QPointF>
#include <QRectF>
#include <QSizeF>
#include <vector>

namespace parallax::ui {

// Geometry of a cluster drawn as NVLink-domain boxes of GPU cells, fitted to an area: the same
// math serves the rank map on screen and in exports, and is tested without a window. All domains
// share one slot size so that the grid reads like racks; the cell size is the largest that fits
// (clamped), and the content scrolls when even the smallest cells do not fit.
class ClusterLayout {
public:
    struct Options {
        double minCellSize = 7;
        double maxCellSize = 104;
        double domainPadding = 3;
        double domainGap = 8;
        double headerMinCellSize = 12; // domain labels only when cells are at least this big
        double headerHeight = 17;
        double headerMinWidth = 52;
    };

    ClusterLayout() = default;
    static ClusterLayout compute(const std::vector<int>& gpusPerDomain, QSizeF available, const Options& options);
    static ClusterLayout compute(const std::vector<int>& gpusPerDomain, QSizeF available)
    {
        return compute(gpusPerDomain, available, Options {});
    }
    // Cells per row inside a domain: one row up to 16 GPUs (HGX), near 2:1 blocks beyond (NVL72: 12 x 6).
    static int domainColumns(int gpus);

    int domainCount() const { return static_cast<int>(m_domainRects.size()); }
    int gpuCount() const { return static_cast<int>(m_cellRects.size()); }
    double cellSize() const { return m_cellSize; }
    bool hasHeaders() const { return m_headerHeight > 0; }
    QSizeF contentSize() const { return m_contentSize; }
    int slotColumns() const { return m_slotColumns; }

    QRectF domainRect(int domain) const { return m_domainRects[static_cast<std::size_t>(domain)]; }
    QRectF headerRect(int domain) const;
    QRectF cellRect(int gpu) const { return m_cellRects[static_cast<std::size_t>(gpu)]; }
    int domainOfGpu(int gpu) const { return m_domainOfGpu[static_cast<std::size_t>(gpu)]; }
    int firstGpuOfDomain(int domain) const { return m_firstGpu[static_cast<std::size_t>(domain)]; }
    // The GPU in the same domain one cell away (dx, dy in -1..1), or -1 at the domain's edge.
    int neighbour(int gpu, int dx, int dy) const;
    int gpuAt(QPointF point) const; // -1 outside every cell
    int domainAt(QPointF point) const;

private:
    double m_cellSize = 0;
    double m_headerHeight = 0;
    double m_padding = 0;
    int m_slotColumns = 1;
    QSizeF m_contentSize;
    std::vector<QRectF> m_domainRects;
    std::vector<QRectF> m_cellRects;
    std::vector<int> m_domainOfGpu;
    std::vector<int> m_firstGpu;
    std::vector<int> m_columns; // per domain
    std::vector<int> m_sizes; // per domain
};

} // namespace parallax::ui
