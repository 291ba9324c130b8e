// The allocator of the big pools: where it aligns, what it gives back, and what it refuses.

#include "core/huge_page_allocator.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <new>
#include <numeric>
#include <vector>

namespace pacing {
namespace {

std::uintptr_t address(const void* p) { return reinterpret_cast<std::uintptr_t>(p); }

TEST(HugePageAllocator, AnAllocationOfAHugePageOrMoreStartsOnAHugePage) {
  HugePageAllocator<std::uint64_t> allocator;
  for (std::size_t bytes : {std::size_t{2} << 20, std::size_t{3} << 20, std::size_t{5} << 20}) {
    const std::size_t n = bytes / sizeof(std::uint64_t) + 1;  // a little past a page boundary
    std::uint64_t* p = allocator.allocate(n);
    EXPECT_EQ(address(p) % HugePageAllocator<std::uint64_t>::kHugePage, 0u) << bytes;
    std::iota(p, p + n, std::uint64_t{7});  // all of it is usable
    EXPECT_EQ(p[n - 1], 7 + n - 1);
    allocator.deallocate(p, n);
  }
}

TEST(HugePageAllocator, ASmallAllocationIsPlainNewAlignedForItsType) {
  struct alignas(64) Line {
    char bytes[64];
  };
  HugePageAllocator<Line> allocator;
  Line* p = allocator.allocate(3);
  EXPECT_EQ(address(p) % alignof(Line), 0u);
  allocator.deallocate(p, 3);
}

TEST(HugePageAllocator, AVectorGrowingPastAHugePageKeepsItsValues) {
  std::vector<std::uint32_t, HugePageAllocator<std::uint32_t>> values;
  for (std::uint32_t i = 0; i < 1'500'000; ++i) values.push_back(i * 3);  // 6 MB: three moves up
  for (std::uint32_t i = 0; i < values.size(); i += 4099) ASSERT_EQ(values[i], i * 3);
  EXPECT_EQ(address(values.data()) % HugePageAllocator<std::uint32_t>::kHugePage, 0u);
}

TEST(HugePageAllocator, ACountWhoseBytesOverflowIsRefused) {
  HugePageAllocator<std::uint64_t> allocator;
  EXPECT_THROW((void)allocator.allocate(std::numeric_limits<std::size_t>::max() / 4),
               std::bad_array_new_length);
}

}  // namespace
}  // namespace pacing
