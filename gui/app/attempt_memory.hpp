#pragma once
// The attempts of a run made in the window, kept in memory as the simulator reports them, so
// that its charts zoomed finer than the stored series are drawn from the attempts, as a run read
// from a results database is (about 16 bytes per attempt).

#include <map>
#include <string>

#include "results/attempt_detail.hpp"
#include "results/attempt_log.hpp"

namespace pacing::gui {

class AttemptMemory final : public sim::AttemptSink, public AttemptDetail {
 public:
  /// Told of each attempt during the run (RunOptions::attempts).
  void attempt(const sim::AttemptRow& row) override;
  /// After the run: each host's attempts, sorted, ready for the charts.
  void seal();
  std::shared_ptr<const HostAttempts> host(const std::string& key) const override;

 private:
  std::map<std::string, HostAttemptsBuilder, std::less<>> gathering_;
  std::map<std::string, std::shared_ptr<const HostAttempts>> hosts_;
};

}  // namespace pacing::gui
