// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/cluster/RankMap.h"
#include "core/cluster/Topology.h"

#include <QColor>
#include <QPointF>
#include <QRectF>
#include <QSizeF>
#include <QString>
#include <vector>

class QPainter;

namespace parallax::render {

class SvgAnnotations;

// The rank map: every GPU a cell inside its NVLink domain, domains in a compact grid, cells
// colored by their group (or their position in it) in one parallel dimension, and the members of
// groups that leave their NVLink domain outlined with a dash: red for TP, CP, EP and expert TP
// (the cardinal warning: "TP crosses IB"), grey for PP and DP, which span domains by design.
// Legible from one HGX node (large cells with rank and coordinate) to 1024 GPUs (small cells).
class RankMapRenderer {
public:
    enum class ColorBy {
        Group, // which group of `dim` (TP: one color per TP group)
        Position, // coordinate inside the group (PP: one color per pipeline stage)
    };

    struct Options {
        core::Dim dim = core::Dim::Tp;
        ColorBy colorBy = ColorBy::Group;
        int hoveredGpu = -1;
        bool showLegend = true;
    };

    struct Layout {
        QRectF area;
        QRectF grid; // domains
        QRectF legend;
        double cellSize = 0;
        bool headers = false; // domain names above the cells
        std::vector<QRectF> domains; // box of each domain
        std::vector<QRectF> cells; // one per GPU, in topology order
        int gpuAt(QPointF point) const; // -1 outside every cell
    };

    RankMapRenderer(core::RankMap rankMap, core::Topology topology);

    const core::RankMap& rankMap() const { return m_rankMap; }
    int gpuCount() const { return static_cast<int>(m_domainOfGpu.size()); }
    int rankOfGpu(int gpu) const { return gpu < m_rankMap.worldSize() ? gpu : -1; } // rank r runs on GPU r

    static QString dimName(core::Dim dim); // "TP"
    static int coordinate(const core::RankCoords& c, core::Dim dim);
    // The usual coloring of a dimension: by stage for PP, by group otherwise.
    static ColorBy defaultColorBy(core::Dim dim);

    // The largest cells that fit `area` (up to 64 px), domains packed in a grid.
    Layout layout(const QRectF& area, const Options& options) const;
    // Height a picture of `width` needs, cells between 14 and 64 px when they fit in `maxHeight`.
    double preferredHeight(double width, const Options& options, double maxHeight = 900) const;

    void paint(QPainter& painter, const Layout& layout, const Options& options) const;
    QString toolTip(const Layout& layout, QPointF point, const Options& options) const;
    QString gpuDescription(int gpu, const Options& options) const;
    // One <rect class="gpu"> per GPU, titled with its rank, coordinates and group.
    void annotate(SvgAnnotations& out, const Layout& layout, const Options& options) const;

    QColor cellColor(int gpu, const Options& options) const;
    bool crossesDomain(int gpu, core::Dim dim) const; // the GPU's group of `dim` spans domains

private:
    struct Grid {
        int innerColumns = 1;
        int innerRows = 1;
        int outerColumns = 1;
        int outerRows = 1;
        double cell = 0;
        bool headers = false;
    };
    Grid chooseGrid(double width, double height) const;
    double legendHeight(double width, const Options& options) const;
    double paintLegend(QPainter* painter, const QRectF& rect, const Options& options) const;
    int maxDomainSize() const;

    core::RankMap m_rankMap;
    core::Topology m_topology;
    std::vector<int> m_domainOfGpu;
    std::vector<int> m_indexInDomain;
};

} // namespace parallax::render
