// Exact latency statistics for the benchmark: every sample is kept and sorted, so the
// percentiles are the nearest-rank values of the samples, not estimates.
#pragma once

#include <cstdint>
#include <vector>

namespace las::bench {

struct LatencySummary {
  uint64_t count = 0;
  double mean_us = 0;
  double p50_us = 0;
  double p99_us = 0;
  double max_us = 0;
};

// Summarizes `samples_ns` (nanoseconds; sorted in place). Empty input gives all zeros.
LatencySummary Summarize(std::vector<int64_t>& samples_ns);

// The nearest-rank percentile `p` (0 < p <= 100) of sorted, non-empty `sorted_ns`, in ns.
int64_t Percentile(const std::vector<int64_t>& sorted_ns, double p);

}  // namespace las::bench
