// Grid axes: parsing --grid, expanding combinations, setting values in a scenario document.

#include <gtest/gtest.h>

#include "experiments/grid.hpp"

namespace pacing::experiments {
namespace {

using sim::InputError;

TEST(Grid, ParsesPointerAndJsonValues) {
  const GridAxis axis = parse_grid_axis("/client/inFlight=8,16,32");
  EXPECT_EQ(axis.pointer, "/client/inFlight");
  ASSERT_EQ(axis.values.size(), 3u);
  EXPECT_EQ(axis.values[0], Json(8));
  EXPECT_EQ(axis.values[2], Json(32));
}

TEST(Grid, ValuesThatAreNotJsonAreStrings) {
  const GridAxis axis = parse_grid_axis("/client/strategy=throttle,unpaced");
  EXPECT_EQ(axis.values[0], Json("throttle"));
  EXPECT_EQ(axis.values[1], Json("unpaced"));
}

TEST(Grid, CommasInsideObjectsArraysAndStringsDoNotSplit) {
  const GridAxis axis =
      parse_grid_axis(R"(/servers/a/service={"median":0.05,"p99":0.4},[1,2],"x,y",0.1)");
  ASSERT_EQ(axis.values.size(), 4u);
  EXPECT_EQ(axis.values[0], Json::parse(R"({"median":0.05,"p99":0.4})"));
  EXPECT_EQ(axis.values[1], Json::parse("[1,2]"));
  EXPECT_EQ(axis.values[2], Json("x,y"));
  EXPECT_EQ(axis.values[3], Json(0.1));
}

TEST(Grid, MalformedArgumentsNameThemselves) {
  for (const std::string bad :
       {"client/inFlight=1", "/client/inFlight", "=1,2", "/a=1,,2", "/a=", "/a=1,1", "/a~2=1"}) {
    try {
      parse_grid_axis(bad);
      ADD_FAILURE() << bad << " was accepted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("--grid " + bad), std::string::npos) << e.what();
    }
  }
}

TEST(Grid, RefusesTheSamePointerTwice) { EXPECT_THROW(parse_grid({"/a=1,2", "/a=3"}), InputError); }

TEST(Grid, CombinationsVaryTheLastAxisFastest) {
  const auto axes = parse_grid({"/a=1,2,3", "/b=x,y"});
  ASSERT_EQ(combination_count(axes), 6u);
  EXPECT_EQ(combination_values(axes, 0), (std::vector<std::size_t>{0, 0}));
  EXPECT_EQ(combination_values(axes, 1), (std::vector<std::size_t>{0, 1}));
  EXPECT_EQ(combination_values(axes, 2), (std::vector<std::size_t>{1, 0}));
  EXPECT_EQ(combination_values(axes, 5), (std::vector<std::size_t>{2, 1}));
  EXPECT_EQ(combination_label(axes, 3), "/a=2, /b=y");
}

TEST(Grid, NoAxesIsOneCombination) {
  EXPECT_EQ(combination_count({}), 1u);
  EXPECT_TRUE(combination_values({}, 0).empty());
}

TEST(Grid, AppliesACombinationToADocument) {
  Json document = Json::parse(R"({"client": {"hosts": {"q.org": {"perSecond": 1}}}})");
  const auto axes = parse_grid({"/client/hosts/q.org/perSecond=0.5,2", "/client/inFlight=4,8"});
  apply_combination(document, axes, 2);  // perSecond 2, inFlight 4
  EXPECT_EQ(document["client"]["hosts"]["q.org"]["perSecond"], Json(2));
  EXPECT_EQ(document["client"]["inFlight"], Json(4));
}

TEST(Grid, APointerWhoseParentIsMissingIsRefused) {
  Json document = Json::parse(R"({"client": {}, "queries": [{"requests": [{"count": 1}]}]})");
  for (const std::string bad : {"/client/nope/x=1", "/queries/0/requests/1/count=1",
                                "/queries/0/requests/-=1", "/queries/3/name=x"}) {
    const GridAxis axis = parse_grid_axis(bad);
    try {
      set_grid_value(document, axis, axis.values[0]);
      ADD_FAILURE() << bad << " was accepted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("does not exist in the scenario"), std::string::npos)
          << e.what();
    }
  }
}

TEST(Grid, ValueTextShowsStringsBare) {
  EXPECT_EQ(value_text(Json("throttle")), "throttle");
  EXPECT_EQ(value_text(Json(0.5)), "0.5");
  EXPECT_EQ(value_text(Json::parse("[1,2]")), "[1,2]");
}

}  // namespace
}  // namespace pacing::experiments
