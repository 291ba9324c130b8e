// pacing-lab serve and record: the mock servers on their own, for any client, recording what
// they serve.

#include <pthread.h>

#include <chrono>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <optional>

#include "cli/common.hpp"
#include "input/files.hpp"
#include "mockservers/mock_servers.hpp"
#include "recording/command.hpp"
#include "recording/recording.hpp"
#include "recording/served_log.hpp"

namespace pacing::cli {

using namespace pacing::sim;
using recording::ServedLog;

namespace {

struct ServeArgs {
  std::string file, bind = "127.0.0.1", record;
  std::optional<int> proxy;
  std::optional<double> until;
  std::optional<std::size_t> requests;
};

struct RecordArgs {
  std::string file, out;
  int proxy = 0;
  std::optional<double> timeout;
  std::string expect_as;
  std::vector<std::string> command;
};

/// Writes the recording of what `log` kept, prints a line per host, and returns result.json.
Json finish_recording(const Scenario& scenario, ServedLog& log, const std::string& dir,
                      const recording::RecordingInfo& info) {
  std::vector<mock::ServedExchange> exchanges = log.take();
  const auto origin = log.first_arrival().value_or(std::chrono::steady_clock::now());
  Json result = recording::recording_result(scenario, exchanges, origin, info);
  recording::write_recording(dir, result, exchanges, origin);
  const Json& s = result["summary"];
  std::cout << "recorded " << exchanges.size() << " exchanges in " << std::fixed
            << std::setprecision(3) << s["makespan"].get<double>() << " s: " << s["completed"]
            << " completed, " << s["refusals"] << " refused, " << s["failed"] << " failed, "
            << s["aborted"] << " aborted\n";
  for (const auto& [host, h] : result["hosts"].items()) {
    std::cout << "  " << host << ": " << h["starts"] << " served, " << h["refusals"]
              << " refused, at most " << h["max_in_flight"] << " at once\n";
  }
  const Json& refused = result["recording"]["refused_by_lab"];
  if (refused["proxy"].get<std::size_t>() + refused["framing"].get<std::size_t>() > 0) {
    std::cout << "  refused before any server: " << refused["proxy"] << " by the proxy, "
              << refused["framing"] << " for their framing\n";
  }
  if (log.full()) {
    std::cout << "  the recording stopped keeping exchanges at " << ServedLog::kMaxExchanges
              << "\n";
  }
  std::cout << "wrote " << dir << "/result.json and " << dir << "/trace.jsonl\n";
  return result;
}

/// Starts the scenario's mock servers (and the proxy), prints "host port" lines, runs until
/// SIGINT or SIGTERM, `until` seconds, or `requests` exchanges; then writes the recording.
int serve_command(const ServeArgs& a) {
  Scenario scenario = load_scenario(a.file);
  std::optional<OutputDir> out_dir;
  if (!a.record.empty()) out_dir.emplace(a.record);
  // Blocked before any server thread starts, so every thread inherits the mask and the signal
  // waits for sigtimedwait below.
  const sigset_t signals = recording::stop_signals();
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  ServedLog log;
  mock::ServeOptions options;
  options.bind_address = a.bind;
  options.observer = a.record.empty() ? nullptr : &log;
  options.proxy_port = a.proxy;
  mock::MockServers servers(scenario, scenario.seed, options);
  for (const auto& [host, port] : servers.ports()) std::cout << host << " " << port << "\n";
  if (servers.proxy_port()) std::cout << "proxy " << *servers.proxy_port() << "\n";
  std::cout << std::flush;
  const auto started = std::chrono::steady_clock::now();
  std::string stopped_by;
  while (stopped_by.empty()) {
    timespec tick{0, 50'000'000};
    siginfo_t info{};
    if (const int sig = sigtimedwait(&signals, &info, &tick); sig > 0) {
      stopped_by = "signal " + std::to_string(sig);
    } else if (a.until &&
               std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count() >=
                   *a.until) {
      stopped_by = "--until";
    } else if (a.requests && log.ended_count() >= *a.requests) {
      stopped_by = "--requests";
    } else if (log.full()) {
      stopped_by = "full";
    }
  }
  servers.stop();
  std::cerr << "stopped (" << stopped_by << ")\n";
  if (a.record.empty()) return kOk;
  finish_recording(scenario, log, a.record, {"", stopped_by, std::nullopt});
  out_dir->keep();
  return kOk;
}

/// Runs COMMAND against the scenario's servers through the proxy, writes what the servers saw,
/// and judges the scenario's expectations on it.
int record_command(const RecordArgs& a) {
  Scenario scenario = load_scenario(a.file);
  if (!a.expect_as.empty()) parse_strategies(a.expect_as, "--expect-as");
  OutputDir out_dir(a.out);
  const sigset_t signals = recording::stop_signals();
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  ServedLog log;
  mock::ServeOptions options;
  options.observer = &log;
  options.proxy_port = a.proxy;
  mock::MockServers servers(scenario, scenario.seed, options);
  const std::string proxy = "http://127.0.0.1:" + std::to_string(*servers.proxy_port());
  Json addresses = Json::object();
  for (const auto& [host, port] : servers.ports()) {
    addresses[host] = "127.0.0.1:" + std::to_string(port);
  }
  std::cerr << "servers " << addresses.dump() << ", proxy " << proxy << "\n";
  const std::vector<std::pair<std::string, std::string>> env = {
      {"HTTP_PROXY", proxy},
      {"http_proxy", proxy},
      {"PACING_LAB_PROXY", proxy},
      {"PACING_LAB_SERVERS", addresses.dump()}};
  std::optional<std::chrono::milliseconds> timeout;
  if (a.timeout) timeout = std::chrono::milliseconds(std::llround(*a.timeout * 1000));
  const std::string line = recording::command_line(a.command);
  const recording::CommandOutcome ran = recording::run_command(a.command, env, timeout);
  servers.stop();
  std::string stopped_by = ran.timed_out   ? "--timeout"
                           : ran.forwarded ? "signal " + std::to_string(*ran.forwarded)
                                           : "command";
  Json result = finish_recording(scenario, log, a.out, {line, stopped_by, ran.status});
  out_dir.keep();
  int status = kOk;
  for (const recording::Verdict& v : recording::judge(scenario, result, a.expect_as)) {
    switch (v.state) {
      case recording::Verdict::State::passed:
        std::cout << "  ok   " << v.metric << "\n";
        break;
      case recording::Verdict::State::failed:
        std::cout << "  FAIL " << v.detail << "\n";
        status = kExpectationFailed;
        break;
      case recording::Verdict::State::not_applicable:
        std::cout << "  n/a  " << v.metric << " (" << v.detail << ")\n";
        break;
    }
  }
  if (ran.timed_out) {
    std::cout << "the command ran past --timeout and was stopped\n";
    status = kExpectationFailed;
  } else if (ran.status != 0) {
    std::cout << "the command exited with status " << ran.status << "\n";
    status = kExpectationFailed;
  }
  return status;
}

}  // namespace

void add_record_commands(CLI::App& app, Action& action) {
  auto serve = std::make_shared<ServeArgs>();
  CLI::App* serve_cmd =
      app.add_subcommand("serve", "Start the scenario's mock servers; print 'host port' lines");
  serve_cmd->add_option("scenario", serve->file, "Scenario file")->required();
  serve_cmd->add_option("--bind", serve->bind, "Address to listen on (default 127.0.0.1)");
  serve_cmd->add_option("--record", serve->record,
                        "Record every exchange served; when stopped, write DIR/result.json and "
                        "DIR/trace.jsonl (the servers' view)");
  serve_cmd
      ->add_option("--proxy", serve->proxy,
                   "Also listen as an HTTP/1.1 forward proxy at PORT (0: any free port)")
      ->check(CLI::Range(0, 65535));
  serve_cmd->add_option("--until", serve->until, "Stop after SECONDS")->check(CLI::Range(0.0, 1e7));
  serve_cmd->add_option("--requests", serve->requests, "Stop once N exchanges were served")
      ->check(whole_number(1, 1'000'000'000));
  serve_cmd->callback([&action, serve] { action = [serve] { return serve_command(*serve); }; });

  auto record = std::make_shared<RecordArgs>();
  CLI::App* record_cmd = app.add_subcommand(
      "record",
      "Run COMMAND against the scenario's servers (through a proxy), record what they served, "
      "judge the scenario's expectations on it: record SCENARIO --out DIR -- COMMAND [ARGS...]");
  record_cmd->add_option("scenario", record->file, "Scenario file")->required();
  record_cmd->add_option("--out", record->out, "Folder for result.json and trace.jsonl")
      ->required();
  record_cmd->add_option("--proxy-port", record->proxy, "The proxy's port (default: any free)")
      ->check(CLI::Range(0, 65535));
  record_cmd
      ->add_option("--timeout", record->timeout,
                   "Stop COMMAND (SIGTERM, then SIGKILL) after SECONDS")
      ->check(CLI::Range(0.001, 1e7));
  record_cmd->add_option("--expect-as", record->expect_as,
                         "Also hold the client to the expectations meant for STRATEGY");
  record_cmd->add_option("command", record->command, "The client to run, after --")
      ->required()
      ->expected(-1);
  record_cmd->callback(
      [&action, record] { action = [record] { return record_command(*record); }; });
}

}  // namespace pacing::cli
