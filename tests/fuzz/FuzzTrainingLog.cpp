// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: the training-log reader of check-log and File > Check Training Log (Megatron-LM, NeMo 2.0 and
// torchtitan lines), then the comparison with a preset's prediction. A log with nothing to compare is reported as
// `error`; a crash, a sanitizer report, an exception or a hang is a finding, and so is a comparison that is not a
// finite number.
#include "core/Engine.h"
#include "core/io/PresetLibrary.h"
#include "core/io/ScenarioIo.h"
#include "core/launch/TrainingLogReader.h"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

namespace {

const parallax::core::Report& prediction()
{
    using namespace parallax::core;
    static const Report report = [] {
        LoadError error;
        const auto s = parseScenario(PresetLibrary::instance().scenario("llama3-70b-64xh100")->json, error);
        return evaluate(*s);
    }();
    return report;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    using namespace parallax::core;
    const std::string text(reinterpret_cast<const char*>(data), size);
    // Llama 3 70B on 64 H100: 1024 sequences of 8192 tokens per step.
    const TrainingLog log = readTrainingLog(text, 1024.0 * 8192.0, 64);
    std::string error;
    const auto comparison = compareWithLog(prediction(), log, 1, error);
    if (comparison && (!std::isfinite(comparison->stepError) || !std::isfinite(comparison->memoryError)))
        __builtin_trap();
    return 0;
}
