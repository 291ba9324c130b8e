#include "sim/workload.hpp"

#include <algorithm>

#include "strategies/registry.hpp"

namespace pacing::sim {

Workload::Workload(World& world, const Scenario& scenario,
                   const std::optional<std::string>& strategy, std::uint64_t seed,
                   Recorder& recorder, InvariantChecker& checker, bool clients_leave)
    : world_(world),
      clock_(world.clock()),
      scenario_(scenario),
      recorder_(recorder),
      checker_(checker),
      identities_(make_clients(scenario, seed)),
      shared_settings_(scenario.populations.size()),
      clients_leave_(clients_leave) {
  std::vector<bool> observed(scenario.populations.size(), false);
  clients_.reserve(identities_.size());
  for (const ClientIdentity& identity : identities_) {
    const Population& population = scenario.populations[identity.population];
    const ClientSpec& spec = population.client;
    const StrategyInfo& info = *find_strategy(strategy.value_or(spec.strategy));  // validated
    Transport& link = world.transport(identity, spec.timeout, spec.connections);
    Transport& port = recorder.add_client(link);
    // The limits the checker holds this client to (one copy per population and strategy).
    auto [limits, fresh] = checked_limits_.try_emplace(identity.population);
    if (fresh) limits->second = info.checked(spec.engine, spec.retries);
    checker.add_client(limits->second ? &*limits->second : nullptr);
    Client c{make_strategy(info, clock_, port, spec.engine, spec.retries, spec.own, identity.seed,
                           &shared_settings_[identity.population])};
    // The hosts' learned state, as the first client of each population learns it (each client
    // learns alone: their intervals are not one series).
    if (!observed[identity.population]) {
      c.strategy->set_observer(&recorder);
      c.observed = observed[identity.population] = true;
    }
    clients_.push_back(std::move(c));
  }
  if (scenario.crowds) {
    std::vector<std::string> names;
    for (const Population& p : scenario.populations) names.push_back(p.name);
    recorder.set_crowd(identities_, std::move(names));
  }
  // Each population's entries, in the order of the queries, then every client's copies of them.
  std::vector<std::vector<std::uint32_t>> by_population(scenario.populations.size());
  for (std::size_t q = 0; q < scenario.queries.size(); ++q) {
    const QuerySpec& query = scenario.queries[q];
    for (const RequestEntry& e : query.requests) {
      if (e.count == 0) continue;
      // Valid: the loader checked it.
      auto url = std::make_shared<const UrlParts>(*parse_url("https://" + e.host + e.path));
      by_population[query.population].push_back(static_cast<std::uint32_t>(entries_.size()));
      entries_.push_back(Entry{q, &e, std::move(url), query.start + e.at, false, RequestSource{}});
    }
  }
  std::size_t cursors = 0;
  for (const ClientIdentity& identity : identities_)
    cursors += by_population[identity.population].size();
  cursors_.reserve(cursors);
  for (std::uint32_t c = 0; c < clients_.size(); ++c) {
    for (std::uint32_t entry : by_population[identities_[c].population]) {
      Cursor cursor;
      cursor.client = c;
      cursor.entry = entry;
      cursors_.push_back(cursor);
      ++clients_[c].cursors_left;
    }
  }
}

void Workload::start() {
  for (std::uint32_t c = 0; c < clients_.size(); ++c) leave_if_done(c);  // clients without work
  std::vector<Instant> first_requests;
  first_requests.reserve(cursors_.size());
  for (const Cursor& cursor : cursors_) first_requests.push_back(Instant{cursor.start(*this)});
  world_.schedule_batch(first_requests, [this](std::uint32_t c) { issue_next(c); });
  for (const EventSpec& e : scenario_.events) {
    clock_.schedule(Instant{e.at}, [this, &e] { run_event(e); });
  }
}

void Workload::issue_next(std::size_t c) {
  Cursor& cur = cursors_[c];
  if (cur.done) return;  // its query was aborted
  Entry& entry = entries_[cur.entry];
  const RequestEntry& spec = *entry.spec;
  const QuerySpec& query = scenario_.queries[entry.query];
  if (!entry.resolved) {
    entry.source = {static_cast<std::uint32_t>(entry.query), recorder_.host_index(spec.host),
                    &query.name, &spec.path};
    entry.resolved = true;
  }
  if (!cur.resolved) {
    cur.route = checker_.route(entry.query, spec.host, cur.client);
    cur.resolved = true;
  }
  Strategy& strategy = *clients_[cur.client].strategy;
  // Requests due at the same instant are issued together.
  do {
    Request request;
    request.method = spec.method;
    request.parsed_url = entry.url;
    request.headers = spec.headers;
    if (query.address != kDefaultClientAddress) {
      request.headers.emplace_back("X-Client-Address", query.address);
    }
    const std::uint64_t tag = recorder_.issued(entry.source, cur.client);
    checker_.issued(tag, cur.route, clock_.now());
    if ((tag & 0xffff) == 0xffff) memory_.check(tag + 1);
    request.tag = tag;
    // Two words of capture: std::function keeps them without allocating. (A completion never
    // comes from inside issue(): the request is entered once its id is known.)
    const Strategy::RequestId id = strategy.issue(
        std::move(request), query.context,
        [this, tag](Engine::RequestId, const Completion& done) { completed(tag, done); });
    recorder_.set_strategy_id(tag, id);  // the recorder keeps what is open, by tag
    ++clients_[cur.client].open;
    ++cur.issued;
  } while (cur.issued < spec.count && spec.every == Duration::zero());
  if (cur.issued < spec.count) {
    clock_.schedule(Instant{cur.start(*this) + spec.every * cur.issued},
                    [this, c] { issue_next(c); });
  } else {
    cursor_done(cur);
  }
}

void Workload::completed(std::uint64_t tag, const Completion& c) {
  const std::optional<Recorder::OpenRequest> open = recorder_.open_request(tag);
  recorder_.completed(tag, c);  // a second completion: the checker, its watcher, reports it
  if (!open) return;
  --clients_[open->client].open;
  leave_if_done(open->client);
}

void Workload::cursor_done(Cursor& cursor) {
  if (cursor.done) return;
  cursor.done = true;
  --clients_[cursor.client].cursors_left;
  leave_if_done(cursor.client);
}

void Workload::leave_if_done(std::uint32_t client) {
  const Client& c = clients_[client];
  if (!clients_leave_ || c.observed || c.cursors_left != 0 || c.open != 0 || !c.strategy) return;
  // Scheduled at the present: it runs after the engine's call returns, and moves no other event
  // (events at one instant run in the order they were scheduled).
  clock_.schedule(clock_.now(), [this, client] {
    Client& leaving = clients_[client];
    // An attempt still in flight would come back to the strategy: the client stays.
    if (leaving.strategy && leaving.cursors_left == 0 && leaving.open == 0 &&
        recorder_.in_flight(client) == 0) {
      leaving.strategy.reset();
      recorder_.client_left(client);
      checker_.client_left(client, clock_.now());
      ++clients_left_;
    }
  });
}

void Workload::run_event(const EventSpec& e) {
  if (e.invalidate) {
    // The checker first: the strategies may start requests at once. Every client forgets.
    if (*e.invalidate == "*") {
      checker_.invalidated(std::nullopt);
      for (Client& c : clients_)
        if (c.strategy) c.strategy->invalidate(std::nullopt);
    } else {
      if (auto url = parse_url(*e.invalidate)) checker_.invalidated(url->authority);
      for (Client& c : clients_)
        if (c.strategy) c.strategy->invalidate(*e.invalidate);
    }
  }
  if (e.abort) {
    for (std::size_t q = 0; q < scenario_.queries.size(); ++q) {
      if (scenario_.queries[q].name != *e.abort) continue;
      for (Cursor& cur : cursors_)
        if (entries_[cur.entry].query == q) cursor_done(cur);
      abort_where([q](const Recorder::OpenRequest& r) { return r.query == q; });
    }
  }
}

template <typename Selected>
void Workload::abort_where(Selected selected) {
  std::vector<Recorder::OpenRequest> picked;
  recorder_.for_each_open([&](const Recorder::OpenRequest& request) {
    if (selected(request)) picked.push_back(request);
  });
  std::sort(picked.begin(), picked.end(), [](const auto& a, const auto& b) {
    return a.tag < b.tag;  // in the order they were issued
  });
  // One signal per client: its requests leave together, so none of them is sent.
  std::vector<std::vector<Strategy::RequestId>> by_client(clients_.size());
  for (const Recorder::OpenRequest& r : picked) {
    checker_.aborting(r.tag, clock_.now());
    by_client[r.client].push_back(r.strategy_id);
  }
  for (std::size_t c = 0; c < clients_.size(); ++c) {
    if (!by_client[c].empty()) clients_[c].strategy->abort_all(by_client[c]);
  }
}

bool Workload::finished() const {
  return recorder_.open_requests() == 0 &&
         std::all_of(clients_.begin(), clients_.end(),
                     [](const Client& c) { return c.cursors_left == 0; });
}

void Workload::abort_everything() {
  for (Cursor& cur : cursors_) cursor_done(cur);
  abort_where([](const Recorder::OpenRequest&) { return true; });
}

}  // namespace pacing::sim
