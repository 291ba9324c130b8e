#pragma once
// The registry of strategies: every strategy the lab compares, by name, with its one-line
// description, the reader of its own settings (`client.<name>` in a scenario), its factory, and
// the invariants it is held to. Names, help, validation and the GUI's lists come from here.

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/clock.hpp"
#include "core/settings.hpp"
#include "core/transport.hpp"
#include "input/json_input.hpp"
#include "strategies/strategy.hpp"

namespace pacing::sim {

/// A strategy's own settings, read from its `client.<name>` object.
struct StrategySettings {
  virtual ~StrategySettings() = default;
};
/// Settings of type T, as a StrategySettings.
template <class T>
struct OwnSettings final : StrategySettings {
  explicit OwnSettings(T v) : value(std::move(v)) {}
  T value;
};
/// Each strategy's own settings by its name (absent: the strategy has none).
using StrategySettingsMap =
    std::map<std::string, std::shared_ptr<const StrategySettings>, std::less<>>;

/// The core's settings that a population's clients run with, made by the first client's
/// strategy and shared by the rest: a crowd of 10,000 engines keeps one copy, not 10,000.
class SharedEngineSettings {
 public:
  /// The settings `make()` returns, made on the first call only.
  template <typename Make>
  std::shared_ptr<const EngineSettings> get(Make&& make) {
    if (!settings_) settings_ = std::make_shared<const EngineSettings>(make());
    return settings_;
  }

 private:
  std::shared_ptr<const EngineSettings> settings_;
};

/// What a strategy is built from.
struct StrategyInputs {
  Clock& clock;
  Transport& transport;
  /// The client's common settings: host limits, retries, timeout's User-Agent, the core's rules.
  const EngineSettings& engine;
  /// `retries` as written (each strategy has its own default).
  std::optional<int> retries;
  /// From the strategy's reader (null when it has none).
  const StrategySettings* own;
  /// Seeds the strategy's own random draws (one stream per client).
  std::uint64_t seed;
  /// Where the clients of one population share their core settings (null: not shared).
  SharedEngineSettings* shared = nullptr;
};

struct StrategyInfo {
  std::string name;
  std::string description;  ///< one line, for help, the GUI and the leaderboard
  /// Reads its `client.<name>` object (null: absent, every default), reporting defects by
  /// pointer. Empty for a strategy without settings of its own.
  std::function<std::shared_ptr<const StrategySettings>(const Json* object,
                                                        const std::string& pointer, Defects&)>
      read;
  std::function<std::unique_ptr<Strategy>(const StrategyInputs&)> make;
  /// The settings whose caps, spacing and pauses the invariant checker holds its attempts to,
  /// given the client's; nullopt when it keeps no per-host limits (only the invariants every
  /// strategy keeps apply: exactly-once completion, ordered instants, aborts).
  std::function<std::optional<EngineSettings>(const EngineSettings&, std::optional<int> retries)>
      checked;
};

/// Every registered strategy, the production core first.
const std::vector<StrategyInfo>& strategies();
/// The strategy of that name, or null.
const StrategyInfo* find_strategy(std::string_view name);
/// The registered names, in registry order.
const std::vector<std::string>& strategy_names();
/// "throttle, comunica, ...": for help and error messages.
std::string strategy_list();

/// Reads every registered strategy's own settings object present in a client's object `client`
/// (each under its name), with defaults for the absent ones.
StrategySettingsMap read_strategy_settings(ObjectReader& client);

/// Builds the strategy `info` for a client: its own settings from `own` (by its name). The
/// clients of one population pass the same `shared` (one per population and strategy).
std::unique_ptr<Strategy> make_strategy(const StrategyInfo& info, Clock& clock,
                                        Transport& transport, const EngineSettings& engine,
                                        std::optional<int> retries, const StrategySettingsMap& own,
                                        std::uint64_t seed, SharedEngineSettings* shared = nullptr);

}  // namespace pacing::sim
