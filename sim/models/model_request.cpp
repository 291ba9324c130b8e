#include "sim/models/model.hpp"

namespace pacing::sim {

ModelRequest model_request(std::string method, std::string target, const Headers& headers,
                           std::string_view connection_address) {
  ModelRequest r;
  r.method = std::move(method);
  r.path = std::move(target);
  r.headers = headers;
  auto address = find_header(headers, "X-Client-Address");
  r.address = std::string(address ? *address : connection_address);
  auto id = find_header(headers, "X-Client-Id");
  r.client = id ? std::string(*id) : r.address;
  auto heavy = find_header(headers, "X-Heavy");
  r.heavy = heavy && *heavy == "1";
  return r;
}

}  // namespace pacing::sim
