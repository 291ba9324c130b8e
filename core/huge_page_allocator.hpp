#pragma once
// An allocator for big arrays that live long and are read at random (the pools behind the id maps
// of a run with a deep backlog): an allocation of 2 MiB or more is aligned to 2 MiB and, where the
// program gave the core a way to (huge_page_advice), offered to the kernel for transparent huge
// pages: its first touch then faults once per 2 MiB instead of once per 4 KiB, and random reads
// miss the TLB far less. The core makes no system call of its own. Smaller allocations are plain
// `new`.

#include <cstddef>
#include <limits>
#include <new>

namespace pacing {

/// Called with each huge-page-sized block, where set: the lab's programs set it to Linux's
/// madvise(MADV_HUGEPAGE) (sim/huge_pages.hpp) before they run anything.
inline void (*huge_page_advice)(void* block, std::size_t bytes) = nullptr;

template <typename T>
struct HugePageAllocator {
  using value_type = T;
  /// The size of a huge page on x86-64 and the usual arm64 kernels; from it on, allocations are
  /// aligned and advised.
  static constexpr std::size_t kHugePage = std::size_t{2} << 20;

  HugePageAllocator() = default;
  template <typename U>
  HugePageAllocator(const HugePageAllocator<U>&) noexcept {}

  T* allocate(std::size_t n) {
    if (n > std::numeric_limits<std::size_t>::max() / sizeof(T) - kHugePage) {
      throw std::bad_array_new_length();
    }
    const std::size_t bytes = n * sizeof(T);
    if (bytes < kHugePage) return static_cast<T*>(::operator new(bytes, alignment()));
    const std::size_t rounded = (bytes + kHugePage - 1) / kHugePage * kHugePage;
    void* memory = ::operator new (rounded, std::align_val_t{kHugePage});
    if (huge_page_advice) huge_page_advice(memory, rounded);
    return static_cast<T*>(memory);
  }

  void deallocate(T* p, std::size_t n) noexcept {
    if (n * sizeof(T) < kHugePage) {
      ::operator delete(p, alignment());
    } else {
      ::operator delete (p, std::align_val_t{kHugePage});
    }
  }

  friend bool operator==(const HugePageAllocator&, const HugePageAllocator&) { return true; }

 private:
  static constexpr std::align_val_t alignment() { return std::align_val_t{alignof(T)}; }
};

}  // namespace pacing
