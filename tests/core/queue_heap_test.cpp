// The engine's ready order and gates' parked sets (QueueHeap) against std::map, the container they
// replaced: the same front after every push, pop and removal from the middle, over many seeds,
// and every item's recorded position is where it is.

#include "core/queue_heap.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <random>
#include <vector>

namespace pacing::detail {
namespace {

struct Item {
  std::uint32_t heap_position = 0;
  bool held = false;
};

TEST(QueueHeap, BehavesAsAnOrderedMapUnderPushPopAndErase) {
  for (std::uint64_t seed = 1; seed <= 30; ++seed) {
    std::mt19937_64 rng(seed);
    std::vector<Item> items(seed % 2 == 0 ? 8 : 2'000);  // a host's few queues, or a big group
    QueueHeap<Item> heap;
    std::map<std::uint64_t, Item*> model;
    std::map<const Item*, std::uint64_t> key_of;
    std::uint64_t next_key = 1;
    for (int op = 0; op < 40'000; ++op) {
      const std::uint64_t kind = rng() % 100;
      Item& item = items[rng() % items.size()];
      if (kind < 45 && !item.held) {
        // Keys are unique and mostly increasing (arrivals), sometimes older (a retry's place).
        const std::uint64_t key =
            rng() % 8 == 0 ? (rng() % (next_key * 4)) | 1 : (next_key += 1 + rng() % 3) * 4;
        if (model.count(key)) continue;
        heap.push(item, key);
        model.emplace(key, &item);
        key_of[&item] = key;
        item.held = true;
      } else if (kind < 75 && !model.empty()) {
        ASSERT_EQ(heap.front_key(), model.begin()->first) << "seed " << seed << ", op " << op;
        ASSERT_EQ(&heap.front(), model.begin()->second);
        heap.front().held = false;
        key_of.erase(&heap.front());
        model.erase(model.begin());
        heap.pop();
      } else if (item.held) {  // withdrawn from the middle (a queue unplaced)
        heap.erase(item);
        model.erase(key_of.at(&item));
        key_of.erase(&item);
        item.held = false;
      }
      ASSERT_EQ(heap.size(), model.size());
      ASSERT_EQ(heap.empty(), model.empty());
      if (!model.empty()) {
        ASSERT_EQ(heap.front_key(), model.begin()->first) << "seed " << seed << ", op " << op;
      }
    }
    // Drained in key order.
    for (const auto& [key, expected] : model) {
      ASSERT_EQ(heap.front_key(), key);
      ASSERT_EQ(&heap.front(), expected);
      heap.pop();
    }
    EXPECT_TRUE(heap.empty());
  }
}

TEST(QueueHeap, ErasingAnItemKeepsEveryOtherItemsPosition) {
  std::vector<Item> items(7);
  QueueHeap<Item> heap;
  for (std::size_t i = 0; i < items.size(); ++i) heap.push(items[i], 70 - 10 * i);  // 70 .. 10
  heap.erase(items[3]);  // key 40, from the middle
  heap.erase(items[6]);  // key 10, the front
  std::vector<std::uint64_t> order;
  while (!heap.empty()) {
    order.push_back(heap.front_key());
    heap.pop();
  }
  EXPECT_EQ(order, (std::vector<std::uint64_t>{20, 30, 50, 60, 70}));
}

}  // namespace
}  // namespace pacing::detail
