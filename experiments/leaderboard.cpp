#include "experiments/leaderboard.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <mutex>
#include <tuple>

#include "experiments/parallel.hpp"
#include "input/csv.hpp"
#include "sim/runner.hpp"
#include "strategies/registry.hpp"

namespace pacing::experiments {

const char* const kRankingRule =
    "Strategies are ranked by (1) the share of requests that succeeded (answered 2xx: an answer "
    "403 after an eviction completes but does not succeed), the mean over scenarios (to 0.1 %: "
    "giving up is never a way to win), then (2) how often they were refused: the "
    "geometric mean over scenarios of 1 + refusals per 1,000 requests, minus 1 (to 0.1), then "
    "(3) how long they took: the geometric mean over scenarios of the makespan over the best one "
    "on that scenario, the shortest among the strategies that succeeded the most there (so that "
    "finishing early by giving up sets no standard; a strategy that gave up may score below 1).";

namespace {

/// What one run gives the board.
struct Sample {
  double requests = 0, completed = 0, succeeded = 0, refusals_per_1000 = 0, gave_up = 0,
         makespan = 0;
  std::optional<double> fairness;
};

Sample sample_of(const sim::Json& result) {
  const sim::Json& s = result.at("summary");
  Sample out;
  out.requests = s.at("requests").get<double>();
  out.completed = s.at("completed").get<double>();
  out.succeeded = s.at("succeeded").get<double>();
  out.gave_up = s.at("gave_up").get<double>();
  out.makespan = s.at("makespan").get<double>();
  const double refusals = s.at("refusals").get<double>();
  out.refusals_per_1000 = out.requests > 0 ? 1000 * refusals / out.requests : 0;
  if (auto f = s.find("fairness"); f != s.end() && f->is_number()) out.fairness = f->get<double>();
  return out;
}

LeaderboardCell cell_of(const std::vector<Sample>& samples) {
  LeaderboardCell cell;
  auto column = [&](auto field) {
    std::vector<double> values;
    for (const Sample& s : samples) values.push_back(field(s));
    return estimate(values);
  };
  cell.requests = samples.front().requests;
  cell.completed = column([](const Sample& s) { return s.completed; });
  cell.succeeded = column([](const Sample& s) { return s.succeeded; });
  cell.refusals_per_1000 = column([](const Sample& s) { return s.refusals_per_1000; });
  cell.gave_up = column([](const Sample& s) { return s.gave_up; });
  cell.makespan = column([](const Sample& s) { return s.makespan; });
  if (samples.front().fairness) {
    cell.fairness = column([](const Sample& s) { return s.fairness.value_or(0); });
  }
  return cell;
}

std::vector<Standing> rank(const Leaderboard& board) {
  std::vector<Standing> out;
  const double n = static_cast<double>(board.scenarios.size());
  for (std::size_t k = 0; k < board.strategies.size(); ++k) {
    Standing s;
    s.strategy = board.strategies[k];
    double share = 0, log_refusals = 0, log_ratio = 0;
    for (const auto& row : board.cells) {
      const LeaderboardCell& c = row[k];
      share += c.requests > 0 ? c.succeeded.mean / c.requests : 1;
      log_refusals += std::log1p(c.refusals_per_1000.mean);
      log_ratio += std::log(c.makespan_ratio);
    }
    s.succeeded_share = n > 0 ? share / n : 1;
    s.refusals_per_1000 = n > 0 ? std::expm1(log_refusals / n) : 0;
    s.makespan_ratio = n > 0 ? std::exp(log_ratio / n) : 1;
    out.push_back(s);
  }
  auto key = [](const Standing& s) {
    return std::make_tuple(-std::round(s.succeeded_share * 1000),
                           std::round(s.refusals_per_1000 * 10), s.makespan_ratio);
  };
  std::stable_sort(out.begin(), out.end(),
                   [&](const Standing& a, const Standing& b) { return key(a) < key(b); });
  return out;
}

std::string fixed(double value, int decimals) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

/// "12.3 ± 0.4" (no interval for one replication or an exact figure).
std::string with_interval(const Estimate& e, int decimals) {
  std::string out = fixed(e.mean, decimals);
  if (e.ci95 > 0) out += " ± " + fixed(e.ci95, decimals);
  return out;
}

const std::string& description_of(const std::string& strategy) {
  static const std::string none;
  const sim::StrategyInfo* info = sim::find_strategy(strategy);
  return info ? info->description : none;
}

}  // namespace

Leaderboard run_leaderboard(const LeaderboardRequest& request,
                            const std::function<void(std::size_t, std::size_t)>& progress) {
  Leaderboard board;
  board.strategies = request.strategies;
  board.replications = request.replications;
  for (const sim::Scenario& s : request.scenarios) board.scenarios.push_back(s.name);
  const std::size_t per_scenario = request.strategies.size() * request.replications;
  const std::size_t total = request.scenarios.size() * per_scenario;
  std::vector<Sample> samples(total);
  std::mutex mutex;  // guards violations
  auto run = [&](std::size_t i) {
    const sim::Scenario& scenario = request.scenarios[i / per_scenario];
    const std::size_t k = (i % per_scenario) / request.replications;
    const std::size_t replication = i % request.replications;
    sim::RunOptions options;
    options.strategy = request.strategies[k];
    options.seed = scenario.seed + replication;
    options.series = false;  // counts only, unless the database wants the series
    const sim::DbRun row{static_cast<std::int64_t>(i), std::nullopt, replication,
                         sim::Json::object()};
    sim::RunOutcome outcome = sim::run_and_record(scenario, options, request.db, row);
    samples[i] = sample_of(outcome.result);
    std::lock_guard lock(mutex);
    for (const std::string& v : outcome.violations) {
      board.violations.push_back(scenario.name + " with " + request.strategies[k] + ", seed " +
                                 std::to_string(*options.seed) + ": " + v);
    }
  };
  parallel_for(total, request.jobs, run, [&](std::size_t done) {
    if (progress) progress(done, total);
  });
  std::sort(board.violations.begin(), board.violations.end());
  for (std::size_t s = 0; s < request.scenarios.size(); ++s) {
    std::vector<LeaderboardCell> row;
    for (std::size_t k = 0; k < request.strategies.size(); ++k) {
      const auto first = samples.begin() +
                         static_cast<std::ptrdiff_t>(s * per_scenario + k * request.replications);
      row.push_back(cell_of(
          std::vector<Sample>(first, first + static_cast<std::ptrdiff_t>(request.replications))));
    }
    // The best makespan among the strategies that succeeded the most (to 0.1 %): finishing
    // early by giving up (or by being evicted) sets no standard.
    auto share = [](const LeaderboardCell& c) {
      return c.requests > 0 ? std::round(1000 * c.succeeded.mean / c.requests) : 1000.0;
    };
    double most = 0, best = 0;
    for (const LeaderboardCell& c : row) most = std::max(most, share(c));
    for (const LeaderboardCell& c : row) {
      if (share(c) == most && c.makespan.mean > 0 && (best == 0 || c.makespan.mean < best)) {
        best = c.makespan.mean;
      }
    }
    for (LeaderboardCell& c : row) c.makespan_ratio = best > 0 ? c.makespan.mean / best : 1;
    board.cells.push_back(std::move(row));
  }
  board.standings = rank(board);
  return board;
}

std::string format_leaderboard_markdown(const Leaderboard& board) {
  std::string out = "# Leaderboard\n\n";
  out += std::to_string(board.strategies.size()) + " strategies on " +
         std::to_string(board.scenarios.size()) + " scenarios, " +
         std::to_string(board.replications) +
         " seeds each (each scenario's seed and the next ones); ± is the half-width of the 95% "
         "confidence interval of the mean (Student's t).\n\n";
  out += "## Ranking\n\n" + std::string(kRankingRule) + "\n\n";
  out +=
      "| rank | strategy | succeeded (share) | refusals per 1,000 | makespan / best | what it is "
      "|\n";
  out += "|---:|---|---:|---:|---:|---|\n";
  for (std::size_t i = 0; i < board.standings.size(); ++i) {
    const Standing& s = board.standings[i];
    out += "| " + std::to_string(i + 1) + " | " + s.strategy + " | " +
           fixed(100 * s.succeeded_share, 1) + " % | " + fixed(s.refusals_per_1000, 1) + " | " +
           fixed(s.makespan_ratio, 2) + " | " + description_of(s.strategy) + " |\n";
  }
  if (!board.violations.empty()) {
    out += "\n**Broken invariants** (" + std::to_string(board.violations.size()) + "):\n\n";
    for (const std::string& v : board.violations) out += "- " + v + "\n";
  }
  out += "\n## Per scenario\n";
  for (std::size_t s = 0; s < board.scenarios.size(); ++s) {
    const auto& row = board.cells[s];
    const bool crowd = row.front().fairness.has_value();
    out += "\n### " + board.scenarios[s] + "\n\n" + fixed(row.front().requests, 0) +
           " requests a run.\n\n";
    out +=
        "| strategy | completed | succeeded | refusals per 1,000 | gave up | makespan (s) | × "
        "best |";
    out += crowd ? " fairness (Jain) |\n" : "\n";
    out += "|---|---:|---:|---:|---:|---:|---:|";
    out += crowd ? "---:|\n" : "\n";
    for (std::size_t k = 0; k < board.strategies.size(); ++k) {
      const LeaderboardCell& c = row[k];
      out += "| " + board.strategies[k] + " | " + with_interval(c.completed, 1) + " | " +
             with_interval(c.succeeded, 1) + " | " + with_interval(c.refusals_per_1000, 1) + " | " +
             with_interval(c.gave_up, 1) + " | " + with_interval(c.makespan, 2) + " | " +
             fixed(c.makespan_ratio, 2) + " |";
      out += crowd ? " " + with_interval(*c.fairness, 3) + " |\n" : "\n";
    }
  }
  return out;
}

std::string format_leaderboard_csv(const Leaderboard& board) {
  std::string out =
      csv_line({"scenario", "strategy", "replications", "requests", "completed", "completed_ci95",
                "refusals_per_1000", "refusals_per_1000_ci95", "gave_up", "gave_up_ci95",
                "makespan", "makespan_ci95", "makespan_ratio", "fairness", "fairness_ci95",
                "succeeded", "succeeded_ci95"});
  for (std::size_t s = 0; s < board.scenarios.size(); ++s) {
    for (std::size_t k = 0; k < board.strategies.size(); ++k) {
      const LeaderboardCell& c = board.cells[s][k];
      out += csv_line({board.scenarios[s], board.strategies[k], std::to_string(board.replications),
                       format_number(c.requests), format_number(c.completed.mean),
                       format_number(c.completed.ci95), format_number(c.refusals_per_1000.mean),
                       format_number(c.refusals_per_1000.ci95), format_number(c.gave_up.mean),
                       format_number(c.gave_up.ci95), format_number(c.makespan.mean),
                       format_number(c.makespan.ci95), format_number(c.makespan_ratio),
                       c.fairness ? format_number(c.fairness->mean) : "",
                       c.fairness ? format_number(c.fairness->ci95) : "",
                       format_number(c.succeeded.mean), format_number(c.succeeded.ci95)});
    }
  }
  return out;
}

}  // namespace pacing::experiments
