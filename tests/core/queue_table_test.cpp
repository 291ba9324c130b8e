// The engine's queues in reused slots (QueueTable): a handle finds its queue while it lives and
// nothing once it was released, even when its slot holds a newer queue; and against a map by id
// over many seeds of makes and erasures.

#include "core/queue_table.hpp"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <vector>

namespace pacing::detail {
namespace {

TEST(QueueTable, AHandleFindsItsQueueUntilItIsReleasedAndNeverItsSlotsNextQueue) {
  QueueTable table;
  Queue& first = table.make(1, std::pmr::get_default_resource());
  const QueueHandle old = QueueTable::handle(first);
  EXPECT_EQ(table.find(old), &first);
  EXPECT_EQ(first.id, 1u);

  table.erase(first);
  EXPECT_EQ(table.find(old), nullptr);
  EXPECT_EQ(table.size(), 0u);

  Queue& second = table.make(2, std::pmr::get_default_resource());
  EXPECT_EQ(second.slot, old.slot) << "a released slot is reused";
  EXPECT_EQ(table.find(old), nullptr) << "the old handle must not find the slot's new queue";
  EXPECT_EQ(table.find(QueueTable::handle(second)), &second);
  EXPECT_EQ(table.find(QueueHandle{}), nullptr) << "an empty handle finds nothing";
}

TEST(QueueTable, BehavesAsAMapByIdUnderMakesAndErasures) {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    std::mt19937_64 rng(seed);
    QueueTable table;
    std::map<QueueId, Queue*> model;
    std::vector<QueueHandle> handles;  // every handle ever taken, live or not
    QueueId next = 0;
    for (int op = 0; op < 5'000; ++op) {
      if (rng() % 100 < 55 || model.empty()) {
        Queue& q = table.make(++next, std::pmr::get_default_resource());
        model.emplace(q.id, &q);
        handles.push_back(QueueTable::handle(q));
      } else {
        auto victim = model.begin();
        std::advance(victim, static_cast<long>(rng() % model.size()));
        table.erase(*victim->second);
        model.erase(victim);
      }
      ASSERT_EQ(table.size(), model.size()) << "seed " << seed << ", op " << op;
    }
    for (const QueueHandle& h : handles) {
      auto live = model.find(h.id);
      ASSERT_EQ(table.find(h), live == model.end() ? nullptr : live->second) << "queue " << h.id;
    }
    std::size_t visited = 0;
    table.for_each([&](Queue& q) {
      ++visited;
      EXPECT_EQ(model.at(q.id), &q);
    });
    EXPECT_EQ(visited, model.size());
  }
}

}  // namespace
}  // namespace pacing::detail
