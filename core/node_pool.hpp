#pragma once
// The engine's pool of container nodes: free lists of small blocks, grown a few blocks at a time.

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory_resource>
#include <new>

namespace pacing::detail {

/// Free lists of small blocks (up to 64 bytes, in classes of 16), carved from chunks that start
/// at one block and double up to 64 blocks: a freed node is reused without a call to malloc, and
/// an engine that holds a few nodes pays for a few nodes. libstdc++'s pool resource is not used:
/// it allocates a table of size classes and a chunk per class used, kilobytes for an engine
/// holding one request, and a crowd has an engine per client. Larger or over-aligned blocks come
/// from operator new. Memory goes back when the pool is destroyed.
class NodePool final : public std::pmr::memory_resource {
 public:
  NodePool() = default;
  NodePool(const NodePool&) = delete;
  NodePool& operator=(const NodePool&) = delete;
  ~NodePool() override {
    while (chunks_) {
      Chunk* next = chunks_->next;
      ::operator delete(chunks_);
      chunks_ = next;
    }
  }

  /// Whether anything was ever carved (a chunk exists).
  bool built() const { return chunks_ != nullptr; }

 private:
  static constexpr std::size_t kGrain = 16;  // also the blocks' alignment
  static constexpr std::size_t kLargestPooledBlock = 64;
  static constexpr std::size_t kClasses = kLargestPooledBlock / kGrain;
  static constexpr std::uint8_t kMaxBlocksPerChunk = 64;

  struct FreeBlock {
    FreeBlock* next;
  };
  struct alignas(kGrain) Chunk {  // a chunk's header; its blocks follow
    Chunk* next;
  };

  static bool pooled(std::size_t bytes, std::size_t alignment) {
    return bytes <= kLargestPooledBlock && alignment <= kGrain;
  }
  static std::size_t size_class(std::size_t bytes) { return bytes == 0 ? 0 : (bytes - 1) / kGrain; }

  void* do_allocate(std::size_t bytes, std::size_t alignment) override {
    if (!pooled(bytes, alignment)) return ::operator new(bytes, std::align_val_t(alignment));
    const std::size_t c = size_class(bytes);
    if (!free_[c]) carve(c);
    FreeBlock* block = free_[c];
    free_[c] = block->next;
    return block;
  }

  void do_deallocate(void* p, std::size_t bytes, std::size_t alignment) override {
    if (!pooled(bytes, alignment)) {
      // Unsized: clang does not enable sized deallocation unless asked (-fsized-deallocation).
      ::operator delete(p, std::align_val_t(alignment));
      return;
    }
    const std::size_t c = size_class(bytes);
    free_[c] = ::new (p) FreeBlock{free_[c]};
  }

  bool do_is_equal(const std::pmr::memory_resource& other) const noexcept override {
    return this == &other;
  }

  /// A new chunk for class `c`, its blocks put on the class's free list.
  void carve(std::size_t c) {
    const std::size_t block = (c + 1) * kGrain;
    const std::size_t blocks = std::max<std::size_t>(1, next_blocks_[c]);
    next_blocks_[c] =
        static_cast<std::uint8_t>(std::min<std::size_t>(2 * blocks, kMaxBlocksPerChunk));
    auto* raw = static_cast<std::byte*>(::operator new(sizeof(Chunk) + blocks * block));
    chunks_ = ::new (raw) Chunk{chunks_};
    for (std::size_t i = blocks; i-- > 0;) {
      free_[c] = ::new (raw + sizeof(Chunk) + i * block) FreeBlock{free_[c]};
    }
  }

  std::array<FreeBlock*, kClasses> free_{};
  std::array<std::uint8_t, kClasses> next_blocks_{};  ///< the next chunk's blocks, per class
  Chunk* chunks_ = nullptr;
};

}  // namespace pacing::detail
