#include "models/sequence.hpp"

#include <algorithm>
#include <string_view>

#include "core/http.hpp"
#include "core/retry_after.hpp"
#include "core/wire_limits.hpp"
#include "models/phases.hpp"

namespace pacing::sim {

namespace {

// A field name must be an HTTP token, and a value must not break the header block (is_token,
// is_field_value of core/http.hpp): the mock servers send these as they are.

std::optional<ScriptedHeader> read_header(const std::string& name, const Json& value,
                                          const std::string& pointer, Defects& defects) {
  if (!is_token(name)) {
    defects.add(pointer, "\"" + name + "\" is not a header field name");
    return std::nullopt;
  }
  if (value.is_string()) {
    std::string text = value.get<std::string>();
    if (!is_field_value(text)) {
      defects.add(pointer, "a header value cannot contain CR, LF or NUL");
      return std::nullopt;
    }
    return ScriptedHeader{name, std::move(text), std::nullopt};
  }
  if (!value.is_object()) {
    defects.add(pointer, "must be a string or {\"http_date_in\": seconds}, got " + value.dump());
    return std::nullopt;
  }
  ObjectReader fields(value, pointer, defects);
  std::optional<Duration> delay = fields.seconds("http_date_in", true);
  fields.finish();
  if (!delay) return std::nullopt;
  return ScriptedHeader{name, "", delay};
}

}  // namespace

std::optional<ScriptedResponse> read_scripted_response(const Json& node, const std::string& pointer,
                                                       Defects& defects) {
  ObjectReader fields(node, pointer, defects);
  if (!fields.ok()) return std::nullopt;
  ScriptedResponse response;
  std::int64_t status = response.status;
  bool ok = read_integer(fields, "status", 200, 599, status);
  response.status = static_cast<int>(status);
  if (const Json* headers = fields.raw("headers")) {
    ObjectReader header_fields(*headers, fields.pointer("headers"), defects);
    ok = ok && header_fields.ok();
    if (header_fields.ok()) {
      for (const auto& [name, value] : headers->items()) {
        auto header = read_header(name, value, header_fields.pointer(name), defects);
        if (header) {
          response.headers.push_back(std::move(*header));
        } else {
          ok = false;
        }
      }
      // Each field as sent ("name: value" and CRLF; an HTTP-date is 29 characters): what the
      // live client cannot read, the simulator must not accept either.
      std::size_t bytes = 0;
      for (const ScriptedHeader& h : response.headers) {
        bytes += h.name.size() + 4 + (h.http_date_in ? 29 : h.value.size());
      }
      if (bytes > kMaxScriptedHeaderBytes) {
        defects.add(fields.pointer("headers"),
                    "the header fields take " + std::to_string(bytes) + " bytes; at most " +
                        std::to_string(kMaxScriptedHeaderBytes) + " (the live client's limit)");
        ok = false;
      }
    }
  }
  if (fields.has("body")) {
    if (auto body = fields.string("body")) {
      response.body = std::move(*body);
    } else {
      ok = false;
    }
  }
  if (fields.has("service")) {
    response.service = read_distribution(fields, "service");
    ok = ok && response.service.has_value();
  }
  fields.skip("body");
  fields.skip("service");
  fields.finish();
  if (!ok) return std::nullopt;
  return response;
}

std::optional<SequenceParams> read_sequence_params(ObjectReader& fields) {
  SequenceParams params;
  bool ok = read_service(fields, params.service);
  const Json* responses = fields.raw("responses");
  const std::string pointer = fields.pointer("responses");
  if (!responses) {
    if (fields.ok()) fields.defects().add(pointer, "is required");
    return std::nullopt;
  }
  if (!responses->is_array() || responses->empty()) {
    fields.defects().add(pointer, "must be a non-empty array of responses, got " +
                                      (responses->is_array() ? std::string("an empty array")
                                                             : responses->type_name()));
    return std::nullopt;
  }
  for (std::size_t i = 0; i < responses->size(); ++i) {
    auto response = read_scripted_response((*responses)[i], pointer + "/" + std::to_string(i),
                                           fields.defects());
    if (response) {
      params.responses.push_back(std::move(*response));
    } else {
      ok = false;
    }
  }
  if (!ok) return std::nullopt;
  return params;
}

SequenceModel::SequenceModel(Phased<SequenceParams> phases,
                             std::chrono::system_clock::time_point epoch)
    : phases_(std::move(phases)), epoch_(epoch) {}

Reply scripted_reply(const ScriptedResponse& script, const Distribution& service, Instant now,
                     std::chrono::system_clock::time_point epoch, Rng& rng) {
  Reply reply;
  reply.status = script.status;
  reply.body = script.body;
  reply.service = (script.service ? *script.service : service).sample(rng);
  const Duration sent_at = (now + reply.service).time_since_epoch();
  for (const ScriptedHeader& header : script.headers) {
    if (!header.http_date_in) {
      reply.headers.emplace_back(header.name, header.value);
      continue;
    }
    const std::chrono::sys_seconds when =
        std::chrono::ceil<std::chrono::seconds>(epoch + sent_at + *header.http_date_in);
    reply.headers.emplace_back(header.name, format_http_date(when));
  }
  return reply;
}

Arrival SequenceModel::arrive(Instant now, const ModelRequest& /*request*/, Rng& rng) {
  const SequenceParams& params = phases_.at(now);
  const ScriptedResponse& script =
      params.responses[std::min(answered_, params.responses.size() - 1)];
  ++answered_;
  return {scripted_reply(script, params.service, now, epoch_, rng), {}};
}

}  // namespace pacing::sim
