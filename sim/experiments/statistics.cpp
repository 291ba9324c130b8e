#include "sim/experiments/statistics.hpp"

#include <algorithm>
#include <array>
#include <cmath>

namespace pacing::experiments {

double student_t_975(std::size_t degrees_of_freedom) {
  // t(0.975, df) for df = 1..30, to 9 decimals (checked against numerical integration of the
  // density): small replication counts are the common case and the expansion is weakest there.
  constexpr std::array<double, 30> kTable{
      12.706204736, 4.302652730, 3.182446305, 2.776445105, 2.570581836, 2.446911851,
      2.364624252,  2.306004135, 2.262157163, 2.228138852, 2.200985160, 2.178812830,
      2.160368656,  2.144786688, 2.131449546, 2.119905299, 2.109815578, 2.100922040,
      2.093024054,  2.085963447, 2.079613845, 2.073873068, 2.068657610, 2.063898562,
      2.059538553,  2.055529439, 2.051830516, 2.048407142, 2.045229642, 2.042272456};
  if (degrees_of_freedom == 0) return 0;
  if (degrees_of_freedom <= kTable.size()) return kTable[degrees_of_freedom - 1];
  // Cornish-Fisher expansion of t around the normal quantile z (Abramowitz & Stegun 26.7.5).
  const double z = 1.959963984540054;
  const double v = static_cast<double>(degrees_of_freedom);
  const double z3 = z * z * z, z5 = z3 * z * z, z7 = z5 * z * z, z9 = z7 * z * z;
  return z + (z3 + z) / (4 * v) + (5 * z5 + 16 * z3 + 3 * z) / (96 * v * v) +
         (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / (384 * v * v * v) +
         (79 * z9 + 776 * z7 + 1482 * z5 - 1920 * z3 - 945 * z) / (92160 * v * v * v * v);
}

Estimate estimate(const std::vector<double>& samples) {
  Estimate e;
  if (samples.empty()) return e;
  // Equal samples have no spread; summing them could still round the mean off the value.
  if (std::all_of(samples.begin(), samples.end(), [&](double x) { return x == samples[0]; })) {
    e.mean = samples[0];
    return e;
  }
  const double n = static_cast<double>(samples.size());
  double sum = 0;
  for (double x : samples) sum += x;
  e.mean = sum / n;
  if (samples.size() < 2) return e;
  double squares = 0;
  for (double x : samples) squares += (x - e.mean) * (x - e.mean);
  const double standard_deviation = std::sqrt(squares / (n - 1));
  e.ci95 = student_t_975(samples.size() - 1) * standard_deviation / std::sqrt(n);
  return e;
}

}  // namespace pacing::experiments
