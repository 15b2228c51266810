// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/Scenario.h"
#include "core/report/Report.h"

#include <QRectF>
#include <QString>
#include <QStringList>
#include <utility>
#include <vector>

class QPainter;

namespace parallax::render {

// The header every exported picture carries so that it stands alone in a design review: what
// (scenario, chart), on what (model, cluster), how (configuration), and the headline figures
// (bubble, step time, ...), in the words of the Markdown report (core/ReportMarkdown).
class TitleBlock {
public:
    QString title; // the scenario
    QString chart; // "pipeline schedule", "rank map: TP groups", "memory per GPU"
    QStringList lines; // model, cluster, configuration
    struct Figure {
        QString caption; // "bubble"
        QString value; // "12.3%"
        bool alarm = false; // drawn in the problem color (over HBM, invalid)
    };
    std::vector<Figure> figures;

    static TitleBlock forReport(const core::Scenario& scenario, const core::Report& report, const QString& chart);

    double height(double width) const;
    void paint(QPainter& painter, const QRectF& rect) const;

private:
    double figuresWidth() const;
};

} // namespace parallax::render
