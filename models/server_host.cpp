#include "models/server_host.hpp"

#include <algorithm>

#include "models/registry.hpp"

namespace pacing::sim {

ServerHost::ServerHost(Clock& clock, Rng rng, std::unique_ptr<ServerModel> model,
                       std::vector<Route> paths, FaultSpec fault, CapacitySpec capacity)
    : clock_(clock),
      rng_(rng),
      fault_(fault),
      model_(std::move(model)),
      paths_(std::move(paths)),
      capacity_(capacity) {
  std::stable_sort(paths_.begin(), paths_.end(), [](const Route& a, const Route& b) {
    return a.prefix.size() > b.prefix.size();
  });
}

ServerModel& ServerHost::model_for(const std::string& path) {
  for (Route& r : paths_) {
    if (path.compare(0, r.prefix.size(), r.prefix) == 0) return *r.model;
  }
  return *model_;
}

void ServerHost::handle(ModelRequest&& request, Respond&& respond) {
  if (capacity_.workers == 0 || busy_ < capacity_.workers) {
    if (capacity_.workers > 0) ++busy_;
    admitted(std::move(request), std::move(respond));
    return;
  }
  auto overloaded = [this] {
    Reply r;
    r.status = capacity_.status;
    r.body = "Server overloaded";
    return r;
  };
  if (line_.size() >= capacity_.queue) {
    respond(overloaded());
    return;
  }
  const std::uint64_t ticket = ++next_ticket_;
  line_.push_back(InLine{ticket, std::move(request), std::move(respond)});
  clock_.schedule(clock_.now() + capacity_.queue_timeout, [this, ticket, overloaded] {
    auto it = std::find_if(line_.begin(), line_.end(),
                           [ticket](const InLine& w) { return w.ticket == ticket; });
    if (it == line_.end()) return;  // it got a worker meanwhile
    Respond respond = std::move(it->respond);
    line_.erase(it);
    respond(overloaded());
  });
}

void ServerHost::release_worker() {
  if (capacity_.workers == 0) return;
  if (line_.empty()) {
    --busy_;
    return;
  }
  InLine next = std::move(line_.front());  // the worker passes to the longest waiter
  line_.pop_front();
  admitted(std::move(next.request), std::move(next.respond));
}

void ServerHost::admitted(ModelRequest&& request, Respond&& respond) {
  ServerModel& model = model_for(request.path);
  request.id = ++next_id_;
  const std::uint64_t id = request.id;
  Arrival arrival = model.arrive(clock_.now(), request, rng_);
  if (arrival.reply) {
    serve(model, id, std::move(*arrival.reply), std::move(respond));
    return;
  }
  waiting_.emplace(id, Waiting{&model, std::move(respond)});
  clock_.schedule(arrival.wait_until, [this, id] {
    auto it = waiting_.find(id);
    if (it == waiting_.end()) return;  // admitted meanwhile
    ServerModel& waited = *it->second.model;
    if (auto reply = waited.expire(clock_.now(), id, rng_)) {
      Respond respond = std::move(it->second.respond);
      waiting_.erase(it);
      serve(waited, id, std::move(*reply), std::move(respond));
    }
    // The expired request may have been blocking the line behind it.
    admit(waited, waited.take_admissions(clock_.now(), rng_));
  });
}

void ServerHost::admit(ServerModel& model, std::vector<Admission> admissions) {
  for (Admission& a : admissions) {
    auto it = waiting_.find(a.id);
    if (it == waiting_.end()) continue;
    Respond respond = std::move(it->second.respond);
    waiting_.erase(it);
    serve(model, a.id, std::move(a.reply), std::move(respond));
  }
}

void ServerHost::serve(ServerModel& model, std::uint64_t id, Reply&& reply, Respond&& respond) {
  if (reply.never) return;
  const Duration service = reply.service;
  const std::uint32_t slot = serving_.put({&model, id, std::move(reply), std::move(respond)});
  clock_.schedule(clock_.now() + service, [this, slot] { send_reply(slot); });
}

void ServerHost::send_reply(std::uint32_t slot) {
  Serving s = serving_.take(slot);  // the slot may be reused by what this reply sets off
  if (fault_.probability > 0 && chance(rng_, fault_.probability)) {
    s.reply.fault = fault_.kind;
  }
  s.respond(std::move(s.reply));
  admit(*s.model, s.model->finish(clock_.now(), s.id, rng_));
  release_worker();
}

}  // namespace pacing::sim
