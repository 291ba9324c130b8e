// The engine's node pool exists only once something is allocated from it (core/node_pool.hpp).

#include "core/node_pool.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <memory_resource>

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

}  // namespace
}  // namespace pacing::detail
