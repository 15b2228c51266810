// SPDX-License-Identifier: Apache-2.0
#include "ui/Format.h"

#include <QLocale>
#include <cmath>

namespace parallax::ui::format {

namespace {
// Three significant digits, at most two decimals: "71.3", "245", "1.25".
QString scaled(double value)
{
    const double a = std::abs(value);
    const int decimals = a >= 100 ? 0 : (a >= 10 ? 1 : 2);
    return QString::number(value, 'f', decimals);
}

QString withPrefix(double value, const char* unit)
{
    struct Prefix {
        double scale;
        const char* name;
    };
    static constexpr Prefix kPrefixes[]
        = { { 1e18, "E" }, { 1e15, "P" }, { 1e12, "T" }, { 1e9, "G" }, { 1e6, "M" }, { 1e3, "k" } };
    for (const auto& p : kPrefixes) {
        if (std::abs(value) >= p.scale)
            return scaled(value / p.scale) + QLatin1Char(' ') + QLatin1String(p.name) + QLatin1String(unit);
    }
    return scaled(value) + QLatin1Char(' ') + QLatin1String(unit);
}
} // namespace

QString bytes(double b)
{
    if (!std::isfinite(b))
        return QStringLiteral("–");
    constexpr double kKiB = 1024.0;
    constexpr double kMiB = kKiB * 1024.0;
    constexpr double kGiB = kMiB * 1024.0;
    if (std::abs(b) >= kGiB)
        return scaled(b / kGiB) + QStringLiteral(" GiB");
    if (std::abs(b) >= kMiB)
        return scaled(b / kMiB) + QStringLiteral(" MiB");
    if (std::abs(b) >= kKiB)
        return scaled(b / kKiB) + QStringLiteral(" KiB");
    return QString::number(b, 'f', 0) + QStringLiteral(" B");
}

QString seconds(double s)
{
    if (!std::isfinite(s))
        return QStringLiteral("–");
    const double a = std::abs(s);
    if (a >= 1.0 || a == 0.0)
        return scaled(s) + QStringLiteral(" s");
    if (a >= 1e-3)
        return scaled(s * 1e3) + QStringLiteral(" ms");
    if (a >= 1e-6)
        return scaled(s * 1e6) + QStringLiteral(" µs");
    return scaled(s * 1e9) + QStringLiteral(" ns");
}

QString percent(double fraction, int decimals)
{
    if (!std::isfinite(fraction))
        return QStringLiteral("–");
    return QString::number(fraction * 100.0, 'f', decimals) + QStringLiteral(" %");
}

QString flopsPerSecond(double flops)
{
    return withPrefix(flops, "FLOP/s");
}

QString bytesPerSecond(double bps)
{
    return withPrefix(bps, "B/s");
}

QString count(double n)
{
    const double a = std::abs(n);
    if (a >= 1e12)
        return scaled(n / 1e12) + QStringLiteral(" T");
    if (a >= 1e9)
        return scaled(n / 1e9) + QStringLiteral(" B");
    if (a >= 1e6)
        return scaled(n / 1e6) + QStringLiteral(" M");
    if (a >= 1e4)
        return scaled(n / 1e3) + QStringLiteral(" k");
    return QString::number(n, 'f', 0);
}

QString plural(int n, const QString& singular, const QString& pluralForm)
{
    return QString::number(n) + QLatin1Char(' ') + (n == 1 ? singular : pluralForm);
}

QString scheduleName(core::ScheduleKind k)
{
    switch (k) {
    case core::ScheduleKind::GPipe:
        return QStringLiteral("GPipe");
    case core::ScheduleKind::OneFOneB:
        return QStringLiteral("1F1B");
    case core::ScheduleKind::Interleaved1F1B:
        return QStringLiteral("Interleaved 1F1B");
    case core::ScheduleKind::ZbH1:
        return QStringLiteral("ZB-H1 (zero bubble)");
    case core::ScheduleKind::ZbH2:
        return QStringLiteral("ZB-H2 (zero bubble)");
    case core::ScheduleKind::ZbV:
        return QStringLiteral("ZB-V (zero bubble)");
    case core::ScheduleKind::DualPipe:
        return QStringLiteral("DualPipe");
    case core::ScheduleKind::DualPipeV:
        return QStringLiteral("DualPipeV");
    }
    return {};
}

QString gpuShortName(const QString& name)
{
    QString s = name;
    const int paren = s.indexOf(QLatin1String(" ("));
    if (paren > 0)
        s.truncate(paren);
    for (const char* prefix : { "NVIDIA ", "AMD Instinct ", "AMD ", "Intel " }) {
        if (s.startsWith(QLatin1String(prefix)))
            s.remove(0, static_cast<int>(qstrlen(prefix)));
    }
    return s.trimmed().isEmpty() ? name : s.trimmed();
}

QString number(double value, int significant)
{
    return QString::number(value, 'g', significant);
}

} // namespace parallax::ui::format
