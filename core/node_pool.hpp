#pragma once
// The engine's pool of container nodes, built on its first allocation.

#include <cstddef>
#include <memory_resource>
#include <optional>

namespace pacing::detail {

/// An unsynchronized pool of small blocks that exists only once something is allocated from it:
/// libstdc++'s pool resource allocates its table of size classes when constructed, and a crowd
/// has an engine per client, many of them idle for a while or for good. Only small classes are
/// pooled: the engine's nodes (map, set and list nodes of ids and pointers) are 24-48 bytes.
class NodePool final : public std::pmr::memory_resource {
 public:
  NodePool() = default;
  NodePool(const NodePool&) = delete;
  NodePool& operator=(const NodePool&) = delete;

  /// Whether anything was ever allocated (the pool exists).
  bool built() const { return pool_.has_value(); }

 private:
  static constexpr std::size_t kLargestPooledBlock = 64;

  void* do_allocate(std::size_t bytes, std::size_t alignment) override {
    if (!pool_) {
      std::pmr::pool_options options;
      options.largest_required_pool_block = kLargestPooledBlock;
      pool_.emplace(options);
    }
    return pool_->allocate(bytes, alignment);
  }
  void do_deallocate(void* p, std::size_t bytes, std::size_t alignment) override {
    pool_->deallocate(p, bytes, alignment);
  }
  bool do_is_equal(const std::pmr::memory_resource& other) const noexcept override {
    return this == &other;
  }

  std::optional<std::pmr::unsynchronized_pool_resource> pool_;
};

}  // namespace pacing::detail
