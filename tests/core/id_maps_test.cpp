// The id maps (IdMap, SequentialIdMap) against std::map under random inserts, lookups and
// erasures, each under both patterns of ids: random over a small or large space (long probe runs
// and their wrap-around, which backward-shift deletion must handle) and mostly increasing as
// request tags are (stragglers held long: pages thin out and move them to the hash table; ids
// below the span held).

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <stdexcept>
#include <utility>
#include <vector>

#include "core/engine_state.hpp"
#include "core/id_map.hpp"
#include "core/sequential_id_map.hpp"

namespace pacing {
namespace {

template <typename Map>
class IdMaps : public ::testing::Test {};
using Maps = ::testing::Types<IdMap<std::uint64_t>, SequentialIdMap<std::uint64_t>>;
TYPED_TEST_SUITE(IdMaps, Maps);

TYPED_TEST(IdMaps, BehaveAsAMapUnderRandomOperations) {
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    std::mt19937_64 rng(seed);
    TypeParam map;
    std::map<std::uint64_t, std::uint64_t> model;
    // Odd seeds: random ids over a space of 64 or 100,000; even seeds: mostly increasing ids.
    const bool increasing = seed % 2 == 0;
    const std::uint64_t space = seed % 4 == 1 ? 64 : 100'000;
    std::uint64_t next = seed % 4 == 0 ? 1'000'000 : 0;  // the next fresh id (increasing)
    for (int op = 0; op < 40'000; ++op) {
      std::uint64_t id;
      if (!increasing) {
        id = rng() % space;
      } else {
        id = rng() % 8 ? next++ : rng() % (next + 1);  // sometimes any id from the start
      }
      switch (rng() % 4) {
        case 0:
        case 1: {
          auto [value, fresh] = map.try_emplace(id, id * 7);
          EXPECT_EQ(fresh, model.emplace(id, id * 7).second);
          EXPECT_EQ(*value, model.at(id));
          break;
        }
        case 2: {
          // Erase an id held (for increasing ids most often an old one: pages empty out of
          // order), and one never held.
          if (model.empty()) break;
          auto it = model.lower_bound(increasing ? rng() % (next + 1) : id);
          if (it == model.end()) it = model.begin();
          EXPECT_TRUE(map.erase(it->first));
          model.erase(it);
          EXPECT_FALSE(map.erase(id + 1'000'000'000)) << "an id never held";
          break;
        }
        default: {
          const std::uint64_t* found = map.find(id);
          ASSERT_EQ(found != nullptr, model.contains(id)) << "seed " << seed << " id " << id;
          if (found) {
            EXPECT_EQ(*found, model.at(id));
          }
        }
      }
      ASSERT_EQ(map.size(), model.size());
    }
    using Entries = std::vector<std::pair<std::uint64_t, std::uint64_t>>;
    Entries seen;
    map.for_each([&](std::uint64_t id, std::uint64_t value) { seen.emplace_back(id, value); });
    std::sort(seen.begin(), seen.end());
    EXPECT_EQ(seen, Entries(model.begin(), model.end())) << "every entry, once";
    for (const auto& [id, value] : model) EXPECT_TRUE(map.erase(id));
    EXPECT_TRUE(map.empty());
    EXPECT_EQ(map.find(0), nullptr);
  }
}

TEST(SequentialIdMap, StragglersOfThinnedPagesStayFoundAndErasable) {
  // One id in 100 held while the rest come and go: every page but the newest thins out.
  SequentialIdMap<std::uint64_t> map;
  for (std::uint64_t id = 0; id < 100'000; ++id) {
    map.try_emplace(id, id * 3);
    if (id >= 50 && (id - 50) % 100 != 0) map.erase(id - 50);
  }
  for (std::uint64_t id = 0; id < 100'000; ++id) {
    const bool held = id % 100 == 0 || id >= 100'000 - 50;
    const std::uint64_t* found = map.find(id);
    ASSERT_EQ(found != nullptr, held) << id;
    if (found) {
      EXPECT_EQ(*found, id * 3);
    }
  }
  EXPECT_EQ(map.size(), 1'000u + 50u);
  EXPECT_FALSE(map.try_emplace(500, 0).second) << "a straggler is still there";
  EXPECT_TRUE(map.try_emplace(501, 7).second) << "an id of a freed page can come back";
  EXPECT_EQ(*map.find(501), 7u);
  for (std::uint64_t id = 0; id < 100'000; ++id) map.erase(id);
  EXPECT_TRUE(map.empty());
}

TEST(SequentialIdMap, ValuesStayWhereTheyWereMadeUntilErased) {
  // The engine's queues point at its open requests: a value must not move when the map grows,
  // opens and frees pages, or moves a thinned page's stragglers to its hash table.
  SequentialIdMap<std::uint64_t> map;
  std::vector<const std::uint64_t*> kept;
  for (std::uint64_t id = 0; id < 50'000; ++id) {
    const std::uint64_t* value = map.try_emplace(id, id).first;
    if (id % 1'000 == 0) kept.push_back(value);
    if (id >= 100 && (id - 100) % 1'000 != 0) map.erase(id - 100);
  }
  for (std::size_t i = 0; i < kept.size(); ++i) {
    EXPECT_EQ(map.find(i * 1'000), kept[i]) << "id " << i * 1'000;
    EXPECT_EQ(*kept[i], i * 1'000);
  }
}

TEST(SequentialIdMap, AFreedSlotIsTheNextOneTaken) {
  // A completion frees a slot that is still in cache: the next request takes it, and the map's
  // memory follows the most ids held at once, not the span of ids.
  SequentialIdMap<std::uint64_t> map;
  std::set<const std::uint64_t*> slots;
  for (std::uint64_t id = 0; id < 1'000; ++id) slots.insert(map.try_emplace(id, id).first);
  const std::uint64_t* freed = map.find(10);
  map.erase(10);
  EXPECT_EQ(map.try_emplace(5'000, 1).first, freed);
  map.erase(5'000);
  // About a thousand ids held at any time, 100,000 in all: each new id takes a slot just freed
  // (id 1,010 the one 10 and 5,000 left).
  for (std::uint64_t id = 1'000; id < 100'000; ++id) {
    map.erase(id - 1'000);
    ASSERT_TRUE(slots.contains(map.try_emplace(id, id).first)) << id;
  }
  EXPECT_EQ(map.size(), 1'000u);
}

/// Counts the values alive, so that a test sees each made value destroyed exactly once.
struct Counted {
  explicit Counted(int* alive, bool fail = false) : alive_(alive) {
    if (fail) throw std::runtime_error("constructor failed");
    ++*alive_;
  }
  Counted(const Counted&) = delete;
  Counted& operator=(const Counted&) = delete;
  ~Counted() { --*alive_; }
  int* alive_;
};

TEST(SequentialIdMap, EachValueIsDestroyedOnceByEraseOrByTheMap) {
  // Slots are raw bytes: the map must destroy what it erased, what it still holds when it goes,
  // and nothing twice (a freed slot is not live), also after a move.
  int alive = 0;
  {
    SequentialIdMap<Counted> map;
    for (std::uint64_t id = 0; id < 3'000; ++id) map.try_emplace(id, &alive);
    for (std::uint64_t id = 0; id < 3'000; id += 3) map.erase(id);
    EXPECT_EQ(alive, 2'000);
    map.try_emplace(9'000'000, &alive);  // far off the pages: held in the hash table
    EXPECT_EQ(alive, 2'001);
    SequentialIdMap<Counted> moved = std::move(map);
    EXPECT_EQ(alive, 2'001);
    SequentialIdMap<Counted> assigned;
    assigned.try_emplace(1, &alive);
    assigned = std::move(moved);  // destroys the one it held
    EXPECT_EQ(alive, 2'001);
    EXPECT_EQ(assigned.size(), 2'001u);
  }
  EXPECT_EQ(alive, 0);
}

TEST(SequentialIdMap, AThrowingConstructorLeavesTheMapAsItWas) {
  int alive = 0;
  SequentialIdMap<Counted> map;
  map.try_emplace(0, &alive);
  map.try_emplace(1, &alive);
  map.erase(0);  // a free slot: the next value is made in it
  EXPECT_THROW(map.try_emplace(2, &alive, true), std::runtime_error);
  EXPECT_THROW(map.try_emplace(3, &alive, true), std::runtime_error);
  map.try_emplace(4, &alive);                                          // takes the freed slot
  EXPECT_THROW(map.try_emplace(5, &alive, true), std::runtime_error);  // a new slot: none free
  EXPECT_EQ(map.size(), 2u);
  EXPECT_FALSE(map.contains(2));
  EXPECT_FALSE(map.contains(5));
  EXPECT_EQ(alive, 2);
  map.try_emplace(6, &alive);
  EXPECT_EQ(alive, 3);
}

TEST(SequentialIdMap, AValueOfWholeCacheLinesStartsOnALine) {
  // A 256-byte record at any 8-byte offset spans five lines most of the time; aligned, four.
  struct FourLines {
    std::uint64_t words[32];
  };
  static_assert(sizeof(FourLines) == 256 && alignof(FourLines) == 8);
  SequentialIdMap<FourLines> map;
  for (std::uint64_t id = 0; id < 5'000; ++id) {
    const auto address = reinterpret_cast<std::uintptr_t>(map.try_emplace(id).first);
    ASSERT_EQ(address % 64, 0u) << "id " << id;
  }
}

}  // namespace
}  // namespace pacing
