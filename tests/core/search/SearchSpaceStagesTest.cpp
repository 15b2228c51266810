// SPDX-License-Identifier: Apache-2.0
// The space holds every pipeline shape the validator accepts: up to two more model stages than
// layers (the first stage then holds only the embedding, the last only the LM head). Llama 3 405B
// has 126 layers, so PP=32 v=4 and ZB-V on PP=64 (128 model stages) are valid and in the space.
#include "core/Validation.h"
#include "core/search/SearchSpace.h"

#include "SearchTestSupport.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace parallax::core;
using parallax::test::searchScenario;

namespace {

bool offers(const std::vector<ScheduleChoice>& schedules, ScheduleKind kind, int vpp)
{
    return std::any_of(
        schedules.begin(), schedules.end(), [&](const ScheduleChoice& s) { return s.kind == kind && s.vpp == vpp; });
}

TEST(SearchSpaceStages, FollowTheValidatorsLimit)
{
    EXPECT_TRUE(stagesHoldLayers(126, 128));
    EXPECT_FALSE(stagesHoldLayers(126, 129));
    EXPECT_FALSE(stagesHoldLayers(1, 2)); // two stages need two layers
    const Scenario s = searchScenario("llama3-405b", 128, 8, 1024, 4096);
    const SearchSpace space(s);
    const std::vector<ScheduleChoice> pp32 = space.schedules(32, 1024);
    EXPECT_TRUE(offers(pp32, ScheduleKind::Interleaved1F1B, 4));
    EXPECT_FALSE(offers(pp32, ScheduleKind::Interleaved1F1B, 5)); // 160 stages
    EXPECT_TRUE(offers(space.schedules(64, 512), ScheduleKind::ZbV, 1));
    // Each point the space offers at this edge validates.
    SearchPoint interleaved { 2, 2, 32, 4, 8, 1, 1, 1, ScheduleKind::Interleaved1F1B, Recompute::Full, 0, 0 };
    EXPECT_TRUE(validateScenario(applyPoint(s, interleaved)).errors.empty());
    SearchPoint zbv { 2, 4, 64, 1, 2, 1, 1, 1, ScheduleKind::ZbV, Recompute::None, 0, 0 };
    EXPECT_TRUE(validateScenario(applyPoint(s, zbv)).errors.empty());
}

} // namespace
