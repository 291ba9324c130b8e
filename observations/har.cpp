#include "observations/har.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <map>

#include "core/url.hpp"

namespace pacing::sim {

namespace {

bool digits(std::string_view s, std::size_t at, std::size_t n, int& out) {
  if (at + n > s.size()) return false;
  const auto [end, error] = std::from_chars(s.data() + at, s.data() + at + n, out);
  return error == std::errc() && end == s.data() + at + n;
}

/// A header list of HAR ([{"name", "value"}, ...]); defects under `pointer`.
Headers read_headers(const Json* node, const std::string& pointer, Defects& defects) {
  Headers out;
  if (!node) return out;
  if (!node->is_array()) {
    defects.add(pointer, "must be an array of {\"name\", \"value\"}");
    return out;
  }
  for (std::size_t i = 0; i < node->size(); ++i) {
    const Json& h = (*node)[i];
    const std::string at = pointer + "/" + std::to_string(i);
    if (!h.is_object() || !h.contains("name") || !h.contains("value") || !h["name"].is_string() ||
        !h["value"].is_string()) {
      defects.add(at, "must be {\"name\": string, \"value\": string}");
      continue;
    }
    const std::string& name = h["name"].get_ref<const std::string&>();
    const std::string& value = h["value"].get_ref<const std::string&>();
    // HTTP/2 pseudo-fields (":authority") are the request line's, not headers.
    if (name.starts_with(":")) continue;
    if (!is_token(name) || !is_field_value(value)) {
      defects.add(at,
                  "is not a header field a request could carry (name a token, value "
                  "without CR, LF or NUL)");
      continue;
    }
    out.emplace_back(name, value);
  }
  return out;
}

bool is_pacing_field(std::string_view name) {
  return iequals(name, "Retry-After") || iequals(name, "RateLimit") ||
         iequals(name, "RateLimit-Policy") ||
         (name.size() > 12 && iequals(name.substr(0, 12), "X-RateLimit-"));
}

bool is_secret(std::string_view name) {
  return iequals(name, "Cookie") || iequals(name, "Authorization") ||
         iequals(name, "Proxy-Authorization");
}

/// Fields the lab's client sets itself, or that describe the connection rather than the request.
bool is_hop_or_client_field(std::string_view name) {
  for (std::string_view n : {"Host", "Connection", "Content-Length", "Transfer-Encoding",
                             "Keep-Alive", "Upgrade", "TE", "Accept-Encoding", "User-Agent"}) {
    if (iequals(name, n)) return true;
  }
  return false;
}

double micros_to_seconds(std::int64_t us) { return static_cast<double>(us) / 1e6; }

}  // namespace

std::optional<std::int64_t> parse_rfc3339(std::string_view s) {
  int y, mo, d, h, mi, sec;
  if (s.size() < 20 || !digits(s, 0, 4, y) || s[4] != '-' || !digits(s, 5, 2, mo) || s[7] != '-' ||
      !digits(s, 8, 2, d) || (s[10] != 'T' && s[10] != 't' && s[10] != ' ') ||
      !digits(s, 11, 2, h) || s[13] != ':' || !digits(s, 14, 2, mi) || s[16] != ':' ||
      !digits(s, 17, 2, sec)) {
    return std::nullopt;
  }
  std::size_t at = 19;
  std::int64_t micros = 0;
  if (at < s.size() && s[at] == '.') {
    ++at;
    std::int64_t scale = 100000;
    const std::size_t first = at;
    while (at < s.size() && s[at] >= '0' && s[at] <= '9') {
      micros += (s[at] - '0') * scale;  // digits past microseconds are dropped
      scale /= 10;
      ++at;
    }
    if (at == first || at - first > 12) return std::nullopt;
  }
  int offset_minutes = 0;
  if (at < s.size() && (s[at] == 'Z' || s[at] == 'z')) {
    ++at;
  } else if (at < s.size() && (s[at] == '+' || s[at] == '-')) {
    int oh, om;
    if (!digits(s, at + 1, 2, oh) || at + 3 >= s.size() || s[at + 3] != ':' ||
        !digits(s, at + 4, 2, om) || oh > 23 || om > 59) {
      return std::nullopt;
    }
    offset_minutes = (s[at] == '+' ? 1 : -1) * (oh * 60 + om);
    at += 6;
  } else {
    return std::nullopt;
  }
  if (at != s.size()) return std::nullopt;
  const std::chrono::year_month_day date{std::chrono::year{y},
                                         std::chrono::month{static_cast<unsigned>(mo)},
                                         std::chrono::day{static_cast<unsigned>(d)}};
  if (!date.ok() || y < 1970 || y > 2200 || h > 23 || mi > 59 || sec > 60) return std::nullopt;
  const auto t = std::chrono::sys_days{date} + std::chrono::hours{h} + std::chrono::minutes{mi} +
                 std::chrono::seconds{std::min(sec, 59)} - std::chrono::minutes{offset_minutes};
  return std::chrono::duration_cast<std::chrono::microseconds>(t.time_since_epoch()).count() +
         micros;
}

HarLog read_har(const Json& doc, const std::string& file) {
  Defects defects;
  HarLog log;
  const Json* entries = nullptr;
  if (!doc.is_object() || !doc.contains("log") || !doc["log"].is_object()) {
    defects.add("/log", "is required (an object): is this a HAR file?");
  } else if (!doc["log"].contains("entries") || !doc["log"]["entries"].is_array()) {
    defects.add("/log/entries", "is required (an array of entries)");
  } else {
    entries = &doc["log"]["entries"];
  }
  std::vector<std::int64_t> started;
  if (entries) {
    for (std::size_t i = 0; i < entries->size(); ++i) {
      const Json& e = (*entries)[i];
      const std::string at = "/log/entries/" + std::to_string(i);
      const std::size_t before = defects.list().size();
      if (!e.is_object()) {
        defects.add(at, "must be an object");
        continue;
      }
      HarEntry entry;
      entry.index = i;
      if (auto p = e.find("pageref"); p != e.end() && p->is_string()) entry.page = *p;
      std::optional<std::int64_t> when;
      if (auto t = e.find("startedDateTime"); t != e.end() && t->is_string()) {
        when = parse_rfc3339(t->get_ref<const std::string&>());
      }
      if (!when) {
        defects.add(at + "/startedDateTime",
                    "must be an RFC 3339 date-time like 2026-12-07T10:00:00.123Z, in 1970-2200");
      }
      const Json* request =
          e.contains("request") && e["request"].is_object() ? &e["request"] : nullptr;
      if (!request) defects.add(at + "/request", "is required (an object)");
      if (request) {
        if (auto m = request->find("method");
            m != request->end() && m->is_string() && is_token(m->get_ref<const std::string&>())) {
          entry.method = *m;
        } else {
          defects.add(at + "/request/method", "must be an HTTP method");
        }
        std::optional<UrlParts> url;
        if (auto u = request->find("url"); u != request->end() && u->is_string()) {
          url = parse_url(u->get_ref<const std::string&>());
        }
        if (!url || (url->scheme != "http" && url->scheme != "https")) {
          defects.add(at + "/request/url", "must be an http:// or https:// URL");
        } else {
          entry.host = url->authority;
          entry.target = url->target;
        }
        entry.request_headers =
            read_headers(request->contains("headers") ? &(*request)["headers"] : nullptr,
                         at + "/request/headers", defects);
      }
      if (auto r = e.find("response"); r != e.end() && r->is_object()) {
        if (auto s = r->find("status");
            s != r->end() && s->is_number_integer() &&
            (s->get<int>() == 0 || (s->get<int>() >= 100 && s->get<int>() <= 599))) {
          entry.status = s->get<int>();
        } else {
          defects.add(at + "/response/status", "must be 0 (no response) or 100-599");
        }
        for (auto& [name, value] : read_headers(r->contains("headers") ? &(*r)["headers"] : nullptr,
                                                at + "/response/headers", defects)) {
          if (is_pacing_field(name)) entry.response_headers.emplace_back(name, value);
        }
      } else {
        defects.add(at + "/response", "is required (an object)");
      }
      if (auto t = e.find("timings"); t != e.end() && t->is_object()) {
        if (auto w = t->find("wait"); w != t->end() && w->is_number()) {
          const double ms = w->get<double>();
          if (std::isfinite(ms) && ms >= 0 && ms <= 86'400'000) entry.wait = ms / 1000;
        }
      }
      if (defects.list().size() != before) continue;
      started.push_back(*when);
      log.entries.push_back(std::move(entry));
    }
  }
  if (!defects.empty()) throw InputError(defects.format(file));
  if (!started.empty()) log.origin_us = *std::min_element(started.begin(), started.end());
  for (std::size_t i = 0; i < log.entries.size(); ++i) {
    log.entries[i].offset = micros_to_seconds(started[i] - log.origin_us);
  }
  std::stable_sort(log.entries.begin(), log.entries.end(),
                   [](const HarEntry& a, const HarEntry& b) { return a.offset < b.offset; });
  return log;
}

Json har_scenario(const HarLog& log, const std::string& name, bool keep_headers) {
  Json servers = Json::object();
  std::map<std::string, Json> queries;  // by page
  std::vector<std::string> page_order;
  for (const HarEntry& e : log.entries) {
    Json& server = servers[e.host];
    if (server.is_null()) server = {{"model", "replay"}, {"exchanges", Json::array()}};
    // A request that got no final answer (HAR status 0, or an interim one) is answered by `then`,
    // or gets 404.
    if (e.status >= 200) {
      Json exchange{{"method", e.method}, {"target", e.target}, {"status", e.status}};
      if (!e.response_headers.empty()) {
        Json headers = Json::object();
        for (const auto& [n, v] : e.response_headers) headers[n] = v;
        exchange["headers"] = headers;
      }
      if (e.wait) exchange["service"] = *e.wait;
      server["exchanges"].push_back(std::move(exchange));
    }
    const std::string page = e.page.empty() ? "har" : e.page;
    if (!queries.contains(page)) page_order.push_back(page);
    Json& query = queries[page];
    if (query.is_null()) query = {{"name", page}, {"requests", Json::array()}};
    Json request{{"host", e.host}, {"path", e.target}, {"at", e.offset}};
    if (e.method != "GET") request["method"] = e.method;
    Json headers = Json::object();
    for (const auto& [n, v] : e.request_headers) {
      if (is_hop_or_client_field(n) || (!keep_headers && is_secret(n))) continue;
      headers[n] = v;
    }
    if (!headers.empty()) request["headers"] = headers;
    query["requests"].push_back(std::move(request));
  }
  Json query_list = Json::array();
  for (const std::string& page : page_order) query_list.push_back(queries[page]);
  // The scenario's epoch: the first entry's second, in UTC.
  const std::chrono::sys_seconds origin{std::chrono::seconds(log.origin_us / 1'000'000)};
  const auto day = std::chrono::floor<std::chrono::days>(origin);
  const std::chrono::year_month_day date{day};
  const std::chrono::hh_mm_ss time{origin - day};
  char epoch[32];
  std::snprintf(epoch, sizeof epoch, "%04d-%02u-%02uT%02d:%02d:%02dZ", int(date.year()),
                unsigned(date.month()), unsigned(date.day()), int(time.hours().count()),
                int(time.minutes().count()), int(time.seconds().count()));
  return Json{{"name", name},
              {"description",
               "Imported from a HAR file: each request at its offset from the "
               "first, the servers replaying the recorded answers."},
              {"epoch", epoch},
              {"servers", servers},
              {"queries", query_list}};
}

}  // namespace pacing::sim
