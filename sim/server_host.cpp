#include "sim/server_host.hpp"

#include <algorithm>

#include "sim/models/registry.hpp"
#include "sim/scenario.hpp"

namespace pacing::sim {

ServerHost::ServerHost(Clock& clock, Rng& rng, std::unique_ptr<ServerModel> model,
                       std::vector<Route> paths, FaultSpec fault)
    : clock_(clock), rng_(rng), fault_(fault), model_(std::move(model)), paths_(std::move(paths)) {
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

void ServerHost::handle(ModelRequest request, Respond respond) {
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

void ServerHost::serve(ServerModel& model, std::uint64_t id, Reply reply, Respond respond) {
  if (reply.never) return;
  const Duration service = reply.service;
  const std::uint32_t slot = serving_.put({&model, id, std::move(reply), std::move(respond)});
  clock_.schedule(clock_.now() + service, [this, slot] { send_reply(slot); });
}

void ServerHost::send_reply(std::uint32_t slot) {
  Serving s = serving_.take(slot);  // the slot may be reused by what this reply sets off
  if (fault_.probability > 0 &&
      std::uniform_real_distribution<double>(0, 1)(rng_) < fault_.probability) {
    s.reply.fault = fault_.kind;
  }
  s.respond(s.reply);
  admit(*s.model, s.model->finish(clock_.now(), s.id, rng_));
}

std::unique_ptr<ServerHost> make_server_host(const Scenario& scenario, const std::string& host,
                                             Clock& clock, Rng& rng) {
  const ServerSpec& server = scenario.servers.at(host);
  ModelEnv env{scenario.file.parent_path(), scenario.epoch};
  Defects defects;
  auto model = make_model(server.spec, server.pointer, defects, env, kServerHostKeys);
  std::vector<ServerHost::Route> routes;
  if (auto paths = server.spec.find("paths"); paths != server.spec.end()) {
    for (const auto& [prefix, spec] : paths->items()) {
      routes.push_back(
          {prefix, make_model(spec, server.pointer + "/paths/" + pointer_escape(prefix), defects,
                              env, {})});
    }
  }
  if (!defects.empty()) throw InputError(defects.format(scenario.file.string()));
  return std::make_unique<ServerHost>(clock, rng, std::move(model), std::move(routes),
                                      server.fault);
}

}  // namespace pacing::sim
