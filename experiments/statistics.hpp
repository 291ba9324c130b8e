#pragma once
// Means and Student's t 95% confidence intervals over the replications of one combination.

#include <cstddef>
#include <vector>

namespace pacing::experiments {

/// The two-sided 95% quantile of Student's t distribution (the 0.975 quantile) for
/// `degrees_of_freedom` >= 1 (Boost.Math's students_t, to double precision); 0 for 0.
double student_t_975(std::size_t degrees_of_freedom);

/// A metric over the replications of one combination.
struct Estimate {
  double mean = 0;
  double ci95 = 0;  ///< half-width of the 95% confidence interval of the mean; 0 for one sample
};

/// The mean of `samples` and the half-width t(n-1) * s / sqrt(n) of its 95% confidence interval,
/// with s the sample standard deviation. No samples give {0, 0}; one sample gives a width of 0.
Estimate estimate(const std::vector<double>& samples);

}  // namespace pacing::experiments
