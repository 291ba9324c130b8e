#pragma once
// What every pacing-lab command shares: exit codes, the way a command is registered, reporting.

#include <CLI/CLI.hpp>
#include <charconv>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "scenario/scenario.hpp"

namespace pacing::cli {

/// Exit codes of the contract.
inline constexpr int kOk = 0, kExpectationFailed = 1, kBadInput = 2, kInvariantBroken = 3;

/// What a chosen command does; it may throw sim::InputError (exit 2).
using Action = std::function<int()>;

/// Each adds its subcommands to `app` and sets `action` when one of them is chosen.
void add_run_commands(CLI::App& app, Action& action);         // run, check, compare
void add_live_commands(CLI::App& app, Action& action);        // fidelity
void add_record_commands(CLI::App& app, Action& action);      // serve, record
void add_import_commands(CLI::App& app, Action& action);      // import har
void add_plot_command(CLI::App& app, Action& action);         // plot (Qt)
void add_sweep_commands(CLI::App& app, Action& action);       // sweep, merge, report
void add_leaderboard_command(CLI::App& app, Action& action);  // leaderboard

/// Prints broken invariants (scenario name and seed) and returns kInvariantBroken.
int report_violations(const sim::Scenario& s, std::uint64_t seed,
                      const std::vector<std::string>& violations);

/// A whole number in [lo, hi] as written (digits only), checked before CLI11 converts it: an
/// unsigned conversion would take "-1" as 2^64 - 1.
inline CLI::Validator whole_number(std::uint64_t lo, std::uint64_t hi) {
  return CLI::Validator(
      [lo, hi](const std::string& text) -> std::string {
        std::uint64_t value = 0;
        const char* end = text.data() + text.size();
        const auto [at, error] = std::from_chars(text.data(), end, value);
        if (text.empty() || error != std::errc() || at != end || value < lo || value > hi) {
          return "must be a whole number from " + std::to_string(lo) + " to " + std::to_string(hi);
        }
        return {};
      },
      "WHOLE");
}

/// Seeds: what the results database (SQLite's signed 64-bit integers) can hold.
inline constexpr std::uint64_t kMaxSeed = 9'223'372'036'854'775'807ull;

/// Splits "a,b,c" into its strategies; throws InputError naming `option` for an unknown one.
std::vector<std::string> parse_strategies(const std::string& list, const std::string& option);

}  // namespace pacing::cli
