// SPDX-License-Identifier: Apache-2.0
#include "core/search/LessonText.h"
#include "../TestScenarios.h"
#include "core/Engine.h"
#include "core/Units.h"
#include "core/io/PresetLibrary.h"
#include "core/io/ScenarioIo.h"
#include "core/model/ModelMath.h"
#include "core/search/ConfigSearch.h"
#include "core/search/NumberText.h"

#include <gtest/gtest.h>

#include <optional>

using namespace parallax::core;

namespace {

Report evaluated(const Scenario& s)
{
    EvaluateOptions o;
    o.keepTimeline = false;
    return evaluate(s, o);
}

RenderedLesson render(const Scenario& s, std::optional<SearchResult>& search)
{
    if (lessonNeedsSearch(s.description) && !search)
        search = searchConfigurations(s);
    return renderLesson(s, nullptr, search ? &*search : nullptr);
}

// Every preset loads strictly, evaluates, and its lesson renders with no unknown or unrendered
// placeholder; the first line (the `presets` listing) is plain text.
TEST(LessonText, EveryPresetLessonRenders)
{
    const auto& lib = PresetLibrary::instance();
    ASSERT_TRUE(lib.loadErrors().empty()) << lib.loadErrors().front();
    int lessons = 0;
    for (const ScenarioPresetInfo& info : lib.scenarios()) {
        SCOPED_TRACE(info.id);
        const Scenario s = parallax::test::presetScenario(info.id);
        const Report r = evaluated(s);
        EXPECT_TRUE(r.valid) << (r.errors.empty() ? "" : r.errors.front().text);
        ASSERT_FALSE(s.description.empty());
        const std::string first = s.description.substr(0, s.description.find('\n'));
        EXPECT_EQ(first.find("{{"), std::string::npos);
        EXPECT_LE(first.size(), 120u);
        std::optional<SearchResult> search;
        const RenderedLesson lesson = render(s, search);
        for (const auto& e : lesson.errors)
            ADD_FAILURE() << e;
        EXPECT_EQ(lesson.markdown.find("{{"), std::string::npos);
        EXPECT_EQ(lesson.markdown.find("}}"), std::string::npos);
        lessons += s.description.find("{{") != std::string::npos;
    }
    EXPECT_GE(lessons, 13); // nine guide scenarios and four real runs carry engine numbers
}

// The guide's nine scenarios and the real runs are all there.
TEST(LessonText, GuideAndRealRunPresetsExist)
{
    for (const char* id :
        { "guide-70b-8xh100", "guide-70b-64xh100", "guide-70b-1024xh100", "guide-405b-8xh100", "guide-405b-64xh100",
            "guide-405b-1024xh100", "guide-moe1t-8xh100", "guide-moe1t-64xh100", "guide-moe1t-1024xh100",
            "gpt3-175b-1536xa100", "llama3-405b-16kxh100", "deepseek-v3-2048xh800", "bloom-176b-384xa100" })
        EXPECT_NE(PresetLibrary::instance().scenario(id), nullptr) << id;
}

// BLOOM's published dimensions give its published 176.2B parameters (arXiv:2211.05100 Table 3).
TEST(LessonText, BloomParameterCount)
{
    const auto m = PresetLibrary::instance().model("bloom-176b");
    ASSERT_TRUE(m);
    EXPECT_NEAR(totalParameters(*m), 176.2e9, 0.01 * 176.2e9);
}

// Placeholders are the engine's numbers: the same values an independent evaluation gives, for
// the scenario and for a variant of it.
TEST(LessonText, PlaceholdersAreTheEngineNumbers)
{
    Scenario s = parallax::test::presetScenario("guide-70b-64xh100");
    s.description = "{{peak_memory_gib}}|{{bubble_pct}}|{{step_time_s}}|{{stage0_optimizer_gib}}|"
                    "{{bubble_pct schedule=interleaved-1f1b vpp=2}}|{{fits}}";
    const Report r = evaluated(s);
    Scenario v = s;
    v.parallel.schedule = ScheduleKind::Interleaved1F1B;
    v.parallel.vpp = 2;
    const Report rv = evaluated(v);
    const RenderedLesson lesson = renderLesson(s, nullptr, nullptr);
    ASSERT_TRUE(lesson.errors.empty()) << lesson.errors.front();
    const std::string expected = fixedText(r.peakMemoryBytes / kGiB, 1) + "|" + fixedText(100 * r.bubbleFraction, 1)
        + "|" + fixedText(r.stepTimeSeconds, 2) + "|" + fixedText(r.stages[0].optimizerBytes / kGiB, 1) + "|"
        + fixedText(100 * rv.bubbleFraction, 1) + "|" + (r.fits ? "fits" : "does not fit");
    EXPECT_EQ(lesson.markdown, expected);
}

// Proof that the numbers are not typed in: change the scenario, and the same lesson text renders
// other numbers.
TEST(LessonText, ChangedScenarioChangesTheNumbers)
{
    for (const char* id : { "guide-70b-64xh100", "guide-405b-64xh100", "bloom-176b-384xa100" }) {
        SCOPED_TRACE(id);
        const Scenario s = parallax::test::presetScenario(id);
        Scenario changed = s;
        changed.training.globalBatch *= 2;
        changed.training.seqLen = s.seqLen() / 2;
        std::optional<SearchResult> a, b;
        const RenderedLesson before = render(s, a);
        const RenderedLesson after = render(changed, b);
        ASSERT_TRUE(before.errors.empty());
        ASSERT_TRUE(after.errors.empty());
        EXPECT_NE(before.markdown, after.markdown);
        // The prose around the numbers is the same.
        EXPECT_EQ(
            before.markdown.substr(0, before.markdown.find('\n')), after.markdown.substr(0, after.markdown.find('\n')));
    }
}

// The context-parallel communication as a variant: the gpt-oss lesson compares Ulysses with the ring.
TEST(LessonText, ContextParallelTypeIsAVariant)
{
    Scenario s = parallax::test::presetScenario("gpt-oss-120b-32k-64xh100");
    s.description = "{{cp_comm_s}}|{{cp_comm_s cp_comm_type=a2a}}|{{step_time_s cp_comm_type=a2a+p2p cp_a2a_size=2}}";
    Scenario a2a = s;
    a2a.parallel.cpCommType = CpCommType::A2a;
    const Report r = evaluated(s);
    const Report ra = evaluated(a2a);
    const RenderedLesson lesson = renderLesson(s, nullptr, nullptr);
    // cp 2 has no two levels: the hierarchical variant is invalid, and says so.
    ASSERT_EQ(lesson.errors.size(), 1u);
    EXPECT_NE(lesson.errors[0].find("cp_a2a_size"), std::string::npos) << lesson.errors[0];
    EXPECT_EQ(lesson.markdown.substr(0, lesson.markdown.rfind('|')),
        fixedText(r.comm.cpSeconds, 2) + "|" + fixedText(ra.comm.cpSeconds, 2));
    EXPECT_NE(r.comm.cpSeconds, ra.comm.cpSeconds);
}

TEST(LessonText, UnknownPlaceholdersAndBadVariantsAreErrors)
{
    Scenario s = parallax::test::presetScenario("guide-70b-64xh100");
    for (const char* text : { "{{no_such_number}}", "{{bubble_pct frobnicate=3}}", "{{bubble_pct tp=3}}",
             "{{bubble_pct vpp}}", "{{bubble_pct cp_comm_type=ulysses}}", "{{recommended}}", "{{stage99_weights_gib}}",
             "{{peak_memory_gib", "{{}}" }) {
        s.description = std::string("x ") + text + " y";
        const RenderedLesson lesson = renderLesson(s, nullptr, nullptr);
        EXPECT_FALSE(lesson.errors.empty()) << text;
    }
}

TEST(LessonText, SearchPlaceholdersNeedASearch)
{
    EXPECT_TRUE(lessonNeedsSearch("a {{recommended}} b"));
    EXPECT_TRUE(lessonNeedsSearch("a {{ fix }} b"));
    EXPECT_TRUE(lessonNeedsSearch("{{recommended_mfu_pct}}"));
    EXPECT_FALSE(lessonNeedsSearch("{{peak_memory_gib}} {{bubble_pct vpp=2}}"));
    Scenario s = parallax::test::presetScenario("guide-70b-64xh100");
    s.description = "{{recommended}}: {{recommended_step_time_s}} s, {{recommended_peak_memory_gib}} GiB";
    const SearchResult r = searchConfigurations(s);
    ASSERT_FALSE(r.candidates.empty());
    const RenderedLesson lesson = renderLesson(s, nullptr, &r);
    ASSERT_TRUE(lesson.errors.empty()) << lesson.errors.front();
    const Candidate& w = r.candidates.front();
    EXPECT_EQ(lesson.markdown,
        describe(w.point) + ": " + fixedText(w.report.stepTimeSeconds, 2) + " s, "
            + fixedText(w.report.peakMemoryBytes / kGiB, 1) + " GiB");
}

} // namespace
