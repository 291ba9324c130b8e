#pragma once
// The client under test, run as a child process: its environment extended, SIGINT and SIGTERM
// passed on to it, killed (with its process group) when it outlives its timeout.

#include <chrono>
#include <csignal>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace pacing::recording {

struct CommandOutcome {
  int status = 0;  ///< its exit status, or 128 + N when signal N ended it
  bool timed_out = false;
  std::optional<int> forwarded;  ///< the last signal passed on to it
};

/// The signals a recording stops on. Block them in every thread (before any is started) so that
/// run_command and the servers' stop take them, not the default action.
sigset_t stop_signals();

/// Runs `argv` (looked up in PATH) with `extra` set in its environment and waits for it, passing
/// on each of stop_signals() that arrives. After `timeout` it is sent SIGTERM, and SIGKILL 5 s
/// later. Throws sim::InputError when it cannot be started.
CommandOutcome run_command(const std::vector<std::string>& argv,
                           const std::vector<std::pair<std::string, std::string>>& extra,
                           std::optional<std::chrono::milliseconds> timeout);

/// "ARGV0 ARG1 ...", each quoted when it holds a space or a quote (for reading, not for a shell).
std::string command_line(const std::vector<std::string>& argv);

}  // namespace pacing::recording
