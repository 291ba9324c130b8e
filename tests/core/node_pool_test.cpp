// The engine's node pool (core/node_pool.hpp): nothing until the first node, freed nodes reused.

#include "core/node_pool.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <memory_resource>
#include <set>
#include <vector>

namespace pacing::detail {
namespace {

TEST(NodePool, IdleCostsNoPoolUntilTheFirstNode) {
  NodePool nodes;
  std::pmr::map<int, int> lines{&nodes};  // an empty map allocates nothing
  EXPECT_FALSE(nodes.built());
  lines[1] = 2;
  EXPECT_TRUE(nodes.built());
}

TEST(NodePool, ReusesAFreedNodeAndServesLargeBlocksToo) {
  NodePool nodes;
  void* first = nodes.allocate(48, alignof(std::max_align_t));
  nodes.deallocate(first, 48, alignof(std::max_align_t));
  void* again = nodes.allocate(48, alignof(std::max_align_t));
  EXPECT_EQ(again, first);  // the freed block comes back: a warm engine allocates nothing
  void* large = nodes.allocate(4096, 64);  // beyond the pooled sizes: from upstream
  ASSERT_NE(large, nullptr);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(large) % 64, 0u);
  nodes.deallocate(large, 4096, 64);
  nodes.deallocate(again, 48, alignof(std::max_align_t));
}

TEST(NodePool, BlocksAreDistinctAlignedAndComeBackFromTheFreeLists) {
  NodePool nodes;
  std::vector<std::pair<void*, std::size_t>> held;
  std::set<void*> addresses;
  for (int i = 0; i < 1000; ++i) {
    for (std::size_t bytes : {1u, 24u, 40u, 48u, 64u}) {
      void* p = nodes.allocate(bytes, 8);
      EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % 16, 0u);
      std::memset(p, 0xab, bytes);  // the whole block is usable (ASan checks it)
      EXPECT_TRUE(addresses.insert(p).second);
      held.emplace_back(p, bytes);
    }
  }
  for (auto [p, bytes] : held) nodes.deallocate(p, bytes, 8);
  std::set<void*> again;
  for (auto& [p, bytes] : held) again.insert(p = nodes.allocate(bytes, 8));
  EXPECT_EQ(again, addresses);  // every block reused, nothing new carved
  for (auto [p, bytes] : held) nodes.deallocate(p, bytes, 8);
}

}  // namespace
}  // namespace pacing::detail
