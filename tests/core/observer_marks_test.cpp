// An observer may keep a number with each host, group and queue (EntityState::mark,
// QueueState::mark): the lab's recorder finds its series by it instead of looking each key up.

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "tests/core/harness.hpp"

namespace pacing::testing {
namespace {

/// Marks each key it hears of with a number of its own, and checks that every later snapshot of
/// that key carries the number back.
struct MarkingObserver final : EngineObserver {
  explicit MarkingObserver(std::uint32_t first_number = 1) : first_number(first_number) {}
  std::uint32_t first_number;
  std::map<std::string, std::uint32_t> given;  // by key ("queue:" before a queue's)
  int snapshots = 0, unmarked = 0, wrong = 0, came_back = 0;
  void hear(const std::string& key, std::uint32_t* mark) {
    ++snapshots;
    if (!mark) {
      ++unmarked;
      return;
    }
    auto [it, fresh] =
        given.try_emplace(key, first_number + static_cast<std::uint32_t>(given.size()));
    if (*mark == 0) {
      if (!fresh) ++wrong;  // forgotten while this observer watched
      *mark = it->second;
      return;
    }
    ++came_back;
    if (*mark != it->second) ++wrong;
  }
  void on_entity(const EntityState& e) override { hear(std::string(e.key), e.mark); }
  void on_queue(const QueueState& q) override { hear("queue:" + std::string(q.key), q.mark); }
};

class ObserverMarks : public CoreTest {};

TEST_F(ObserverMarks, AMarkComesBackWithEverySnapshotOfItsHostGroupAndQueue) {
  settings.hosts["*.g.org"] = in_flight(1);
  MarkingObserver marks;
  engine().set_observer(&marks);
  for (int i = 0; i < 4; ++i) {
    get("https://a.g.org/" + std::to_string(i));
    get("https://b.g.org/" + std::to_string(i));
    get("https://c.org/" + std::to_string(i));
  }
  clock.run();
  ASSERT_EQ(done.count.size(), 12u);
  EXPECT_EQ(marks.unmarked, 0);
  EXPECT_EQ(marks.wrong, 0);
  // a.g.org, b.g.org, c.org, the group, and a queue per host.
  EXPECT_EQ(marks.given.size(), 7u);
  EXPECT_GT(marks.came_back, 20);
  EXPECT_TRUE(marks.given.count("*.g.org"));
}

TEST_F(ObserverMarks, AMarkIsForgottenWhenTheObserverChanges) {
  MarkingObserver first(1), second(100);  // a mark kept across would not be second's
  engine().set_observer(&first);
  get("https://a.org/1");
  clock.run();
  ASSERT_TRUE(first.given.count("a.org"));
  engine().set_observer(&second);
  // The marks `first` set are not `second`'s: it finds them at 0 and sets its own.
  get("https://a.org/2");
  clock.run();
  EXPECT_EQ(second.wrong, 0);
  EXPECT_EQ(second.unmarked, 0);
  EXPECT_TRUE(second.given.count("a.org"));
  EXPECT_GT(second.came_back, 0);
}

}  // namespace
}  // namespace pacing::testing
