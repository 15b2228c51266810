// SPDX-License-Identifier: Apache-2.0
#include "CliArgs.h"
#include "Commands.h"

#include "core/launch/RankGroups.h"
#include "core/launch/RankGroupsJson.h"

#include <iostream>
#include <sstream>

namespace parallax::cli {

namespace {
// "24-31" for consecutive ranks, "0,8,...,56 (every 8th)" for an even stride, else the list.
std::string rankList(const std::vector<int>& ranks)
{
    std::ostringstream s;
    if (ranks.size() == 1) {
        s << ranks.front();
        return s.str();
    }
    const int stride = ranks[1] - ranks[0];
    bool even = stride > 0;
    for (std::size_t i = 1; i < ranks.size() && even; ++i)
        even = ranks[i] - ranks[i - 1] == stride;
    if (even && stride == 1) {
        s << ranks.front() << "-" << ranks.back();
    } else if (even && ranks.size() > 3) {
        s << ranks[0] << "," << ranks[1] << ",...," << ranks.back() << " (every " << stride << ")";
    } else {
        for (std::size_t i = 0; i < ranks.size(); ++i)
            s << (i ? "," : "") << ranks[i];
    }
    return s.str();
}

// "on node3", "on node0-node7 (8 domains)": where the group's GPUs sit.
std::string placement(const std::vector<int>& ranks, const core::Topology& topology)
{
    const int gpus = topology.gpuCount();
    int first = -1, last = -1;
    for (int r : ranks) {
        if (r >= gpus)
            return "beyond the topology's " + std::to_string(gpus) + " GPUs";
        const int d = topology.domainOf(r);
        first = first < 0 ? d : std::min(first, d);
        last = std::max(last, d);
    }
    const auto& domains = topology.domains;
    if (first == last)
        return "on " + domains[static_cast<std::size_t>(first)].name;
    int distinct = 0;
    std::vector<bool> seen(domains.size(), false);
    for (int r : ranks) {
        const auto d = static_cast<std::size_t>(topology.domainOf(r));
        distinct += !seen[d];
        seen[d] = true;
    }
    return "across " + domains[static_cast<std::size_t>(first)].name + ".."
        + domains[static_cast<std::size_t>(last)].name + " (" + std::to_string(distinct) + " domains, crosses IB)";
}

std::string upper(std::string s)
{
    for (char& c : s)
        c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return s;
}
} // namespace

int runRanks(const std::vector<std::string>& argv)
{
    const Args args(argv, { "json", "all" });
    std::vector<std::string> known = scenarioFlagNames();
    known.insert(known.end(), { "json", "dim", "all", "limit" });
    args.allowOnly(known);
    std::vector<core::RankGroups::Kind> kinds;
    if (args.has("dim")) {
        const auto k = core::RankGroups::parseKind(args.value("dim"));
        if (!k)
            throw UsageError(
                "--dim: unknown dimension \"" + args.value("dim") + "\"; use tp, cp, dp, pp, ep, etp, edp or dp-cp");
        kinds.push_back(*k);
    } else {
        for (int k = 0; k < core::RankGroups::KindCount; ++k)
            kinds.push_back(static_cast<core::RankGroups::Kind>(k));
    }
    const int limit = args.has("all") ? 1 << 30 : args.integer("limit", 8, 1, 1 << 30);
    const core::Scenario scenario = scenarioFromArgs(args);
    std::string error;
    const auto groups = core::RankGroups::build(scenario.parallel, scenario.model.isMoe(), error);
    if (!groups) {
        std::cerr << "parallax-cli ranks: " << error << "\n";
        return kExitInvalidConfig;
    }
    if (groups->worldSize() != scenario.topology.gpuCount())
        std::cerr << "parallax-cli ranks: warning: the layout has " << groups->worldSize() << " ranks but the cluster "
                  << scenario.topology.gpuCount() << " GPUs\n";
    if (args.has("json")) {
        nlohmann::json j { { "world_size", groups->worldSize() } };
        const nlohmann::json all = core::rankGroupsJson(*groups);
        if (args.has("dim")) {
            j["groups"][core::RankGroups::name(kinds.front())] = all[core::RankGroups::name(kinds.front())];
        } else {
            j["groups"] = all;
        }
        j["ranks"] = core::rankPlacementJson(*groups, scenario.topology);
        std::cout << j.dump(2) << "\n";
        return kExitOk;
    }
    const auto& p = scenario.parallel;
    std::cout << scenario.name << ": " << groups->worldSize() << " ranks, order " << p.order << "\n"
              << "  dense  tp=" << p.tp << " cp=" << p.cp << " dp=" << p.dp << " pp=" << p.pp << "\n"
              << "  expert etp=" << groups->expertTensorParallelSize() << " ep=" << (scenario.model.isMoe() ? p.ep : 1)
              << " edp=" << groups->expertDataParallelSize() << " pp=" << p.pp << "\n";
    for (const auto kind : kinds) {
        const auto& list = groups->groups(kind);
        const std::string label = upper(core::RankGroups::name(kind));
        std::cout << "\n" << label << " groups: " << list.size() << " of " << list.front().size() << " ranks\n";
        const int shown = std::min<int>(limit, static_cast<int>(list.size()));
        for (int i = 0; i < shown; ++i)
            std::cout << "  " << label << " group " << i
                      << (list[static_cast<std::size_t>(i)].size() == 1 ? ": rank " : ": ranks ")
                      << rankList(list[static_cast<std::size_t>(i)]) << " "
                      << placement(list[static_cast<std::size_t>(i)], scenario.topology) << "\n";
        if (shown < static_cast<int>(list.size()))
            std::cout << "  ... " << list.size() - static_cast<std::size_t>(shown)
                      << " more (--all or --limit N to list them)\n";
    }
    return kExitOk;
}

} // namespace parallax::cli
