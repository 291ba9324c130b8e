// The engine's line of waiting requests (WaitingLine) against std::map under the engine's
// pattern of operations: arrivals at the back, starts from the front, retries going back in at
// their old place (near the front), withdrawals from anywhere; and under arbitrary inserts.

#include "core/waiting_line.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory_resource>
#include <random>
#include <set>
#include <vector>

namespace pacing::detail {
namespace {

TEST(WaitingLine, BehavesAsAnOrderedMapUnderTheEnginesOperations) {
  std::vector<int> values(1);  // a value's address stands for a request
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    std::mt19937_64 rng(seed);
    WaitingLine<const int*> line;
    std::map<std::uint64_t, const int*> model;
    std::vector<std::uint64_t> started;  // popped, may come back (a retry keeps its place)
    std::uint64_t next = 1;
    std::set<std::uint64_t> used;  // every seq given out: each request has its own
    // Even seeds: a line that stays short; odd seeds: one that grows to thousands, then drains.
    const bool deep = seed % 2 == 1;
    for (int op = 0; op < 60'000; ++op) {
      const std::uint64_t phase = deep && op > 40'000 ? 1 : 0;  // draining
      const std::uint64_t kind = rng() % 100;
      if (kind < (deep ? 40 - 30 * phase : 30)) {  // an arrival
        while (used.count(next)) ++next;  // taken by an arbitrary insert
        used.insert(next);
        line.insert(next, &values[0]);
        model.emplace(next++, &values[0]);
      } else if (kind < 70) {  // a start
        if (model.empty()) continue;
        started.push_back(model.begin()->first);
        line.pop_front();
        model.erase(model.begin());
      } else if (kind < 85) {  // a retry back at its place
        if (started.empty()) continue;
        const std::size_t i = rng() % started.size();
        const std::uint64_t seq = started[i];
        started.erase(started.begin() + static_cast<std::ptrdiff_t>(i));
        line.insert(seq, &values[0]);
        model.emplace(seq, &values[0]);
      } else if (kind < 97) {  // a withdrawal (an abort), from anywhere, or of nothing
        const std::uint64_t seq = rng() % (next + 2);
        EXPECT_EQ(line.erase(seq), model.erase(seq) == 1) << "seed " << seed << " op " << op;
      } else {  // any seq not in the line, anywhere
        const std::uint64_t seq = next + 1000 + rng() % 1000;
        if (!used.insert(seq).second) continue;
        line.insert(seq, &values[0]);
        model.emplace(seq, &values[0]);
      }
      ASSERT_EQ(line.size(), model.size()) << "seed " << seed << " op " << op;
      ASSERT_EQ(line.empty(), model.empty());
      if (!model.empty()) {
        ASSERT_EQ(line.front_seq(), model.begin()->first) << "seed " << seed << " op " << op;
        ASSERT_EQ(line.front(), model.begin()->second);
      }
    }
    // Drained in order.
    while (!model.empty()) {
      ASSERT_EQ(line.front_seq(), model.begin()->first);
      line.pop_front();
      model.erase(model.begin());
    }
    EXPECT_TRUE(line.empty());
  }
}

// Withdrawals leave holes; the line's memory follows what waits, not what ever waited.
TEST(WaitingLine, HolesAreDroppedSoMemoryFollowsWhatWaits) {
  struct Counting : std::pmr::memory_resource {
    std::size_t held = 0, peak = 0;
    void* do_allocate(std::size_t bytes, std::size_t align) override {
      held += bytes;
      peak = std::max(peak, held);
      return std::pmr::new_delete_resource()->allocate(bytes, align);
    }
    void do_deallocate(void* p, std::size_t bytes, std::size_t align) override {
      held -= bytes;
      std::pmr::new_delete_resource()->deallocate(p, bytes, align);
    }
    bool do_is_equal(const std::pmr::memory_resource& o) const noexcept override {
      return this == &o;
    }
  } memory;
  int value = 0;
  {
    WaitingLine<const int*> line(&memory);
    // The front request never starts (its host is paused); behind it, requests arrive and are
    // withdrawn at once, a million times. At most two wait at any moment.
    line.insert(0, &value);
    for (std::uint64_t seq = 1; seq <= 1'000'000; ++seq) {
      line.insert(seq, &value);
      ASSERT_TRUE(line.erase(seq));
    }
    EXPECT_EQ(line.size(), 1u);
    EXPECT_EQ(line.front_seq(), 0u);
    EXPECT_LE(memory.peak, 64u * 16u);
  }
  EXPECT_EQ(memory.held, 0u);
}

}  // namespace
}  // namespace pacing::detail
