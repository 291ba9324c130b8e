#pragma once
// The worker threads every mock server shares, each answering one request that has arrived whole
// (RequestReader): one bounded pool for all hosts (not a pool per host) keeps the thread count
// fixed however many hosts a scenario has, and small stacks keep 64 live hosts inside a 4 GiB
// address space.

#include <pthread.h>

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <vector>

namespace pacing::mock {

/// A fixed set of threads running queued tasks in order.
class WorkerPool {
 public:
  /// Starts `threads` threads with `stack_bytes` of stack each.
  WorkerPool(std::size_t threads, std::size_t stack_bytes);
  /// Runs what is queued, then joins every thread.
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  void run(std::function<void()> task);
  std::size_t threads() const { return threads_.size(); }

 private:
  static void* main(void* self);
  void work();

  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::function<void()>> tasks_;
  bool stopping_ = false;
  std::vector<pthread_t> threads_;
};

}  // namespace pacing::mock
