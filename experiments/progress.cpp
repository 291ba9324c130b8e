#include "experiments/progress.hpp"

#include <unistd.h>

#include <cstdio>

namespace pacing::experiments {

namespace {

std::string duration_text(double seconds) {
  char text[32];
  if (seconds < 60) {
    std::snprintf(text, sizeof text, "%.1f s", seconds);
  } else if (seconds < 3600) {
    std::snprintf(text, sizeof text, "%d min %02d s", static_cast<int>(seconds) / 60,
                  static_cast<int>(seconds) % 60);
  } else {
    std::snprintf(text, sizeof text, "%d h %02d min", static_cast<int>(seconds) / 3600,
                  static_cast<int>(seconds) % 3600 / 60);
  }
  return text;
}

}  // namespace

bool stderr_is_terminal() { return isatty(fileno(stderr)) != 0; }

ProgressBar::ProgressBar(std::ostream& out, std::size_t total, bool terminal)
    : out_(out), total_(total), terminal_(terminal), start_(std::chrono::steady_clock::now()) {}

std::string ProgressBar::line(std::size_t done, std::size_t total, double elapsed) {
  constexpr std::size_t kWidth = 30;
  const std::size_t filled = total == 0 ? kWidth : done * kWidth / total;
  std::string bar = "[" + std::string(filled, '#') + std::string(kWidth - filled, '.') + "] ";
  char text[64];
  std::snprintf(text, sizeof text, "%zu/%zu runs %3zu%%  ", done, total,
                total == 0 ? std::size_t{100} : done * 100 / total);
  std::string out = bar + text + duration_text(elapsed) + " elapsed";
  if (done > 0 && done < total) {
    // Runs are alike, so the mean time per finished run predicts the rest.
    out += ", about " +
           duration_text(elapsed / static_cast<double>(done) * static_cast<double>(total - done)) +
           " left";
  }
  return out;
}

void ProgressBar::update(std::size_t done) {
  done_ = done;
  const auto now = std::chrono::steady_clock::now();
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  if (terminal_) {
    if (now - last_draw_ < std::chrono::milliseconds(100) && done < total_) return;
    last_draw_ = now;
    out_ << "\r" << line(done, total_, elapsed) << "\x1b[K" << std::flush;
  } else {
    const std::size_t tenth = total_ == 0 ? 10 : done * 10 / total_;
    if (tenth == last_tenth_) return;
    last_tenth_ = tenth;
    out_ << line(done, total_, elapsed) << "\n" << std::flush;
  }
}

void ProgressBar::finish() {
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  if (terminal_) {
    out_ << "\r" << line(done_, total_, elapsed) << "\x1b[K\n" << std::flush;
  } else if (last_tenth_ < 10) {
    out_ << line(done_, total_, elapsed) << "\n" << std::flush;
  }
}

}  // namespace pacing::experiments
