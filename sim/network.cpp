#include "sim/network.hpp"

#include <algorithm>
#include <cmath>

namespace pacing::sim {

SimNetwork::SimNetwork(Scheduler& clock, AttemptBook* book)
    : clock_(clock),
      own_book_(book ? nullptr : std::make_unique<AttemptBook>()),
      book_(book ? *book : *own_book_) {}

SimNetwork::Link& SimNetwork::link(Duration timeout, std::string address, Headers headers,
                                   const std::optional<ConnectionSpec>& connections) {
  auto lane = std::find_if(lanes_.begin(), lanes_.end(),
                           [&](const Link::Lane& l) { return l.timeout == timeout; });
  if (lane == lanes_.end()) {
    lanes_.emplace_back();
    lanes_.back().timeout = timeout;
    lane = std::prev(lanes_.end());
  }
  std::shared_ptr<Link::Connections> pools;
  if (connections) {
    pools = std::make_shared<Link::Connections>();
    pools->spec = *connections;
  }
  return links_.emplace_back(
      Link(*this, &*lane, std::move(address), std::move(headers), std::move(pools)));
}

void SimNetwork::add_server(const std::string& authority, std::unique_ptr<ServerHost> host,
                            Distribution latency, double failure_probability,
                            std::uint64_t link_seed) {
  servers_[authority] = Server{std::move(host), latency, failure_probability, Rng(link_seed)};
}

void SimNetwork::send(const Link& link, const Attempt& attempt,
                      Transport::SettledHandler on_settled) {
  const std::uint64_t id = attempt.id;
  ++carried_;
  AttemptRecord& record = book_.at(id);  // in a shared book, the recorder made it an instant ago
  record.is_carried = true;
  CarriedAttempt& carried = record.carried;
  carried.on_settled = std::move(on_settled);
  const Instant now = clock_.now();
  Link::Lane& lane = *link.lane_;
  if (lane.timeout > Duration::zero()) {
    drop_settled(lane);
    lane.deadlines.emplace_back(now + lane.timeout, id);
    if (!lane.armed) {
      lane.armed = true;
      clock_.schedule(now + lane.timeout, [this, &lane] { expire_timeouts(lane); });
    }
  }
  auto* found = find_by_address(server_by_address_, servers_, attempt.authority);
  if (!found) {
    fail_later(id, now, "no such host");
    return;
  }
  Server& server = found->second;
  carried.one_way = server.latency.sample(server.rng) / 2;
  if (server.failure_probability > 0 && chance(server.rng, server.failure_probability)) {
    fail_later(id, now + carried.one_way, "connection reset");
    return;
  }
  const std::string_view address =
      link.address_.empty() ? kDefaultClientAddress : std::string_view(link.address_);
  // Written into a reused slot: its strings keep their storage from earlier attempts. A crowd's
  // client's identity headers follow the request's own.
  const std::uint32_t slot = transit_.acquire();
  InTransit& t = transit_[slot];
  t.host = server.host.get();
  t.attempt_id = id;
  fill_model_request(t.request, attempt.method, attempt.target, *attempt.headers, link.headers_,
                     address);
  if (link.connections_) {
    leave(*link.connections_, found->first, slot, id, carried.one_way);
    return;
  }
  clock_.schedule(now + carried.one_way, [this, slot] { arrive(slot); });
}

void SimNetwork::leave(Link::Connections& c, const std::string& authority, std::uint32_t slot,
                       std::uint64_t attempt_id, Duration one_way) {
  Link::Connections::Pool& pool = c.pools[authority];
  Duration setup{0};
  if (pool.idle > 0) {
    --pool.idle;
  } else if (c.spec.per_host == 0 || pool.open < c.spec.per_host) {
    ++pool.open;
    setup = Duration{std::llround(c.spec.setup_rtts * 2.0 * static_cast<double>(one_way.count()))};
  } else {
    pool.waiting.push_back({slot, attempt_id, one_way});
    return;
  }
  held_[attempt_id] = Held{&c, authority};
  // The client's own time comes first, one attempt after another; then the connection's setup.
  c.busy_until = std::max(clock_.now(), c.busy_until) + c.spec.cost;
  clock_.schedule(c.busy_until + setup + one_way, [this, slot] { arrive(slot); });
}

void SimNetwork::let_go(std::uint64_t attempt_id, bool reusable) {
  auto it = held_.find(attempt_id);
  if (it == held_.end()) return;  // none held: it never had one, or was still waiting
  Link::Connections& c = *it->second.connections;
  const std::string authority = std::move(it->second.authority);
  held_.erase(it);
  Link::Connections::Pool& pool = c.pools[authority];
  if (reusable && c.spec.keep_alive) {
    ++pool.idle;
  } else {
    --pool.open;
  }
  // The longest waiter still waiting takes the connection (or opens one in its place).
  while (!pool.waiting.empty() && (pool.idle > 0 || pool.open < c.spec.per_host)) {
    const Link::Connections::Waiting w = pool.waiting.front();
    pool.waiting.pop_front();
    if (!open(w.attempt_id)) {  // timed out or abandoned while it waited
      transit_.release(w.slot);
      continue;
    }
    leave(c, authority, w.slot, w.attempt_id, w.one_way);
  }
}

void SimNetwork::fail_later(std::uint64_t attempt_id, Instant at, std::string error) {
  open(attempt_id)->carried.result = {AttemptResult::Kind::network, {}, std::move(error)};
  clock_.schedule(at, [this, attempt_id] {
    if (AttemptRecord* r = open(attempt_id)) settle(attempt_id, std::move(r->carried.result));
  });
}

void SimNetwork::arrive(std::uint32_t slot) {
  InTransit& t = transit_[slot];
  const std::uint64_t id = t.attempt_id;
  // The server reads the request in its slot (and moves it out only to keep it waiting). Nothing
  // it does sends an attempt (answers are scheduled), so the slot stays put meanwhile; it is
  // freed after, its storage kept for the next attempt.
  t.host->handle(std::move(t.request),
                 [this, id](Reply&& reply) { respond(id, std::move(reply)); });
  transit_.release(slot);
}

void SimNetwork::respond(std::uint64_t id, Reply&& reply) {
  AttemptRecord* record = open(id);
  if (!record) return;  // the client gave up meanwhile: the answer goes nowhere
  AttemptResult& r = record->carried.result;
  switch (reply.fault) {
    case Reply::Fault::stall:
      return;  // the client's timeout ends it
    case Reply::Fault::reset:
      r = {AttemptResult::Kind::network, {}, "connection reset"};
      break;
    case Reply::Fault::malformed:
      r = {AttemptResult::Kind::network, {}, "malformed response"};
      break;
    case Reply::Fault::none:
      r.kind = AttemptResult::Kind::response;
      r.response.status = reply.status;
      r.response.headers = std::move(reply.headers);
      r.response.body = std::move(reply.body);
  }
  clock_.schedule(clock_.now() + record->carried.one_way, [this, id] {
    if (AttemptRecord* found = open(id)) settle(id, std::move(found->carried.result));
  });
}

void SimNetwork::abandon(std::uint64_t attempt_id) {
  // Its deadline entry is skipped when it comes.
  if (AttemptRecord* record = open(attempt_id)) {
    close(attempt_id, *record);
    if (!held_.empty()) let_go(attempt_id, false);  // a real client closes it
  }
}

void SimNetwork::expire_timeouts(Link::Lane& lane) {
  lane.armed = false;
  const Instant now = clock_.now();
  while (!lane.deadlines.empty() && lane.deadlines.front().first <= now) {
    const std::uint64_t id = lane.deadlines.front().second;
    lane.deadlines.pop_front();
    AttemptResult r;
    r.kind = AttemptResult::Kind::timeout;
    r.error = "timeout";
    settle(id, std::move(r));  // nothing when it settled already
  }
  // The timer waits for the oldest attempt still open, not for each one sent: most settle long
  // before their deadline, and waking for each would be an event per attempt.
  drop_settled(lane);
  if (!lane.deadlines.empty()) {
    lane.armed = true;
    clock_.schedule(lane.deadlines.front().first, [this, &lane] { expire_timeouts(lane); });
  }
}

void SimNetwork::drop_settled(Link::Lane& lane) {
  while (!lane.deadlines.empty() && !open(lane.deadlines.front().second)) {
    lane.deadlines.pop_front();
  }
}

void SimNetwork::settle(std::uint64_t attempt_id, AttemptResult result) {
  AttemptRecord* record = open(attempt_id);
  if (!record) return;  // timed out, abandoned, or already settled
  Transport::SettledHandler handler = std::move(record->carried.on_settled);
  close(attempt_id, *record);
  if (!held_.empty()) let_go(attempt_id, result.kind == AttemptResult::Kind::response);
  handler(std::move(result));
}

}  // namespace pacing::sim
