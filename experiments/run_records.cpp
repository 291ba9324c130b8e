#include "experiments/run_records.hpp"

#include <optional>
#include <sstream>

#include "experiments/metrics.hpp"
#include "input/csv.hpp"

namespace pacing::experiments {

using sim::InputError;

namespace {

std::vector<std::string> header(const SweepDefinition& definition) {
  std::vector<std::string> columns{"run", "combination", "replication", "seed", "strategy"};
  for (const GridAxis& axis : definition.axes) columns.push_back(axis.pointer);
  for (const Metric& metric : definition.metrics()) columns.push_back(metric.name);
  return columns;
}

}  // namespace

std::string format_runs_csv(const SweepDefinition& definition,
                            const std::vector<RunRecord>& records) {
  std::string out = csv_line(header(definition));
  for (const RunRecord& r : records) {
    const std::size_t combination = definition.combination_of(r.run);
    std::vector<std::string> fields{std::to_string(r.run), std::to_string(combination),
                                    std::to_string(definition.replication_of(r.run)),
                                    std::to_string(r.seed), r.strategy};
    const std::vector<std::size_t> values = combination_values(definition.axes, combination);
    for (std::size_t a = 0; a < definition.axes.size(); ++a) {
      fields.push_back(value_text(definition.axes[a].values[values[a]]));
    }
    for (double m : r.metrics) fields.push_back(format_number(m));
    out += csv_line(fields);
  }
  return out;
}

std::vector<RunRecord> parse_runs_csv(const SweepDefinition& definition, const std::string& text,
                                      const std::string& file) {
  std::istringstream in(text);
  std::string line;
  const std::vector<std::string> expected = header(definition);
  if (!std::getline(in, line) || split_csv_line(line) != expected) {
    throw InputError(file + ": line 1: not the header of this sweep's runs.csv");
  }
  const std::size_t first_metric = 5 + definition.axes.size();
  std::vector<RunRecord> records;
  for (std::size_t number = 2; std::getline(in, line); ++number) {
    const std::string where = file + ": line " + std::to_string(number);
    auto fields = split_csv_line(line);
    if (!fields || fields->size() != expected.size()) {
      throw InputError(where + ": expected " + std::to_string(expected.size()) + " fields");
    }
    RunRecord r;
    const auto run = parse_whole((*fields)[0]);
    const auto seed = parse_whole((*fields)[3]);
    if (!run || *run >= definition.runs()) throw InputError(where + ": run out of range");
    if (!seed) throw InputError(where + ": seed is not a whole number");
    r.run = static_cast<std::size_t>(*run);
    r.seed = *seed;
    r.strategy = (*fields)[4];
    for (std::size_t i = first_metric; i < fields->size(); ++i) {
      auto value = parse_number((*fields)[i]);
      if (!value) throw InputError(where + ": " + expected[i] + " is not a number");
      r.metrics.push_back(*value);
    }
    records.push_back(std::move(r));
  }
  return records;
}

}  // namespace pacing::experiments
