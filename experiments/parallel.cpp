#include "experiments/parallel.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace pacing::experiments {

void parallel_for(std::size_t count, unsigned jobs, const std::function<void(std::size_t)>& task,
                  const std::function<void(std::size_t)>& done) {
  if (count == 0) return;
  if (jobs == 0) jobs = std::max(1u, std::thread::hardware_concurrency());
  jobs = static_cast<unsigned>(std::min<std::size_t>(jobs, count));
  std::atomic<std::size_t> next{0};
  std::atomic<bool> stop{false};
  std::mutex mutex;  // guards finished, failure and `done`
  std::size_t finished = 0;
  std::exception_ptr failure;
  auto worker = [&] {
    for (std::size_t i = next++; i < count && !stop; i = next++) {
      try {
        task(i);
        std::lock_guard lock(mutex);
        ++finished;
        if (done) done(finished);
      } catch (...) {
        std::lock_guard lock(mutex);
        if (!failure) failure = std::current_exception();
        stop = true;
      }
    }
  };
  std::vector<std::thread> threads;
  for (unsigned j = 0; j < jobs; ++j) threads.emplace_back(worker);
  for (std::thread& t : threads) t.join();
  if (failure) std::rethrow_exception(failure);
}

}  // namespace pacing::experiments
