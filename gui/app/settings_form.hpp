#pragma once
// A form for a scenario's "client" object: the strategy, in-flight cap, host limits, retries,
// the core's constants and rule switches, and Comunica's settings.

#include <QWidget>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QSpinBox;
class QTableWidget;

namespace pacing::gui {

class SettingsForm : public QWidget {
  Q_OBJECT
 public:
  explicit SettingsForm(QWidget* parent = nullptr);

  /// Shows a scenario's client object; fields it leaves out show the lab's defaults.
  void set_client(const nlohmann::json& client);
  /// The client object as the form shows it (every field written out), for the scenario's
  /// "client" (see scenario/scenario.cpp, read_client).
  nlohmann::json client() const;

 private:
  QWidget* build_limits_box();
  QWidget* build_core_box();
  QWidget* build_comunica_box();

  QComboBox* strategy_ = nullptr;
  QSpinBox* in_flight_ = nullptr;
  QSpinBox* retries_ = nullptr;
  QDoubleSpinBox* timeout_ = nullptr;
  QTableWidget* hosts_ = nullptr;
  QDoubleSpinBox* initial_interval_ = nullptr;
  QDoubleSpinBox* max_interval_ = nullptr;
  QDoubleSpinBox* decay_ = nullptr;
  QDoubleSpinBox* max_retry_after_ = nullptr;
  QCheckBox* hints_ = nullptr;
  std::map<std::string, QCheckBox*>
      rules_;  ///< by the scenario's key, e.g. countOnlySinceLastChange
  QDoubleSpinBox* correction_ = nullptr;
  QDoubleSpinBox* failure_ = nullptr;
  QCheckBox* limit_by_default_ = nullptr;
  QCheckBox* allow_overlap_ = nullptr;
  /// Every field the form does not edit (userAgent, browser, other strategies' settings, rules
  /// it has no box for), kept as loaded and written back under the form's own.
  nlohmann::json passthrough_;
  /// `retries` as loaded (absent: each strategy keeps its own default unless the box changes).
  std::optional<int> loaded_retries_;
};

}  // namespace pacing::gui
