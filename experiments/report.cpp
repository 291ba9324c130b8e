#include "experiments/report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>

namespace pacing::experiments {

using sim::Json;

namespace {

std::string number(double value, int decimals = 0) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

/// Seconds to a precision that suits them: 0.052 s, 1.25 s, 61.3 s, 3604 s.
std::string seconds(double value) {
  const int decimals = value < 1 ? 3 : value < 10 ? 2 : value < 100 ? 1 : 0;
  return number(value, decimals) + " s";
}

std::uint64_t count(const Json& summary, const char* key) {
  return summary.at(key).get<std::uint64_t>();
}

std::string plural(std::uint64_t n, const std::string& one, const std::string& many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

std::string percent(std::uint64_t part, std::uint64_t whole) {
  if (whole == 0) return "0%";
  const double p = 100.0 * static_cast<double>(part) / static_cast<double>(whole);
  return number(p, p > 0 && p < 1 ? 1 : 0) + "%";
}

std::string join(const std::vector<std::string>& parts) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    out += (i == 0 ? "" : i + 1 == parts.size() ? " and " : ", ") + parts[i];
  }
  return out;
}

std::string strategy_of(const Json& result) { return result.value("strategy", "?"); }

/// "2.5×" or "13×": how many times `large` is `small`.
std::string times(double large, double small) {
  const double ratio = large / small;
  return number(ratio, ratio < 10 ? 1 : 0) + "×";
}

}  // namespace

std::string describe_run(const Json& result) {
  const Json& s = result.at("summary");
  const std::uint64_t requests = count(s, "requests"), completed = count(s, "completed");
  std::string out =
      "**" + strategy_of(result) + "** issued " + plural(requests, "request", "requests");
  if (completed == requests) {
    out += requests == 1 ? "; it was answered without refusal.\n"
                         : "; all were answered without refusal.\n";
  } else {
    out += ": " + std::to_string(completed) + " answered without refusal (" +
           percent(completed, requests) + ")";
  }
  std::vector<std::string> others;
  if (const auto n = count(s, "gave_up")) others.push_back(std::to_string(n) + " gave up");
  if (const auto n = count(s, "failed"))
    others.push_back(std::to_string(n) + " failed (timeouts or network errors)");
  if (const auto n = count(s, "aborted")) others.push_back(std::to_string(n) + " were aborted");
  if (completed != requests) out += others.empty() ? ".\n" : "; " + join(others) + ".\n";

  const std::uint64_t refusals = count(s, "refusals"), retries = count(s, "retries");
  if (refusals == 0) {
    out += "No server refused anything";
  } else {
    std::string most_refused;
    std::uint64_t most = 0;
    for (const auto& [host, h] : result.at("hosts").items()) {
      if (h.at("refusals").get<std::uint64_t>() > most) {
        most = h["refusals"].get<std::uint64_t>();
        most_refused = host;
      }
    }
    out += "Servers refused " + plural(refusals, "attempt", "attempts");
    if (result.at("hosts").size() > 1)
      out += " (most on " + most_refused + ": " + std::to_string(most) + ")";
  }
  out += retries == 0 ? "; nothing was retried.\n"
                      : "; " + plural(retries, "retry was", "retries were") + " made.\n";

  out += "The last request finished at " + seconds(s.at("makespan").get<double>());
  if (completed > 0) {
    const Json& l = s.at("latency");
    out += "; answered requests took " + seconds(l.at("p50").get<double>()) + " (median), " +
           seconds(l.at("p95").get<double>()) + " (p95) and " + seconds(l.at("p99").get<double>()) +
           " (p99) from issue to answer";
  }
  out += ".\n";

  for (const auto& [host, h] : result.at("hosts").items()) {
    out += "On " + host + " at most " + std::to_string(h.at("max_in_flight").get<std::int64_t>()) +
           " " + (h["max_in_flight"].get<std::int64_t>() == 1 ? "request was" : "requests were") +
           " in flight at once";
    const double peak = h.value("max_interval", 0.0);
    if (peak > 0) {
      out += "; the learned interval peaked at " + seconds(peak) + " and ended at " +
             seconds(h.value("interval", 0.0));
    }
    out += ".\n";
  }
  return out;
}

std::string compare_runs(const std::vector<Json>& results) {
  if (results.size() < 2) return "";
  auto summary = [](const Json& r, const char* key) {
    return r.at("summary").at(key).get<double>();
  };
  // The strategies whose `key` is the extreme one ("comunica and unpaced" when they tie).
  auto extreme = [&](const char* key, bool largest) {
    double value = summary(results[0], key);
    for (const Json& r : results) {
      value = largest ? std::max(value, summary(r, key)) : std::min(value, summary(r, key));
    }
    std::vector<std::string> names;
    for (const Json& r : results) {
      if (summary(r, key) == value) names.push_back(strategy_of(r));
    }
    return std::make_pair(join(names), value);
  };
  const double requests = summary(results[0], "requests");
  std::string out;

  const auto [most_answered, answered] = extreme("completed", true);
  const auto [least_answered, fewest_answered] = extreme("completed", false);
  if (answered == fewest_answered) {
    out += "Every strategy answered " + number(answered) + " of " + number(requests) +
           " requests without refusal.";
  } else {
    out += most_answered + " answered the most requests without refusal (" + number(answered) +
           " of " + number(requests) + "), " + least_answered + " the fewest (" +
           number(fewest_answered) + ").";
  }

  const auto [least_refused, fewest] = extreme("refusals", false);
  const auto [most_refused, most] = extreme("refusals", true);
  if (most == 0) {
    out += " No strategy was refused.";
  } else if (fewest == 0) {
    out += " " + least_refused + " never met a refusal; " + most_refused + " met " + number(most) +
           ".";
  } else if (fewest != most) {
    out += " " + least_refused + " met the fewest refusals (" + number(fewest) + "), " +
           times(most, fewest) + " fewer than " + most_refused + " (" + number(most) + ").";
  } else {
    out += " Every strategy met " + number(most) + " refusals.";
  }

  const auto [fastest, quick] = extreme("makespan", false);
  const auto [slowest, slow] = extreme("makespan", true);
  if (quick != slow) {
    out += " " + fastest + " finished first (" + seconds(quick) + "), " + slowest + " last (" +
           seconds(slow) + (quick > 0 ? ", " + times(slow, quick) + " later" : "") + ")";
    double fastest_answered = 0;
    for (const Json& r : results) {
      if (summary(r, "makespan") == quick) {
        fastest_answered = std::max(fastest_answered, summary(r, "completed"));
      }
    }
    if (fastest_answered < answered) {
      out += ", but answered only " + number(fastest_answered) + ": giving up is quick";
    }
    out += ".";
  }
  return out + "\n";
}

std::string format_report(const sim::Scenario& scenario, const std::vector<StrategyRun>& runs,
                          const std::string& charts_markdown) {
  std::vector<Json> results;
  for (const StrategyRun& r : runs) results.push_back(r.result);
  std::string out = "# Strategies on `" + scenario.name + "`\n\n";
  if (!scenario.description.empty()) out += scenario.description + "\n\n";
  out +=
      "Scenario `" + scenario.file.string() + "`, seed " +
      std::to_string(results.empty() ? scenario.seed : results[0].value("seed", scenario.seed)) +
      ", virtual time (every figure is reproducible with `pacing-lab run` and the same seed).\n\n";
  const std::string comparison = compare_runs(results);
  if (!comparison.empty()) out += "## In short\n\n" + comparison + "\n";

  out += "## What each strategy did\n\n";
  for (const Json& r : results) out += describe_run(r) + "\n";

  out +=
      "## Summary\n\n| strategy | requests | completed | gave up | failed | aborted | refusals | "
      "retries | makespan (s) | p50 (s) | p95 (s) | p99 (s) |\n"
      "|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const Json& r : results) {
    const Json& s = r.at("summary");
    out += "| " + strategy_of(r);
    for (const char* key :
         {"requests", "completed", "gave_up", "failed", "aborted", "refusals", "retries"}) {
      out += " | " + std::to_string(count(s, key));
    }
    out += " | " + number(s.at("makespan").get<double>(), 3);
    for (const char* p : {"p50", "p95", "p99"})
      out += " | " + number(s["latency"][p].get<double>(), 3);
    out += " |\n";
  }

  out +=
      "\n## Per host\n\n| host | strategy | starts | refusals | retries | gave up | max in flight "
      "| "
      "max interval (s) | final interval (s) |\n|---|---|---|---|---|---|---|---|---|\n";
  std::vector<std::string> hosts;
  for (const Json& r : results) {
    for (const auto& [host, h] : r.at("hosts").items()) {
      if (std::find(hosts.begin(), hosts.end(), host) == hosts.end()) hosts.push_back(host);
    }
  }
  std::sort(hosts.begin(), hosts.end());
  for (const std::string& host : hosts) {
    for (const Json& r : results) {
      if (!r.at("hosts").contains(host)) continue;
      const Json& h = r["hosts"][host];
      out += "| " + host + " | " + strategy_of(r);
      for (const char* key : {"starts", "refusals", "retries", "gave_up", "max_in_flight"}) {
        out += " | " + std::to_string(h.at(key).get<std::int64_t>());
      }
      out += " | " + number(h.value("max_interval", 0.0), 3) + " | " +
             number(h.value("interval", 0.0), 3) + " |\n";
    }
  }

  out += "\n## Expectations\n\n";
  if (scenario.expect.empty()) {
    out += "The scenario states no expectations.\n";
  } else {
    for (const StrategyRun& r : runs) {
      out += "- " + strategy_of(r.result) + ": ";
      if (r.expectations == 0) {
        out += "none of the scenario's expectations apply.\n";
      } else if (r.failed_expectations.empty()) {
        out += r.expectations == 1
                   ? "the one expectation that applies holds.\n"
                   : "all " + std::to_string(r.expectations) + " expectations that apply hold.\n";
      } else {
        out += std::to_string(r.failed_expectations.size()) + " of " +
               std::to_string(r.expectations) + " fail:";
        for (const std::string& f : r.failed_expectations) out += " `" + f + "`;";
        out.back() = '\n';
      }
    }
  }
  out += "\n## Charts\n\n" + charts_markdown + "\n";
  return out;
}

}  // namespace pacing::experiments
