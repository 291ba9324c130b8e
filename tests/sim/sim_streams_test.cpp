// Independent random streams: every kind of draw, each client, host and server, is seeded through
// a mixing function of the run's seed and the stream's identity, so runs with neighbouring seeds
// share no draw and streams within a run are uncorrelated; and one population draws the same
// however the file writes it.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <set>
#include <sstream>

#include "models/random.hpp"
#include "sim/runner.hpp"
#include "strategies/streams.hpp"
#include "tests/trace_lines.hpp"

namespace pacing::sim {
namespace {

using testing::scenario_from;
using testing::trace_lines;

/// The trace of one run of `text` at `seed`.
std::vector<Json> trace_of(const std::string& text, std::uint64_t seed) {
  std::ostringstream trace;
  RunOptions options;
  options.seed = seed;
  options.trace = &trace;
  RunOutcome out = run_scenario(scenario_from(text), options);
  EXPECT_TRUE(out.violations.empty()) << out.violations.front();
  return trace_lines(trace.str());
}

/// Each retry's wait, in microseconds: the gap between an attempt's end and the next attempt's
/// start of the same request, less `less_us`, in the trace's order.
std::vector<std::int64_t> waits_us(const std::vector<Json>& lines, double less_seconds,
                                   const std::string& client = "") {
  std::vector<std::int64_t> out;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    const Json& a = lines[i - 1];
    const Json& b = lines[i];
    if (a["request"] != b["request"] || b["sent"].is_null()) continue;
    if (!client.empty() && b.value("client", "") != client) continue;
    out.push_back(std::llround((b["sent"].get<double>() - a["settled"].get<double>()) * 1e6 -
                               less_seconds * 1e6));
  }
  return out;
}

/// Lines sorted by request, then attempt (a crowd's trace interleaves its clients' requests).
std::vector<Json> by_request(std::vector<Json> lines) {
  std::stable_sort(lines.begin(), lines.end(), [](const Json& a, const Json& b) {
    return std::pair(a["request"].get<int>(), a["attempt"].get<int>()) <
           std::pair(b["request"].get<int>(), b["attempt"].get<int>());
  });
  return lines;
}

// One request refused five times with Retry-After: 100 (no latency, no service time): with the
// core's jitter each retry starts 100 s plus a drawn share of 100 s after the refusal, so the
// five waits, to the microsecond, are five draws of the client's jitter stream. Neighbouring
// seeds share none of them (a chance match of two draws at 10^-8 s apart: under 10^-4 over the
// 300 pairs of seeds).
TEST(Streams, NeighbouringSeedsShareNoJitterDraw) {
  const std::string text = R"({"name": "j", "until": 5000,
    "servers": {"a.test": {"model": "sequence",
                           "responses": [{"status": 429, "headers": {"Retry-After": "100"}}]}},
    "client": {"strategy": "throttle", "retries": 5, "rules": {"jitter": true}},
    "queries": [{"name": "q", "requests": [{"host": "a.test"}]}]})";
  std::vector<std::int64_t> previous;
  for (std::uint64_t seed = 1; seed <= 301; ++seed) {
    std::vector<std::int64_t> waits = waits_us(trace_of(text, seed), 100);
    ASSERT_EQ(waits.size(), 5u) << "seed " << seed;
    for (std::int64_t w : waits) {
      EXPECT_GE(w, 0);
      EXPECT_LT(w, 100'000'000);
      EXPECT_EQ(std::count(previous.begin(), previous.end(), w), 0)
          << "seeds " << seed - 1 << " and " << seed << " share the jitter draw " << w;
    }
    previous = std::move(waits);
  }
}

// The backoff strategy's full jitter, base = cap = 100 s: each wait is a draw in [0, 100 s).
TEST(Streams, NeighbouringSeedsShareNoBackoffDraw) {
  const std::string text = R"({"name": "b", "until": 5000,
    "servers": {"a.test": {"model": "sequence", "responses": [{"status": 429}]}},
    "client": {"strategy": "backoff", "retries": 5,
               "backoff": {"base": 100, "cap": 100, "jitter": "full"}},
    "queries": [{"name": "q", "requests": [{"host": "a.test"}]}]})";
  std::vector<std::int64_t> previous;
  for (std::uint64_t seed = 1; seed <= 301; ++seed) {
    std::vector<std::int64_t> waits = waits_us(trace_of(text, seed), 0);
    ASSERT_EQ(waits.size(), 5u) << "seed " << seed;
    for (std::int64_t w : waits) {
      EXPECT_EQ(std::count(previous.begin(), previous.end(), w), 0)
          << "seeds " << seed - 1 << " and " << seed << " share the backoff draw " << w;
    }
    previous = std::move(waits);
  }
}

/// Pearson's correlation of two series of equal length.
double correlation(const std::vector<double>& x, const std::vector<double>& y) {
  const double n = static_cast<double>(x.size());
  double mx = 0, my = 0;
  for (std::size_t i = 0; i < x.size(); ++i) mx += x[i] / n, my += y[i] / n;
  double sxy = 0, sxx = 0, syy = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    sxy += (x[i] - mx) * (y[i] - my);
    sxx += (x[i] - mx) * (x[i] - mx);
    syy += (y[i] - my) * (y[i] - my);
  }
  return sxx > 0 && syy > 0 ? sxy / std::sqrt(sxx * syy) : 0;
}

// For independent streams, sqrt(n) times the sample correlation of n pairs is close to a standard
// normal. Each test below checks 16 to 32 pairs of series at |z| < 4.42 (two-sided 10^-5 each),
// so a correct implementation fails one of them with probability under 0.04% over the choice of
// the 1,000 seeds.
constexpr int kSeeds = 1000;
constexpr double kZ = 4.42;

void expect_uncorrelated(const std::vector<double>& x, const std::vector<double>& y,
                         const std::string& what) {
  ASSERT_EQ(x.size(), y.size());
  const double z = correlation(x, y) * std::sqrt(static_cast<double>(x.size()));
  EXPECT_LT(std::abs(z), kZ) << what << ": correlation " << z / std::sqrt(x.size());
}

// sre-throttle, two hosts, every answer a refusal and no retries: a host's n-th request is
// rejected locally when its limiter's (n-1)-th draw is below (n-1)/n. Over 1,000 seeds, whether
// host a's i-th and host b's j-th requests were rejected are independent, for every i and j, and
// so are a host's draws at seeds s and s + 1.
TEST(Streams, TwoHostsDrawUncorrelatedStreams) {
  const std::string text = R"({"name": "h", "until": 100,
    "servers": {"a.test": {"model": "sequence", "responses": [{"status": 429}]},
                "b.test": {"model": "sequence", "responses": [{"status": 429}]}},
    "client": {"strategy": "sre-throttle", "retries": 0},
    "queries": [{"name": "q", "requests": [{"host": "a.test", "count": 5, "every": 1},
                                           {"host": "b.test", "count": 5, "every": 1}]}]})";
  // rejected[host][n][seed]: the n-th request (n = 1..4 after the first, which never draws).
  std::vector<std::vector<std::vector<double>>> rejected(2, std::vector<std::vector<double>>(4));
  for (int seed = 1; seed <= kSeeds + 1; ++seed) {
    for (const Json& line : trace_of(text, static_cast<std::uint64_t>(seed))) {
      const int host = line["host"] == "a.test" ? 0 : 1;
      const int n = static_cast<int>(std::llround(line["arrived"].get<double>()));
      if (n >= 1) rejected[host][n - 1].push_back(line["sent"].is_null() ? 1 : 0);
    }
  }
  const auto first = [](const std::vector<double>& v) {
    return std::vector<double>(v.begin(), v.end() - 1);
  };
  const auto next_seed = [](const std::vector<double>& v) {
    return std::vector<double>(v.begin() + 1, v.end());
  };
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 4; ++j) {
      const std::string ij = std::to_string(i + 2) + ", " + std::to_string(j + 2);
      expect_uncorrelated(first(rejected[0][i]), first(rejected[1][j]),
                          "host a's request and host b's, " + ij);
      expect_uncorrelated(first(rejected[0][i]), next_seed(rejected[0][j]),
                          "host a's request at seed s and at s + 1, " + ij);
    }
  }
}

// A crowd of two backoff clients, one request each, refused twice (base = cap = 100 s, full
// jitter): each client's two waits are its first two draws. Over 1,000 seeds, the two clients'
// draws are independent, and so are a client's draws at seeds s and s + 1.
TEST(Streams, TwoClientsDrawUncorrelatedStreams) {
  const std::string text = R"({"name": "c", "until": 5000,
    "servers": {"a.test": {"model": "sequence", "responses": [{"status": 429}]}},
    "clients": [{"name": "crowd", "count": 2, "strategy": "backoff", "retries": 2,
                 "backoff": {"base": 100, "cap": 100, "jitter": "full"}}],
    "queries": [{"name": "q", "client": "crowd", "requests": [{"host": "a.test"}]}]})";
  std::vector<std::vector<double>> draws(4);  // client 0's two, then client 1's two
  for (int seed = 1; seed <= kSeeds + 1; ++seed) {
    const std::vector<Json> lines = by_request(trace_of(text, static_cast<std::uint64_t>(seed)));
    for (int c = 0; c < 2; ++c) {
      const auto waits = waits_us(lines, 0, "crowd#" + std::to_string(c));
      ASSERT_EQ(waits.size(), 2u) << "seed " << seed;
      for (int k = 0; k < 2; ++k) draws[2 * c + k].push_back(static_cast<double>(waits[k]));
    }
  }
  for (auto& d : draws) ASSERT_EQ(d.size(), static_cast<std::size_t>(kSeeds + 1));
  const auto first = [](const std::vector<double>& v) {
    return std::vector<double>(v.begin(), v.end() - 1);
  };
  const auto next_seed = [](const std::vector<double>& v) {
    return std::vector<double>(v.begin() + 1, v.end());
  };
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 4; ++j) {
      const std::string ij = std::to_string(i) + ", " + std::to_string(j);
      if (i / 2 != j / 2)
        expect_uncorrelated(first(draws[i]), first(draws[j]), "the clients' draws " + ij);
      expect_uncorrelated(first(draws[i]), next_seed(draws[j]), "seeds s and s + 1, draws " + ij);
    }
  }
}

/// A trace's lines without the `client` key a crowd's lines carry.
std::vector<Json> without_client(std::vector<Json> lines) {
  for (Json& line : lines) line.erase("client");
  return lines;
}

// A scenario's behaviour does not depend on how its one population is written: `client`, a
// population of one, or a population named `client` in a file without `client` give the same
// trace and figures under every strategy that draws.
TEST(Streams, APopulationOfOneRunsAsClientDoes) {
  const std::string servers = R"("servers": {
      "a.test": {"model": "qlever", "rate": 2, "burst": 2, "latency": {"median": 0.05, "p99": 0.4}},
      "b.test": {"model": "sequence", "responses": [{"status": 503}, {"status": 429},
                                                    {"status": 200}]}})";
  const std::string settings = R"("retries": 4, "rules": {"jitter": true})";
  const std::string requests = R"("requests": [{"host": "a.test", "count": 30, "every": 0.1},
                                               {"host": "b.test", "count": 10, "every": 0.5}])";
  for (const char* strategy :
       {"throttle", "throttle-next", "backoff", "sre-throttle", "aws-adaptive", "comunica"}) {
    const std::string s = strategy;
    const std::string written_as_client = R"({"name": "one", "until": 300, )" + servers +
                                          R"(, "client": {"strategy": ")" + s + "\", " + settings +
                                          R"(}, "queries": [{"name": "q", )" + requests + "}]}";
    const auto population = [&](const std::string& name) {
      return R"({"name": "one", "until": 300, )" + servers + R"(, "clients": [{"name": ")" + name +
             R"(", "strategy": ")" + s + "\", " + settings +
             R"(}], "queries": [{"name": "q", "client": ")" + name + "\", " + requests + "}]}";
    };
    for (std::uint64_t seed : {1, 2, 3}) {
      const std::vector<Json> expected = trace_of(written_as_client, seed);
      EXPECT_EQ(without_client(trace_of(population("solo"), seed)), expected)
          << strategy << ", seed " << seed;
      EXPECT_EQ(without_client(trace_of(population("client"), seed)), expected)
          << strategy << ", seed " << seed;
    }
  }
}

// A population may be named `client` when the file has no `client`: it is the file's client
// (a query naming no population runs on it); with a `client` in the file, the name is taken.
TEST(Streams, APopulationMayBeNamedClientWhenTheFileHasNone) {
  const Scenario s = scenario_from(R"({"name": "n",
    "servers": {"a.test": {"model": "sequence", "responses": [{"status": 200}]}},
    "clients": [{"name": "client", "count": 3, "strategy": "backoff"}],
    "queries": [{"name": "q", "requests": [{"host": "a.test"}]}]})");
  ASSERT_EQ(s.populations.size(), 1u);
  EXPECT_EQ(s.populations[0].count, 3u);
  EXPECT_EQ(s.client.strategy, "backoff");
  EXPECT_EQ(run_scenario(s).result["summary"]["completed"], 3);
  try {
    scenario_from(R"({"name": "n", "client": {},
      "servers": {"a.test": {"model": "sequence", "responses": [{"status": 200}]}},
      "clients": [{"name": "client", "count": 3}],
      "queries": [{"name": "q", "requests": [{"host": "a.test"}]}]})");
    FAIL() << "a population named client beside /client was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("/clients/0/name"), std::string::npos) << e.what();
  }
}

// Within a run, each host's server and link and each client draw from streams of their own: the
// first thousand draws of twenty such streams, at seeds s and s + 1, are all distinct.
TEST(Streams, StreamsOfARunAndOfTheNextSeedAreDistinct) {
  for (std::uint64_t seed = 1; seed <= 50; ++seed) {
    std::set<std::uint64_t> seen;
    std::size_t draws = 0;
    for (std::uint64_t s : {seed, seed + 1}) {
      std::vector<std::uint64_t> roots;
      for (const char* host : {"a.test", "b.test", "a.test:8080"}) {
        roots.push_back(host_stream(s, Stream::server, host));
        roots.push_back(host_stream(s, Stream::link, host));
      }
      for (std::uint64_t population = 0; population < 2; ++population) {
        for (std::uint64_t index = 0; index < 2; ++index) {
          const std::uint64_t client = client_stream(s, population, index);
          for (ClientStream part : {ClientStream::start, ClientStream::jitter,
                                    ClientStream::backoff, ClientStream::host_limiters})
            roots.push_back(client_part(client, part));
        }
      }
      for (std::uint64_t root : roots) {
        Rng rng(root);
        for (int k = 0; k < 1000; ++k, ++draws) seen.insert(rng());
      }
    }
    EXPECT_EQ(seen.size(), draws) << "seed " << seed;
  }
}

}  // namespace
}  // namespace pacing::sim
