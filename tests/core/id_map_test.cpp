// IdMap against std::unordered_map under random inserts, lookups and erasures (including the
// wrap-around of probe runs that backward-shift deletion must handle).

#include "core/id_map.hpp"

#include <gtest/gtest.h>

#include <random>
#include <unordered_map>

namespace pacing {
namespace {

TEST(IdMap, BehavesAsAHashMapUnderRandomOperations) {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    std::mt19937_64 rng(seed);
    IdMap<std::uint64_t> map;
    std::unordered_map<std::uint64_t, std::uint64_t> model;
    const std::uint64_t key_space = seed % 2 ? 64 : 100'000;  // dense: long runs and wrap-around
    for (int op = 0; op < 20'000; ++op) {
      const std::uint64_t id = rng() % key_space;
      switch (rng() % 3) {
        case 0: {
          auto [value, fresh] = map.try_emplace(id, id * 7);
          EXPECT_EQ(fresh, model.emplace(id, id * 7).second);
          EXPECT_EQ(*value, model.at(id));
          break;
        }
        case 1:
          EXPECT_EQ(map.erase(id), model.erase(id) == 1);
          break;
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
    std::size_t seen = 0;
    map.for_each([&](std::uint64_t id, std::uint64_t value) {
      ++seen;
      EXPECT_EQ(model.at(id), value);
    });
    EXPECT_EQ(seen, model.size());
  }
}

}  // namespace
}  // namespace pacing
