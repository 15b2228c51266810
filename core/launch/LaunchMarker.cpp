// SPDX-License-Identifier: Apache-2.0
#include "core/launch/LaunchMarker.h"

#include "core/launch/LaunchHosts.h"

#include <cmath>
#include <sstream>

namespace parallax::core {

std::vector<std::string> LaunchMarker::lines(const Scenario& s, const std::string& comment)
{
    std::ostringstream m;
    m << comment << " parallax-scenario:";
    const bool regular = s.regularCluster && s.topology.fabrics.size() <= 1 && !s.topology.domains.empty();
    if (!regular)
        m << " topology=explicit";
    if (!s.gpuPreset.empty())
        m << " gpu=" << s.gpuPreset;
    // A rack-scale domain launches per host: the import rebuilds the domain from this.
    if (const LaunchHosts h = launchHosts(s.topology); h.domainSpansHosts())
        m << " gpus_per_domain=" << h.gpusPerDomain;
    if (!s.topology.fabrics.empty()) {
        const Fabric& f = s.topology.fabrics.front();
        m << " nic_gbps=" << f.nicGbps;
        if (f.nicsPerDomain > 0)
            m << " nics_per_node=" << f.nicsPerDomain;
        // Compared with a tolerance: the reader's microseconds-to-seconds product is not bit-exact.
        if (std::fabs(f.latencySeconds - Fabric {}.latencySeconds) > 1e-12)
            m << " latency_us=" << f.latencySeconds * 1e6;
        if (f.oversubscription != 1.0)
            m << " oversubscription=" << f.oversubscription;
        if (!f.railOptimized)
            m << " rail_optimized=false";
    }
    m << " schedule=" << toString(s.parallel.schedule) << " zero=" << s.parallel.zero << " order=" << s.parallel.order;
    if (!s.modelPreset.empty())
        m << " model=" << s.modelPreset;
    if (s.training.deepseekActivationCache) // no framework flag carries it (MegatronArgsWriter's NOTE)
        m << " deepseek_activation_cache=true";
    if (s.training.deepseekFp8Dispatch) // no framework flag carries it either
        m << " deepseek_fp8_dispatch=true";
    std::vector<std::string> out { comment + " parallax-name: " + oneLine(s.name), oneLine(m.str()) };
    if (!regular)
        out.push_back(comment
            + " NOTE: this scenario has an explicit topology (domains and fabrics); a launch configuration cannot "
              "carry it, so an import rebuilds a regular cluster of the first domain's size");
    return out;
}

std::map<std::string, std::string> LaunchMarker::parse(const std::string& text)
{
    std::map<std::string, std::string> out;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        const auto name = line.find("parallax-name:");
        if (name != std::string::npos) {
            std::string v = line.substr(name + 14);
            const auto b = v.find_first_not_of(' ');
            out["name"] = b == std::string::npos ? "" : v.substr(b);
            continue;
        }
        const auto at = line.find("parallax-scenario:");
        if (at == std::string::npos)
            continue;
        std::istringstream words(line.substr(at + 18));
        std::string w;
        while (words >> w) {
            const auto eq = w.find('=');
            if (eq != std::string::npos)
                out[w.substr(0, eq)] = w.substr(eq + 1);
        }
    }
    return out;
}

std::string LaunchMarker::serialBlockNote(const std::string& framework)
{
    return "# NOTE: " + framework
        + " has no parallel attention + MLP block (model.parallel_block): its layers run attention then MLP, with two "
          "TP reductions per layer; the estimate assumes one";
}

std::string LaunchMarker::oneLine(const std::string& text)
{
    std::string out = text;
    for (char& c : out) {
        const auto u = static_cast<unsigned char>(c);
        if (u < 0x20 || u == 0x7f)
            c = ' ';
    }
    return out;
}

} // namespace parallax::core
