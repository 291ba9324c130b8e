#include "experiments/statistics.hpp"

#include <algorithm>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>

namespace pacing::experiments {

double student_t_975(std::size_t degrees_of_freedom) {
  if (degrees_of_freedom == 0) return 0;
  const boost::math::students_t t(static_cast<double>(degrees_of_freedom));
  return boost::math::quantile(t, 0.975);
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
