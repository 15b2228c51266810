// SPDX-License-Identifier: Apache-2.0
#include "ui/render/SvgAnnotations.h"

namespace parallax::render {

namespace {
QByteArray escaped(const QString& s)
{
    return s.toHtmlEscaped().toUtf8();
}
QByteArray num(double v)
{
    return QByteArray::number(v, 'f', 2);
}
} // namespace

void SvgAnnotations::add(Item item)
{
    item.rect.translate(m_origin);
    m_items.push_back(std::move(item));
}

QByteArray SvgAnnotations::toSvgGroup() const
{
    QByteArray out;
    out.reserve(static_cast<qsizetype>(m_items.size()) * 160 + 200);
    out += "<g id=\"parallax-annotations\" fill=\"#000000\" fill-opacity=\"0\" stroke=\"none\">\n";
    for (const Item& it : m_items) {
        out += "<rect";
        if (!it.id.isEmpty())
            out += " id=\"" + escaped(it.id) + '"';
        if (!it.cssClass.isEmpty())
            out += " class=\"" + escaped(it.cssClass) + '"';
        out += " x=\"" + num(it.rect.x()) + "\" y=\"" + num(it.rect.y()) + "\" width=\"" + num(it.rect.width())
            + "\" height=\"" + num(it.rect.height()) + '"';
        for (const auto& [k, v] : it.data)
            out += " data-" + escaped(k) + "=\"" + escaped(v) + '"';
        if (it.title.isEmpty()) {
            out += "/>\n";
        } else {
            out += "><title>" + escaped(it.title) + "</title></rect>\n";
        }
    }
    out += "</g>\n";
    return out;
}

} // namespace parallax::render
