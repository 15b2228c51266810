// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: the calibration reader, and the round trip through the writer (a file the
// reader accepted must be written so that the reader accepts it again).
#include "core/calibration/Calibration.h"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    using namespace parallax::core;
    std::string error;
    auto c = readCalibration(std::string(reinterpret_cast<const char*>(data), size), error);
    if (!c)
        return 0;
    std::string again;
    if (!readCalibration(writeCalibration(*c), again))
        __builtin_trap();
    return 0;
}
