// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: the published-run reader (data/README.md schema) and the validation that
// evaluates every record it can model.
#include "core/io/JsonText.h"
#include "core/validation/ValidationSuite.h"

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    using namespace parallax::core;
    std::string error;
    auto records = io::parseJsonBounded(std::string(reinterpret_cast<const char*>(data), size), error);
    if (!records)
        return 0;
    if (!records->is_array())
        *records = nlohmann::json::array({ std::move(*records) });
    const ValidationSummary summary = runValidation(*records);
    (void)validationJson(summary).dump();
    (void)validationTable(summary);
    return 0;
}
