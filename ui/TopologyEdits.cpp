// SPDX-License-Identifier: Apache-2.0
#include "ui/TopologyEdits.h"

#include "core/io/PresetLibrary.h"

#include <QObject>
#include <algorithm>
#include <numeric>

namespace parallax::ui::edits {

namespace {
bool validDomain(const core::Topology& t, int d)
{
    return d >= 0 && d < static_cast<int>(t.domains.size());
}
bool validFabric(const core::Topology& t, int f)
{
    return f >= 0 && f < static_cast<int>(t.fabrics.size());
}

bool nameTaken(const core::Topology& t, const std::string& name, int exceptDomain, int exceptFabric)
{
    for (int d = 0; d < static_cast<int>(t.domains.size()); ++d) {
        if (d != exceptDomain && t.domains[d].name == name)
            return true;
    }
    for (int f = 0; f < static_cast<int>(t.fabrics.size()); ++f) {
        if (f != exceptFabric && t.fabrics[f].name == name)
            return true;
    }
    return false;
}

bool sameGpu(const core::GpuSpec& a, const core::GpuSpec& b)
{
    return a.id == b.id && a.name == b.name;
}
} // namespace

QString moveGpu(core::Topology& t, int fromDomain, int toDomain)
{
    if (!validDomain(t, fromDomain) || !validDomain(t, toDomain))
        return QObject::tr("no such NVLink domain");
    if (fromDomain == toDomain)
        return QObject::tr("the GPU is already in %1").arg(QString::fromStdString(t.domains[toDomain].name));
    const auto& from = t.domains[fromDomain];
    const auto& to = t.domains[toDomain];
    if (!sameGpu(from.gpu, to.gpu))
        return QObject::tr("%1 holds %2 GPUs; an NVLink domain holds one GPU type, not %3")
            .arg(QString::fromStdString(to.name), QString::fromStdString(to.gpu.name),
                QString::fromStdString(from.gpu.name));
    t.domains[toDomain].gpuCount += 1;
    removeGpu(t, fromDomain);
    return {};
}

QString addGpu(core::Topology& t, int domain, const core::GpuSpec& gpu)
{
    if (!validDomain(t, domain))
        return QObject::tr("no such NVLink domain");
    auto& d = t.domains[domain];
    if (!sameGpu(d.gpu, gpu))
        return QObject::tr("%1 holds %2 GPUs; an NVLink domain holds one GPU type, not %3")
            .arg(QString::fromStdString(d.name), QString::fromStdString(d.gpu.name), QString::fromStdString(gpu.name));
    d.gpuCount += 1;
    t.invalidate();
    return {};
}

void removeGpu(core::Topology& t, int domain)
{
    if (!validDomain(t, domain))
        return;
    if (--t.domains[domain].gpuCount <= 0)
        removeDomain(t, domain);
    t.invalidate();
}

int addDomain(core::Topology& t, const core::GpuSpec& gpu, int gpuCount, int fabric)
{
    core::NvlinkDomain d;
    d.name = uniqueDomainName(t).toStdString();
    d.gpu = gpu;
    d.gpuCount = std::max(1, gpuCount);
    t.domains.push_back(d);
    const int index = static_cast<int>(t.domains.size()) - 1;
    if (validFabric(t, fabric))
        t.fabrics[fabric].domains.push_back(index);
    t.invalidate();
    return index;
}

int addFabric(core::Topology& t, double nicGbps)
{
    core::Fabric f;
    for (int i = static_cast<int>(t.fabrics.size());; ++i) {
        f.name = "ib" + std::to_string(i);
        if (!nameTaken(t, f.name, -1, -1))
            break;
    }
    f.nicGbps = nicGbps;
    t.fabrics.push_back(f);
    return static_cast<int>(t.fabrics.size()) - 1;
}

void alsoAttachDomain(core::Topology& t, int domain, int fabric)
{
    if (!validDomain(t, domain) || !validFabric(t, fabric))
        return;
    auto& members = t.fabrics[fabric].domains;
    if (std::find(members.begin(), members.end(), domain) != members.end())
        return;
    // Keep members in rank order so that the file lists them as the editor draws them.
    members.insert(std::upper_bound(members.begin(), members.end(), domain), domain);
}

void leaveFabric(core::Topology& t, int domain, int fabric)
{
    if (!validDomain(t, domain) || !validFabric(t, fabric))
        return;
    auto& members = t.fabrics[fabric].domains;
    members.erase(std::remove(members.begin(), members.end(), domain), members.end());
}

void attachDomain(core::Topology& t, int domain, int fabric)
{
    if (!validDomain(t, domain))
        return;
    if (!validFabric(t, fabric)) {
        for (auto& f : t.fabrics)
            f.domains.erase(std::remove(f.domains.begin(), f.domains.end(), domain), f.domains.end());
        return;
    }
    leaveFabric(t, domain, t.fabricOfDomain(domain));
    alsoAttachDomain(t, domain, fabric);
}

void removeDomain(core::Topology& t, int domain)
{
    if (!validDomain(t, domain))
        return;
    t.domains.erase(t.domains.begin() + domain);
    for (auto& f : t.fabrics) {
        f.domains.erase(std::remove(f.domains.begin(), f.domains.end(), domain), f.domains.end());
        for (int& d : f.domains) {
            if (d > domain)
                --d;
        }
    }
    t.invalidate();
}

void removeFabric(core::Topology& t, int fabric)
{
    if (validFabric(t, fabric))
        t.fabrics.erase(t.fabrics.begin() + fabric);
}

QString renameDomain(core::Topology& t, int domain, const QString& name)
{
    const std::string n = name.trimmed().toStdString();
    if (!validDomain(t, domain))
        return QObject::tr("no such NVLink domain");
    if (n.empty())
        return QObject::tr("a name cannot be empty");
    if (nameTaken(t, n, domain, -1))
        return QObject::tr("\"%1\" is already used; names must be unique").arg(name.trimmed());
    t.domains[domain].name = n;
    return {};
}

QString renameFabric(core::Topology& t, int fabric, const QString& name)
{
    const std::string n = name.trimmed().toStdString();
    if (!validFabric(t, fabric))
        return QObject::tr("no such fabric");
    if (n.empty())
        return QObject::tr("a name cannot be empty");
    if (nameTaken(t, n, -1, fabric))
        return QObject::tr("\"%1\" is already used; names must be unique").arg(name.trimmed());
    t.fabrics[fabric].name = n;
    return {};
}

QString uniqueDomainName(const core::Topology& t)
{
    for (int i = static_cast<int>(t.domains.size());; ++i) {
        const std::string name = "node" + std::to_string(i);
        if (!nameTaken(t, name, -1, -1))
            return QString::fromStdString(name);
    }
}

core::Topology generateCluster(const core::GpuSpec& gpu, int nodes, int gpusPerNode, double nicGbps)
{
    return core::Topology::regular(gpu, std::max(1, nodes), std::max(1, gpusPerNode), nicGbps);
}

void normalizeCluster(core::Scenario& s)
{
    s.topology.invalidate();
    const core::Topology& t = s.topology;
    bool regular = !t.domains.empty() && t.fabrics.size() == 1 && t.fabrics.front().name == "ib0";
    if (regular) {
        const auto& d0 = t.domains.front();
        const auto& f = t.fabrics.front();
        std::vector<int> inOrder(t.domains.size());
        std::iota(inOrder.begin(), inOrder.end(), 0);
        regular = f.domains == inOrder;
        for (std::size_t i = 0; regular && i < t.domains.size(); ++i) {
            const auto& d = t.domains[i];
            regular = d.name == "node" + std::to_string(i) && d.gpuCount == d0.gpuCount && sameGpu(d.gpu, d0.gpu)
                && d.nvlinkBytesPerSecond == 0;
        }
    }
    s.regularCluster = regular;
    s.nodes = static_cast<int>(t.domains.size());
    s.gpusPerNode = t.domains.empty() ? 0 : t.domains.front().gpuCount;
    if (regular) {
        const auto& gpu = t.domains.front().gpu;
        const auto preset = core::PresetLibrary::instance().gpu(gpu.id);
        s.gpuPreset = preset && preset->name == gpu.name ? gpu.id : std::string();
    }
}

bool fitDataParallel(core::Scenario& s)
{
    const long long perReplica = static_cast<long long>(s.parallel.tp) * s.parallel.cp * s.parallel.pp;
    const int gpus = s.topology.gpuCount();
    if (perReplica <= 0 || gpus <= 0 || gpus % perReplica != 0)
        return false;
    const int dp = static_cast<int>(gpus / perReplica);
    if (dp == s.parallel.dp)
        return false;
    s.parallel.dp = dp;
    return true;
}

} // namespace parallax::ui::edits
