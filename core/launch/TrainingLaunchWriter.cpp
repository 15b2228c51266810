// SPDX-License-Identifier: Apache-2.0
#include "core/launch/TrainingLaunchWriter.h"

#include "core/launch/MegatronArgsWriter.h"
#include "core/launch/NemoRecipeWriter.h"
#include "core/launch/TorchtitanTomlWriter.h"

namespace parallax::core {

std::optional<LaunchFramework> parseLaunchFramework(const std::string& target)
{
    if (target == "megatron")
        return LaunchFramework::MegatronLm;
    if (target == "nemo")
        return LaunchFramework::Nemo;
    if (target == "torchtitan")
        return LaunchFramework::Torchtitan;
    return std::nullopt;
}

std::string writeTrainingLaunch(const Scenario& s, LaunchFramework f)
{
    switch (f) {
    case LaunchFramework::Nemo:
        return NemoRecipeWriter::write(s);
    case LaunchFramework::Torchtitan:
        return TorchtitanTomlWriter::write(s);
    case LaunchFramework::MegatronLm:
    default:
        return MegatronArgsWriter::write(s);
    }
}

} // namespace parallax::core
