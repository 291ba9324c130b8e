#include "models/replay.hpp"

#include <algorithm>

#include "models/phases.hpp"

namespace pacing::sim {

std::optional<ReplayParams> read_replay_params(ObjectReader& fields) {
  ReplayParams params;
  bool ok = read_service(fields, params.service);
  fields.skip("then");
  const Json* exchanges = fields.raw("exchanges");
  const std::string pointer = fields.pointer("exchanges");
  if (!exchanges) {
    if (fields.ok()) fields.defects().add(pointer, "is required");
    return std::nullopt;
  }
  if (!exchanges->is_array()) {
    fields.defects().add(pointer, std::string("must be an array of logged exchanges, got ") +
                                      exchanges->type_name());
    return std::nullopt;
  }
  for (std::size_t i = 0; i < exchanges->size(); ++i) {
    const Json& node = (*exchanges)[i];
    const std::string at = pointer + "/" + std::to_string(i);
    if (!node.is_object()) {
      fields.defects().add(at, std::string("must be an object, got ") + node.type_name());
      ok = false;
      continue;
    }
    // The request's fields here; the rest is a scripted response, read as the sequence reads it.
    Json response = node;
    std::string method = "GET", target;
    if (auto m = node.find("method"); m != node.end()) {
      if (!m->is_string() || !is_token(m->get_ref<const std::string&>())) {
        fields.defects().add(at + "/method", "must be an HTTP method, got " + m->dump());
        ok = false;
      } else {
        method = *m;
      }
      response.erase("method");
    }
    auto t = node.find("target");
    if (t == node.end() || !t->is_string() || !t->get_ref<const std::string&>().starts_with("/") ||
        !is_field_value(t->get_ref<const std::string&>())) {
      fields.defects().add(at + "/target",
                           t == node.end()
                               ? std::string("is required (path and query)")
                               : "must be a path and query starting with /, got " + t->dump());
      ok = false;
    } else {
      target = *t;
    }
    response.erase("target");
    auto scripted = read_scripted_response(response, at, fields.defects());
    if (!scripted) {
      ok = false;
      continue;
    }
    if (ok) params.answers[method + " " + target].push_back(std::move(*scripted));
  }
  if (!ok) return std::nullopt;
  return params;
}

ReplayModel::ReplayModel(ReplayParams params, std::unique_ptr<ServerModel> then,
                         std::chrono::system_clock::time_point epoch)
    : params_(std::move(params)), then_(std::move(then)), epoch_(epoch) {}

Arrival ReplayModel::arrive(Instant now, const ModelRequest& request, Rng& rng) {
  const std::string key = request.method + " " + request.path;
  const auto logged = params_.answers.find(key);
  const std::size_t given = logged == params_.answers.end() ? 0 : answered_[key]++;
  if (logged != params_.answers.end() && given < logged->second.size()) {
    return {scripted_reply(logged->second[given], params_.service, now, epoch_, rng), {}};
  }
  if (then_) {
    with_then_.insert(request.id);
    return then_->arrive(now, request, rng);
  }
  if (logged != params_.answers.end()) {
    return {scripted_reply(logged->second.back(), params_.service, now, epoch_, rng), {}};
  }
  Reply not_logged;
  not_logged.status = 404;
  not_logged.body = "not in the log: " + key + "\n";
  return {std::move(not_logged), {}};
}

std::vector<Admission> ReplayModel::finish(Instant now, std::uint64_t id, Rng& rng) {
  if (with_then_.erase(id) == 0) return {};
  return then_->finish(now, id, rng);
}

std::optional<Reply> ReplayModel::expire(Instant now, std::uint64_t id, Rng& rng) {
  if (!with_then_.contains(id)) return std::nullopt;
  return then_->expire(now, id, rng);
}

std::vector<Admission> ReplayModel::take_admissions(Instant now, Rng& rng) {
  return then_ ? then_->take_admissions(now, rng) : std::vector<Admission>{};
}

}  // namespace pacing::sim
