#include "recording/command.hpp"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>

#include "input/json_input.hpp"

extern char** environ;

namespace pacing::recording {

sigset_t stop_signals() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  return signals;
}

CommandOutcome run_command(const std::vector<std::string>& argv,
                           const std::vector<std::pair<std::string, std::string>>& extra,
                           std::optional<std::chrono::milliseconds> timeout) {
  if (argv.empty()) throw sim::InputError("no command to run");
  // The environment: ours, with `extra` replacing variables of the same name.
  std::map<std::string, std::string> env;
  for (char** e = environ; *e; ++e) {
    const std::string entry = *e;
    const auto eq = entry.find('=');
    if (eq != std::string::npos) env[entry.substr(0, eq)] = entry.substr(eq + 1);
  }
  for (const auto& [name, value] : extra) env[name] = value;
  std::vector<std::string> env_text;
  for (const auto& [name, value] : env) env_text.push_back(name + "=" + value);
  std::vector<char*> envp, args;
  for (auto& e : env_text) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<std::string> argv_copy = argv;
  for (auto& a : argv_copy) args.push_back(a.data());
  args.push_back(nullptr);

  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none, defaults = stop_signals();
  sigemptyset(&none);
  sigaddset(&defaults, SIGPIPE);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  // A group of its own: a timeout ends what it started too (a shell's children).
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setflags(&attr,
                           POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP);
  pid_t pid = 0;
  const int error = posix_spawnp(&pid, args[0], nullptr, &attr, args.data(), envp.data());
  posix_spawnattr_destroy(&attr);
  if (error != 0) {
    throw sim::InputError("cannot run " + argv[0] + ": " + std::strerror(error));
  }

  CommandOutcome outcome;
  const sigset_t signals = stop_signals();
  const auto started = std::chrono::steady_clock::now();
  std::optional<std::chrono::steady_clock::time_point> killed_at;
  for (;;) {
    int status = 0;
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid) {
      outcome.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      return outcome;
    }
    if (done < 0 && errno != EINTR) {
      outcome.status = 127;
      return outcome;
    }
    timespec tick{0, 20'000'000};  // 20 ms: how late a child's end is seen
    siginfo_t info{};
    if (const int sig = ::sigtimedwait(&signals, &info, &tick); sig > 0) {
      outcome.forwarded = sig;
      ::kill(-pid, sig);
    }
    const auto now = std::chrono::steady_clock::now();
    if (timeout && !outcome.timed_out && now - started >= *timeout) {
      outcome.timed_out = true;
      killed_at = now;
      ::kill(-pid, SIGTERM);
    }
    if (killed_at && now - *killed_at >= std::chrono::seconds(5)) {
      ::kill(-pid, SIGKILL);
      killed_at.reset();
    }
  }
}

std::string command_line(const std::vector<std::string>& argv) {
  std::string line;
  for (const std::string& a : argv) {
    if (!line.empty()) line += ' ';
    const bool quote = a.empty() || a.find_first_of(" \t'\"") != std::string::npos;
    line += quote ? "'" + a + "'" : a;
  }
  return line;
}

}  // namespace pacing::recording
