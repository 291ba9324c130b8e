#include "gui/app/attempt_memory.hpp"

namespace pacing::gui {

void AttemptMemory::attempt(const sim::AttemptRow& row) {
  if (!row.sent) return;  // a request that never started
  auto it = gathering_.find(row.host);
  if (it == gathering_.end())
    it = gathering_.emplace(std::string(row.host), HostAttemptsBuilder{}).first;
  it->second.add({*row.sent, *row.sent_order}, {row.settled, row.settled_order}, row.status,
                 row.retry_after);
}

void AttemptMemory::seal() {
  for (auto& [key, builder] : gathering_) hosts_[key] = builder.build();
  gathering_.clear();
}

std::shared_ptr<const HostAttempts> AttemptMemory::host(const std::string& key) const {
  auto it = hosts_.find(key);
  return it == hosts_.end() ? nullptr : it->second;
}

}  // namespace pacing::gui
