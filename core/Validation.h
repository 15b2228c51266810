#pragma once

#include "core/Report.h"
#include "core/Scenario.h"

#include <vector>

namespace parallax::core {

struct ValidationResult {
    std::vector<Message> errors; // the configuration cannot run as given
    std::vector<Message> notes; // how the configuration maps onto Megatron-Core terms
};

// Every divisibility and range rule, each failure naming the field and the fix.
ValidationResult validateScenario(const Scenario& s);

// Divisors of n (sorted), for "nearest valid value" suggestions.
std::vector<int> divisorsOf(long long n);
// The divisor of n closest to `wanted` (ties: the smaller).
int nearestDivisor(long long n, int wanted);

} // namespace parallax::core
