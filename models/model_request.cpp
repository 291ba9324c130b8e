#include "models/model.hpp"

namespace pacing::sim {

ModelRequest model_request(std::string_view method, std::string_view target, const Headers& headers,
                           std::string_view connection_address) {
  ModelRequest r;
  fill_model_request(r, method, target, headers, {}, connection_address);
  return r;
}

void fill_model_request(ModelRequest& r, std::string_view method, std::string_view target,
                        const Headers& headers, const Headers& extra,
                        std::string_view connection_address) {
  r.id = 0;
  r.method.assign(method);
  r.path.assign(target);
  r.headers = headers;
  r.headers.insert(r.headers.end(), extra.begin(), extra.end());
  auto address = find_header(r.headers, "X-Client-Address");
  r.address.assign(address ? *address : connection_address);
  auto id = find_header(r.headers, "X-Client-Id");
  r.client.assign(id ? *id : std::string_view(r.address));
  auto heavy = find_header(r.headers, "X-Heavy");
  r.heavy = heavy && *heavy == "1";
}

}  // namespace pacing::sim
