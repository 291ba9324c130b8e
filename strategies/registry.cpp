#include "strategies/registry.hpp"

#include <algorithm>

#include "strategies/aws_adaptive.hpp"
#include "strategies/backoff.hpp"
#include "strategies/client_limiter.hpp"
#include "strategies/comunica.hpp"
#include "strategies/streams.hpp"
#include "strategies/throttle.hpp"
#include "strategies/unpaced.hpp"

namespace pacing::sim {

namespace {

/// The settings of a strategy's own type (its reader made them).
template <class T>
const T& own(const StrategyInputs& in) {
  static const T defaults{};
  const auto* typed = dynamic_cast<const OwnSettings<T>*>(in.own);
  return typed ? typed->value : defaults;
}

/// `fixed`: the core with every learning rule off, so what remains is what a user of npm
/// bottleneck (`maxConcurrent`, `minTime`) or p-limit sets by hand: each host's in-flight cap
/// and spacing from the client's host limits; a refusal is queued again at once, `retries`
/// times (none unless written), and nothing is learned from it.
EngineSettings fixed_settings(EngineSettings engine, std::optional<int> retries) {
  Rules& rules = engine.rules;
  rules.double_on_refusal = false;
  rules.decay_on_success = false;
  rules.pause_on_retry_after = false;
  rules.jitter = false;
  engine.hints = false;
  engine.retry_count = retries.value_or(0);
  return engine;
}

/// `throttle-next`, the lab's proposal: the core with the rules a crowd and a refusing server
/// ask for switched on: it remembers the interval refusals began at and settles just above it
/// (Rules::remember_refusal), follows RateLimit hints, and jitters its waits so that clients
/// refused together do not come back together. Its numbers are the client's (refusalMargin,
/// refusalFade, jitterShare) with the core's defaults.
struct ThrottleNextSettings {
  /// A tenth of a wait: enough to spread a crowd refused together, little for a client alone.
  double jitter_share = 0.1;
};

EngineSettings next_settings(EngineSettings engine, const ThrottleNextSettings& own) {
  engine.rules.remember_refusal = true;
  engine.rules.jitter = true;
  engine.hints = true;
  engine.jitter_share = own.jitter_share;
  return engine;
}

/// The core on the settings `make()` returns, drawing its jitter from the client's seed; the
/// settings are made once per population when its clients share them.
template <typename Make>
std::unique_ptr<Strategy> core_strategy(const StrategyInputs& in, Make&& make) {
  std::shared_ptr<const EngineSettings> settings =
      in.shared ? in.shared->get(make) : std::make_shared<const EngineSettings>(make());
  return std::make_unique<ThrottleStrategy>(in.clock, in.transport, std::move(settings),
                                            client_part(in.seed, ClientStream::jitter));
}

/// Each host's limiter gets its own stream of draws, the n-th host to be used the n-th stream.
ClientLimiterFactory sre_limiters(SreThrottleSettings settings, std::uint64_t client_seed) {
  auto hosts = std::make_shared<std::uint64_t>(0);
  const std::uint64_t seed = client_part(client_seed, ClientStream::host_limiters);
  return [settings, seed, hosts] {
    return std::make_unique<SreThrottleLimiter>(settings, derive_seed(seed, (*hosts)++));
  };
}

/// A client's backoff waits, from its own stream.
RetryDelay client_backoff(const BackoffSettings& settings, std::uint64_t client_seed) {
  return backoff_delay(settings, client_part(client_seed, ClientStream::backoff));
}

/// For the strategies that keep no per-host limits of the core's kind (see
/// StrategyInfo::checked): only the invariants every strategy keeps apply.
std::optional<EngineSettings> no_limits(const EngineSettings&, std::optional<int>) {
  return std::nullopt;
}

/// A strategy that sends directly (UnpacedStrategy), with its own User-Agent, its default number
/// of retries, its waits before a retry and its limiter per host.
std::unique_ptr<Strategy> direct(const StrategyInputs& in, const std::string& name,
                                 int default_retries, RetryDelay delay = {},
                                 ClientLimiterFactory limiter = {}) {
  return std::make_unique<UnpacedStrategy>(
      in.clock, in.transport, in.retries.value_or(default_retries),
      "pacing-lab/0.1 " + name + " (+https://github.com/pacing-lab/pacing-lab)", std::move(delay),
      std::move(limiter));
}

std::vector<StrategyInfo> make_registry() {
  std::vector<StrategyInfo> r;
  r.push_back(
      {"throttle",
       "the production core: per-host queues and caps, intervals learned from refusals, "
       "Retry-After pauses, retries",
       {},
       [](const StrategyInputs& in) { return core_strategy(in, [&] { return in.engine; }); },
       [](const EngineSettings& engine, std::optional<int>) {
         return std::optional<EngineSettings>(engine);
       }});
  r.push_back(
      {"comunica",
       "Comunica 5.4.0's actor-http-limit-rate and actor-http-retry, as Comunica ships them",
       [](const Json* object, const std::string& pointer, Defects& d) {
         ComunicaSettings c;
         if (object) {
           ObjectReader cr(*object, pointer, d);
           if (auto v = cr.number("correctionMultiplier", 0, 1e6)) c.correction_multiplier = *v;
           if (auto v = cr.number("failureMultiplier", 0, 1e6)) c.failure_multiplier = *v;
           if (auto v = cr.boolean("limitByDefault")) c.limit_by_default = *v;
           if (auto v = cr.boolean("allowOverlap")) c.allow_overlap = *v;
           cr.finish();
         }
         return std::make_shared<const OwnSettings<ComunicaSettings>>(std::move(c));
       },
       [](const StrategyInputs& in) {
         ComunicaSettings c = own<ComunicaSettings>(in);
         c.retry_count = in.retries;
         return std::make_unique<ComunicaStrategy>(in.clock, in.transport, std::move(c));
       },
       no_limits});
  r.push_back({"unpaced",
               "no pacing: every request at once; a refusal is sent again at once",
               {},
               [](const StrategyInputs& in) {
                 return std::make_unique<UnpacedStrategy>(
                     in.clock, in.transport, in.retries.value_or(0), in.engine.user_agent);
               },
               no_limits});
  r.push_back(
      {"fixed",
       "a fixed in-flight cap and spacing per host (the client's host limits), nothing learned "
       "(bottleneck's maxConcurrent and minTime, p-limit)",
       {},
       [](const StrategyInputs& in) {
         return core_strategy(in, [&] { return fixed_settings(in.engine, in.retries); });
       },
       [](const EngineSettings& engine, std::optional<int> retries) {
         return std::optional<EngineSettings>(fixed_settings(engine, retries));
       }});
  r.push_back(
      {"backoff",
       "capped exponential backoff with jitter (none, full, equal, decorrelated), no cap in "
       "flight (AWS Architecture Blog)",
       [](const Json* object, const std::string& pointer, Defects& d) {
         return std::make_shared<const OwnSettings<BackoffSettings>>(
             read_backoff(object, pointer, d));
       },
       [](const StrategyInputs& in) {
         return direct(in, "backoff", 5, client_backoff(own<BackoffSettings>(in), in.seed));
       },
       no_limits});
  r.push_back({"throttle-next",
               "the lab's proposal: the core, remembering where refusals began (as CUBIC "
               "remembers W_max) and settling just above it, with RateLimit hints and jitter",
               [](const Json* object, const std::string& pointer, Defects& d) {
                 ThrottleNextSettings own;
                 if (object) {
                   ObjectReader r(*object, pointer, d);
                   if (auto v = r.number("jitterShare", 0, 1)) own.jitter_share = *v;
                   r.finish();
                 }
                 return std::make_shared<const OwnSettings<ThrottleNextSettings>>(own);
               },
               [](const StrategyInputs& in) {
                 return core_strategy(
                     in, [&] { return next_settings(in.engine, own<ThrottleNextSettings>(in)); });
               },
               [](const EngineSettings& engine, std::optional<int>) {
                 return std::optional<EngineSettings>(next_settings(engine, {}));
               }});
  r.push_back(
      {"aimd",
       "Netflix concurrency-limits' AIMDLimit (v0.5.4; version 00f751f: 2019) as an in-flight "
       "limit per host: +1 while busy, x0.9 on a refusal, failure or slow answer",
       [](const Json* object, const std::string& pointer, Defects& d) {
         AimdSettings a;
         if (object) {
           ObjectReader r(*object, pointer, d);
           if (auto v = r.string("version")) {
             if (*v == "00f751f") {
               a.version = AimdSettings::Version::c00f751f;
               a.initial_limit = 10;
             } else if (*v != "v0.5.4") {
               d.add(r.pointer("version"), "must be v0.5.4 or 00f751f");
             }
           }
           const bool bounded = a.version == AimdSettings::Version::v0_5_4;
           if (auto v = r.integer("initialLimit", 1, 1'000'000))
             a.initial_limit = static_cast<int>(*v);
           for (const char* key : {"minLimit", "maxLimit"}) {
             auto v = r.integer(key, 1, 1'000'000);
             if (!v) continue;
             if (!bounded) d.add(r.pointer(key), "version 00f751f has no minLimit or maxLimit");
             (std::string_view(key) == "minLimit" ? a.min_limit : a.max_limit) =
                 static_cast<int>(*v);
           }
           if (a.max_limit < a.min_limit) d.add(r.pointer("maxLimit"), "must be >= minLimit");
           if (auto v = r.number("backoffRatio", 0.5, 1)) {
             if (*v < 1)
               a.backoff_ratio = *v;
             else
               d.add(r.pointer("backoffRatio"), "must be in [0.5, 1)");
           }
           if (auto v = r.seconds("timeout")) a.timeout = *v;
           if (a.timeout <= Duration{0}) d.add(r.pointer("timeout"), "must be > 0");
           r.finish();
         }
         return std::make_shared<const OwnSettings<AimdSettings>>(a);
       },
       [](const StrategyInputs& in) {
         const AimdSettings a = own<AimdSettings>(in);
         return direct(in, "aimd", 5, RetryDelay{},
                       [a] { return std::make_unique<AimdLimiter>(a); });
       },
       no_limits});
  r.push_back(
      {"gradient2",
       "Netflix concurrency-limits' Gradient2Limit (v0.5.4; version 14ddfa2: 2019) as an "
       "in-flight limit per host: grows while answers are as fast as their long-term average, "
       "shrinks as they slow down",
       [](const Json* object, const std::string& pointer, Defects& d) {
         Gradient2Settings g;
         if (object) {
           ObjectReader r(*object, pointer, d);
           if (auto v = r.string("version")) {
             if (*v == "14ddfa2")
               g.version = Gradient2Settings::Version::c14ddfa2;
             else if (*v != "v0.5.4")
               d.add(r.pointer("version"), "must be v0.5.4 or 14ddfa2");
           }
           if (auto v = r.number("rttTolerance", 1, 1e6)) {
             if (g.version == Gradient2Settings::Version::c14ddfa2)
               d.add(r.pointer("rttTolerance"), "version 14ddfa2 has no rttTolerance");
             g.rtt_tolerance = *v;
           }
           auto count = [&](std::string_view key, int& into) {
             if (auto v = r.integer(key, 1, 1'000'000)) into = static_cast<int>(*v);
           };
           count("initialLimit", g.initial_limit);
           count("minLimit", g.min_limit);
           count("maxConcurrency", g.max_limit);
           count("longWindow", g.long_window);
           if (auto v = r.integer("queueSize", 0, 1'000'000)) g.queue_size = static_cast<int>(*v);
           if (auto v = r.number("smoothing", 0, 1)) g.smoothing = *v;
           if (g.max_limit < g.min_limit) d.add(r.pointer("maxConcurrency"), "must be >= minLimit");
           r.finish();
         }
         return std::make_shared<const OwnSettings<Gradient2Settings>>(g);
       },
       [](const StrategyInputs& in) {
         const Gradient2Settings g = own<Gradient2Settings>(in);
         return direct(in, "gradient2", 5, RetryDelay{},
                       [g] { return std::make_unique<Gradient2Limiter>(g); });
       },
       no_limits});
  r.push_back({"aws-adaptive",
               "the AWS SDKs' adaptive retry mode (botocore 1.43.67): a token bucket whose rate "
               "follows CUBIC on "
               "throttling, a measured send rate, standard retries with a quota",
               [](const Json* object, const std::string& pointer, Defects& d) {
                 AwsAdaptiveSettings a;
                 if (object) {
                   ObjectReader r(*object, pointer, d);
                   if (auto v = r.number("beta", 0.01, 0.99)) a.beta = *v;
                   if (auto v = r.number("scale", 1e-6, 1e6)) a.scale = *v;
                   if (auto v = r.number("minRate", 1e-6, 1e6)) a.min_rate = *v;
                   if (auto v = r.integer("quota", 0, 1'000'000)) a.quota = static_cast<int>(*v);
                   r.finish();
                 }
                 return std::make_shared<const OwnSettings<AwsAdaptiveSettings>>(a);
               },
               [](const StrategyInputs& in) {
                 const AwsAdaptiveSettings a = own<AwsAdaptiveSettings>(in);
                 Clock* clock = &in.clock;
                 // botocore's standard mode: 3 attempts, waits random() * min(20, 2^(attempt - 1))
                 // s.
                 return direct(
                     in, "aws-adaptive", 2,
                     client_backoff({std::chrono::seconds(1), std::chrono::seconds(20),
                                     BackoffSettings::Jitter::full},
                                    in.seed),
                     [a, clock] { return std::make_unique<AwsAdaptiveLimiter>(a, clock->now()); });
               },
               no_limits});
  r.push_back({"sre-throttle",
               "Google SRE book client-side throttling: reject locally with probability "
               "max(0, (requests - 2 accepts) / (requests + 1)) over 2 minutes; backoff retries",
               [](const Json* object, const std::string& pointer, Defects& d) {
                 SreThrottleSettings t;
                 if (object) {
                   ObjectReader r(*object, pointer, d);
                   if (auto v = r.number("k", 1, 1e6)) t.k = *v;
                   if (auto v = r.seconds("window")) t.window = *v;
                   if (t.window <= Duration{0}) d.add(r.pointer("window"), "must be > 0");
                   r.finish();
                 }
                 return std::make_shared<const OwnSettings<SreThrottleSettings>>(t);
               },
               [](const StrategyInputs& in) {
                 return direct(in, "sre-throttle", 5, client_backoff(BackoffSettings{}, in.seed),
                               sre_limiters(own<SreThrottleSettings>(in), in.seed));
               },
               no_limits});
  return r;
}

}  // namespace

const std::vector<StrategyInfo>& strategies() {
  static const std::vector<StrategyInfo> registry = make_registry();
  return registry;
}

const StrategyInfo* find_strategy(std::string_view name) {
  for (const StrategyInfo& s : strategies()) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

const std::vector<std::string>& strategy_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const StrategyInfo& s : strategies()) out.push_back(s.name);
    return out;
  }();
  return names;
}

std::string strategy_list() {
  std::string out;
  for (const std::string& name : strategy_names()) out += (out.empty() ? "" : ", ") + name;
  return out;
}

StrategySettingsMap read_strategy_settings(ObjectReader& client) {
  StrategySettingsMap out;
  for (const StrategyInfo& s : strategies()) {
    if (s.read)
      out.emplace(s.name, s.read(client.raw(s.name), client.pointer(s.name), client.defects()));
  }
  return out;
}

std::unique_ptr<Strategy> make_strategy(const StrategyInfo& info, Clock& clock,
                                        Transport& transport, const EngineSettings& engine,
                                        std::optional<int> retries, const StrategySettingsMap& own,
                                        std::uint64_t seed, SharedEngineSettings* shared) {
  auto it = own.find(info.name);
  const StrategySettings* settings = it == own.end() ? nullptr : it->second.get();
  return info.make(StrategyInputs{clock, transport, engine, retries, settings, seed, shared});
}

}  // namespace pacing::sim
