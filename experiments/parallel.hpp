#pragma once
// Runs independent tasks on worker threads: each worker takes the next index until none is left.
// The first exception stops the others from taking more and is rethrown once all have joined.

#include <cstddef>
#include <functional>

namespace pacing::experiments {

/// Runs task(0) .. task(count - 1) on `jobs` threads (0: the hardware's concurrency). After each
/// task `done` is told how many have finished; its calls are serialized.
void parallel_for(std::size_t count, unsigned jobs, const std::function<void(std::size_t)>& task,
                  const std::function<void(std::size_t finished)>& done = {});

}  // namespace pacing::experiments
