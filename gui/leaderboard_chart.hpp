#pragma once
// The leaderboard as a picture: a heat map with a row per scenario and a column per strategy,
// each cell coloured by how often that strategy was refused there and labelled with its
// makespan over the best (and the share completed, when it gave some up).

#include <QImage>
#include <string>
#include <vector>

namespace pacing::gui {

/// The figures of the map, [row][column].
struct LeaderboardMap {
  std::vector<std::string> scenarios;   ///< rows
  std::vector<std::string> strategies;  ///< columns, in ranking order
  std::vector<std::vector<double>> refusals_per_1000, makespan_ratio, succeeded_share;
};

/// A cell's colour: white for no refusal, deepening to dark red at 1,000 refusals per 1,000
/// requests and beyond (a log scale, so 1 and 10 differ as visibly as 100 and 1,000).
unsigned refusal_colour(double refusals_per_1000);

/// Paints the map (needs a QGuiApplication for its fonts).
QImage paint_leaderboard(const LeaderboardMap& map);

}  // namespace pacing::gui
