// pacing-lab import: observations of the real world (HAR files) as scenarios.

#include <filesystem>
#include <iostream>

#include "cli/common.hpp"
#include "input/files.hpp"
#include "observations/har.hpp"

namespace pacing::cli {

using namespace pacing::sim;

namespace {

struct ImportArgs {
  std::string file, out, name;
  bool keep_headers = false;
};

/// Reads a HAR file and writes (or prints) the scenario it makes, checked by the lab's own
/// loader first: what is written validates and runs as it is.
int import_har(const ImportArgs& a) {
  const Json doc = read_json_file(a.file);
  const HarLog log = read_har(doc, a.file);
  if (log.entries.empty()) throw InputError(a.file + ": /log/entries: has no entry to import");
  const std::string name = a.name.empty() ? std::filesystem::path(a.file).stem().string() : a.name;
  const Json scenario = har_scenario(log, name, a.keep_headers);
  parse_scenario(scenario, a.out.empty() ? a.file : a.out);  // throws, naming every defect
  const std::string text = scenario.dump(2) + "\n";
  if (a.out.empty()) {
    std::cout << text;
  } else {
    OutputSet outputs;
    outputs.add(a.out, text);
    outputs.commit();
    std::cerr << "wrote " << a.out << ": " << log.entries.size() << " requests to "
              << scenario["servers"].size() << " hosts\n";
  }
  return kOk;
}

}  // namespace

void add_import_commands(CLI::App& app, Action& action) {
  CLI::App* import = app.add_subcommand("import", "Make a scenario from observations");
  import->require_subcommand(1);
  auto har = std::make_shared<ImportArgs>();
  CLI::App* har_cmd = import->add_subcommand(
      "har", "A HAR 1.2 file (browser devtools, Playwright): a query per page, replay servers");
  har_cmd->add_option("file", har->file, "The HAR file")->required();
  har_cmd->add_option("--out", har->out, "The scenario file to write (default: stdout)");
  har_cmd->add_option("--name", har->name, "The scenario's name (default: the file's stem)");
  har_cmd->add_flag("--keep-headers", har->keep_headers,
                    "Keep Cookie and Authorization (dropped by default)");
  har_cmd->callback([&action, har] { action = [har] { return import_har(*har); }; });
}

}  // namespace pacing::cli
