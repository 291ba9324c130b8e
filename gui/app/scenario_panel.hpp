#pragma once
// Choosing a scenario (a shipped one, with its description, or any file), editing its client
// settings, and asking to run it.

#include <QString>
#include <QWidget>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>

#include "scenario/scenario.hpp"

class QComboBox;
class QLabel;
class QListWidget;
class QSpinBox;
class QProgressBar;
class QPushButton;

namespace pacing::gui {

class SettingsForm;

class ScenarioPanel : public QWidget {
  Q_OBJECT
 public:
  /// Lists the scenarios found in `shipped_dir`.
  explicit ScenarioPanel(const std::filesystem::path& shipped_dir, QWidget* parent = nullptr);

  /// Loads a scenario file into the panel; false (with the checker's message) when invalid.
  bool open_scenario(const std::filesystem::path& file, QString* error = nullptr);
  /// The loaded scenario with the form's client settings; throws sim::InputError when they are
  /// invalid (the message names the field).
  sim::Scenario scenario_to_run() const;
  bool has_scenario() const { return !document_.is_null(); }
  /// Shows that a series of runs is going on (progress, cancel) or done.
  void show_progress(int done, int total, const QString& what);
  void show_idle(const QString& message);

  SettingsForm* form() const { return form_; }
  /// Whose settings the form shows: "client", or a crowd's population ("users (20 clients)").
  QComboBox* population_box() const { return population_; }
  /// How many clients the shown population has (a crowd's; disabled for "client").
  QSpinBox* count_box() const { return count_; }
  QListWidget* shipped_list() const { return shipped_; }

 signals:
  /// Run the scenario once with the form's strategy, or once with each strategy.
  void run_requested(bool every_strategy);
  void cancel_requested();
  /// Something to tell the user (an invalid scenario).
  void problem(const QString& message);

 private:
  /// Writes the form (and the count) into the document's population `index` (-1: "client").
  void store_form(nlohmann::json& document, int index) const;
  /// Shows population `index` (-1: "client") in the form.
  void show_population(int index);

  std::filesystem::path file_;
  nlohmann::json document_;
  int shown_ = -1;  ///< the population the form shows: an index into "clients", or -1 ("client")
  QComboBox* population_;
  QSpinBox* count_;
  QListWidget* shipped_;
  QLabel* description_;
  SettingsForm* form_;
  QPushButton* run_;
  QPushButton* run_all_;
  QPushButton* cancel_;
  QProgressBar* progress_;
  QLabel* status_;
};

}  // namespace pacing::gui
