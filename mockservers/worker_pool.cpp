#include "mockservers/worker_pool.hpp"

#include <stdexcept>

namespace pacing::mock {

WorkerPool::WorkerPool(std::size_t threads, std::size_t stack_bytes) {
  pthread_attr_t attributes;
  pthread_attr_init(&attributes);
  pthread_attr_setstacksize(&attributes, stack_bytes);
  threads_.reserve(threads);
  for (std::size_t i = 0; i < threads; ++i) {
    pthread_t thread;
    if (pthread_create(&thread, &attributes, &WorkerPool::main, this) != 0) break;
    threads_.push_back(thread);
  }
  pthread_attr_destroy(&attributes);
  if (threads_.empty()) throw std::runtime_error("mock servers: cannot start worker threads");
}

WorkerPool::~WorkerPool() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  ready_.notify_all();
  for (pthread_t thread : threads_) pthread_join(thread, nullptr);
}

void WorkerPool::run(std::function<void()> task) {
  {
    std::lock_guard lock(mutex_);
    tasks_.push_back(std::move(task));
  }
  ready_.notify_one();
}

void* WorkerPool::main(void* self) {
  static_cast<WorkerPool*>(self)->work();
  return nullptr;
}

void WorkerPool::work() {
  for (;;) {
    std::function<void()> task;
    {
      std::unique_lock lock(mutex_);
      ready_.wait(lock, [this] { return stopping_ || !tasks_.empty(); });
      if (tasks_.empty()) return;  // stopping, and nothing left
      task = std::move(tasks_.front());
      tasks_.pop_front();
    }
    task();
  }
}

}  // namespace pacing::mock
