// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <vector>

namespace parallax::probe {

// Median and the 10th / 90th percentiles of a sample (linear interpolation between order
// statistics, numpy's default "linear" method, Hyndman & Fan 1996 definition 7).
struct Summary {
    double median = 0;
    double p10 = 0;
    double p90 = 0;
    int count = 0;
};

Summary summarize(std::vector<double> values);
double percentile(const std::vector<double>& sorted, double q); // q in [0, 1]

// Throughput of each timed sample: work / seconds (FLOP/s from FLOPs, bytes/s from bytes).
std::vector<double> ratesFromSeconds(double work, const std::vector<double>& seconds);

} // namespace parallax::probe
