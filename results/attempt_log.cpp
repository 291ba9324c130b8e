#include "results/attempt_log.hpp"

#include <string>

#include "input/json_input.hpp"

namespace pacing::sim {

void JsonLinesTrace::attempt(const AttemptRow& row) {
  nlohmann::ordered_json line;  // keys in the order of the trace contract
  line["request"] = row.request;
  line["query"] = std::string(row.query);
  line["host"] = std::string(row.host);
  line["path"] = std::string(row.path);
  line["attempt"] = row.attempt;
  line["arrived"] = row.arrived;
  line["sent"] = nullptr;
  if (row.sent) line["sent"] = *row.sent;
  line["settled"] = row.settled;
  line["status"] = nullptr;
  if (row.status) line["status"] = *row.status;
  line["retry_after"] = nullptr;
  if (row.retry_after) line["retry_after"] = *row.retry_after;
  line["outcome"] = std::string(row.outcome);
  if (row.client) line["client"] = std::string(*row.client);
  out_ << line.dump() << '\n';
}

}  // namespace pacing::sim
