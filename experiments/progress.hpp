#pragma once
// A progress bar with an estimate of the time left, for long sweeps (written to stderr).

#include <chrono>
#include <cstddef>
#include <ostream>
#include <string>

namespace pacing::experiments {

/// Draws "[#####.....] 120/480 runs  25%  3.2 s elapsed, about 9.6 s left". On a terminal it
/// redraws one line in place (at most ten times a second); elsewhere (a log file, CI) it writes a
/// line at every tenth of the way, so logs stay short.
class ProgressBar {
 public:
  ProgressBar(std::ostream& out, std::size_t total, bool terminal);
  /// `done` runs are finished.
  void update(std::size_t done);
  /// Draws the final state and ends the line.
  void finish();

  /// "[####......] 4/10 runs  40%  2.0 s elapsed, about 3.0 s left" for the given state.
  static std::string line(std::size_t done, std::size_t total, double elapsed_seconds);

 private:
  std::ostream& out_;
  std::size_t total_;
  bool terminal_;
  std::size_t done_ = 0;
  std::size_t last_tenth_ = 0;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_draw_{};
};

/// Whether standard error is a terminal.
bool stderr_is_terminal();

}  // namespace pacing::experiments
