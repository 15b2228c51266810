#include "ui/ClusterLayout.h"

#include <algorithm>
#include <cmath>

namespace parallax::ui {

int ClusterLayout::domainColumns(int gpus)
{
    if (gpus <= 16)
        return std::max(1, gpus);
    return static_cast<int>(std::ceil(std::sqrt(2.0 * gpus)));
}

ClusterLayout ClusterLayout::compute(const std::vector<int>& gpusPerDomain, QSizeF available, const Options& o)
{
    ClusterLayout l;
    const int n = static_cast<int>(gpusPerDomain.size());
    if (n == 0)
        return l;
    const double w = std::max(50.0, available.width());
    const double h = std::max(50.0, available.height());
    const double fixed = 2 * o.domainPadding + o.domainGap;

    // Candidates: domains folded into 1 or 2 times as many rows (an 8-GPU node as 8x1 or 4x2),
    // times the number of domain slots per row; with or without domain labels. The largest cell
    // wins; labels are kept when they cost less than a quarter of the cell size.
    struct Choice {
        double cell = -1;
        int fold = 1;
        int slots = 1;
        double header = 0;
    };
    auto columnsFor = [](int gpus, int fold) { return std::max(1, (domainColumns(gpus) + fold - 1) / fold); };
    Choice best;
    Choice bestWithHeader;
    for (int fold : { 1, 2 }) {
        int maxCols = 1;
        int maxRows = 1;
        bool sensible = true;
        for (int g : gpusPerDomain) {
            const int cols = columnsFor(g, fold);
            sensible = sensible && (fold == 1 || cols >= 2);
            maxCols = std::max(maxCols, cols);
            maxRows = std::max(maxRows, (std::max(1, g) + cols - 1) / cols);
        }
        if (!sensible)
            continue;
        for (int k = 1; k <= n; ++k) {
            const int rows = (n + k - 1) / k;
            for (double header : { 0.0, o.headerHeight }) {
                const double byWidth = (w / k - fixed) / maxCols;
                const double byHeight = (h / rows - fixed - header) / maxRows;
                const double c = std::min({ byWidth, byHeight, o.maxCellSize });
                if (header > 0 && maxCols * c < o.headerMinWidth)
                    continue; // a label would not fit ("node127")
                Choice& slot = header > 0 ? bestWithHeader : best;
                if (c > slot.cell + 0.5)
                    slot = { c, fold, k, header };
            }
        }
    }
    if (bestWithHeader.cell >= o.headerMinCellSize && bestWithHeader.cell >= 0.75 * best.cell)
        best = bestWithHeader;
    if (best.cell < o.minCellSize) {
        // Does not fit: smallest cells, folded, as many slots per row as the width allows; the view scrolls.
        best.cell = o.minCellSize;
        best.header = 0;
        best.fold = 1;
        int maxCols = 1;
        for (int g : gpusPerDomain)
            maxCols = std::max(maxCols, columnsFor(g, best.fold));
        best.slots = std::clamp(static_cast<int>(w / (maxCols * best.cell + fixed)), 1, n);
    }
    const double cell = std::floor(best.cell);
    int maxCols = 1;
    int maxRows = 1;
    for (int g : gpusPerDomain) {
        const int cols = columnsFor(g, best.fold);
        maxCols = std::max(maxCols, cols);
        maxRows = std::max(maxRows, (std::max(1, g) + cols - 1) / cols);
    }

    l.m_cellSize = cell;
    l.m_headerHeight = best.header;
    l.m_padding = o.domainPadding;
    l.m_slotColumns = best.slots;
    const double slotW = maxCols * cell + 2 * o.domainPadding;
    const double slotH = maxRows * cell + 2 * o.domainPadding + best.header;
    const int slotRows = (n + best.slots - 1) / best.slots;
    const double contentW = best.slots * slotW + (best.slots - 1) * o.domainGap;
    const double contentH = slotRows * slotH + (slotRows - 1) * o.domainGap;
    // Centre the drawing horizontally, keep it near the top.
    const double x0 = std::max(0.0, std::floor((w - contentW) / 2));
    const double y0 = 4;
    l.m_contentSize = QSizeF(std::max(w, contentW), std::max(h, contentH + 2 * y0));

    int gpu = 0;
    for (int d = 0; d < n; ++d) {
        const int g = std::max(0, gpusPerDomain[static_cast<std::size_t>(d)]);
        const int cols = columnsFor(g, best.fold);
        const int rows = (std::max(1, g) + cols - 1) / cols;
        const double sx = x0 + (d % best.slots) * (slotW + o.domainGap);
        const double sy = y0 + (d / best.slots) * (slotH + o.domainGap);
        // A smaller domain keeps its own size inside the slot (at least wide enough for a label).
        const QRectF box(sx, sy, std::max(cols * cell + 2 * o.domainPadding, std::min(slotW, 4 * cell)),
            rows * cell + 2 * o.domainPadding + best.header);
        l.m_domainRects.push_back(box);
        l.m_firstGpu.push_back(gpu);
        l.m_columns.push_back(cols);
        l.m_sizes.push_back(g);
        for (int i = 0; i < g; ++i, ++gpu) {
            const double cx = sx + o.domainPadding + (i % cols) * cell;
            const double cy = sy + o.domainPadding + best.header + (i / cols) * cell;
            l.m_cellRects.emplace_back(cx, cy, cell, cell);
            l.m_domainOfGpu.push_back(d);
        }
    }
    return l;
}

QRectF ClusterLayout::headerRect(int domain) const
{
    const QRectF box = domainRect(domain);
    return QRectF(box.left() + m_padding, box.top() + 1, box.width() - 2 * m_padding, m_headerHeight);
}

int ClusterLayout::neighbour(int gpu, int dx, int dy) const
{
    const int d = domainOfGpu(gpu);
    const int cols = m_columns[static_cast<std::size_t>(d)];
    const int size = m_sizes[static_cast<std::size_t>(d)];
    const int i = gpu - m_firstGpu[static_cast<std::size_t>(d)];
    const int x = i % cols + dx;
    const int y = i / cols + dy;
    if (x < 0 || x >= cols || y < 0)
        return -1;
    const int j = y * cols + x;
    return j < size ? m_firstGpu[static_cast<std::size_t>(d)] + j : -1;
}

int ClusterLayout::domainAt(QPointF p) const
{
    for (int d = 0; d < domainCount(); ++d) {
        if (m_domainRects[static_cast<std::size_t>(d)].contains(p))
            return d;
    }
    return -1;
}

int ClusterLayout::gpuAt(QPointF p) const
{
    const int d = domainAt(p);
    if (d < 0 || m_cellSize <= 0 || m_sizes[static_cast<std::size_t>(d)] == 0)
        return -1;
    const QRectF first = m_cellRects[static_cast<std::size_t>(m_firstGpu[static_cast<std::size_t>(d)])];
    const int cols = m_columns[static_cast<std::size_t>(d)];
    const int x = static_cast<int>(std::floor((p.x() - first.left()) / m_cellSize));
    const int y = static_cast<int>(std::floor((p.y() - first.top()) / m_cellSize));
    if (x < 0 || x >= cols || y < 0)
        return -1;
    const int i = y * cols + x;
    return i < m_sizes[static_cast<std::size_t>(d)] ? m_firstGpu[static_cast<std::size_t>(d)] + i : -1;
}

} // namespace parallax::ui
