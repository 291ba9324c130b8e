#include "gui/app/settings_form.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QPushButton>
#include <QSpinBox>
#include <QTableWidget>
#include <QVBoxLayout>
#include <vector>

#include "core/settings.hpp"
#include "scenario/scenario.hpp"
#include "strategies/comunica.hpp"

namespace pacing::gui {

using Json = nlohmann::json;

namespace {

/// The rule switches: the scenario's key, the form's label, and what the rule does.
struct RuleText {
  const char* key;
  const char* label;
  const char* tip;
  bool on_by_default = true;
};
const std::vector<RuleText> kRules{
    {"countOnlySinceLastChange", "count only requests started since the last change",
     "A burst refused together doubles (or decays) the learned interval once, not once each."},
    {"learnBeforeRelease", "learn before releasing the place",
     "A refusal teaches before its request frees its in-flight place, so the next start already "
     "goes at the new pace."},
    {"pauseOnRetryAfter", "pause on Retry-After", "Retry-After pauses the host and its groups."},
    {"keepLongerPause", "keep the longer pause",
     "A later, shorter Retry-After never shortens a pause in force."},
    {"doubleOnRefusal", "double on refusal", "A refusal without Retry-After doubles the interval."},
    {"decayOnSuccess", "decay on success", "Every other answer takes a tenth off the interval."},
    {"retryKeepsPlace", "retry keeps its place",
     "A retried request goes ahead of every request that arrived after it."},
    {"jitter", "jitter (full)",
     "A start released by a pause or a learned interval waits a further random fraction of that "
     "wait, so that clients refused together do not come back together.",
     false},
};

QDoubleSpinBox* seconds_box(double max, int decimals = 3) {
  auto* box = new QDoubleSpinBox;
  box->setRange(0, max);
  box->setDecimals(decimals);
  box->setSuffix(" s");
  return box;
}

double seconds_of(Duration d) { return std::chrono::duration<double>(d).count(); }

}  // namespace

SettingsForm::SettingsForm(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  auto* basics = new QGroupBox("Client", this);
  auto* form = new QFormLayout(basics);
  strategy_ = new QComboBox;
  strategy_->setObjectName("strategy");  // the client field it edits; tests find it by it
  for (const std::string& name : sim::strategy_names())
    strategy_->addItem(QString::fromStdString(name));
  QStringList tips;
  for (const sim::StrategyInfo& info : sim::strategies()) {
    tips << QString::fromStdString(info.name + ": " + info.description);
  }
  strategy_->setToolTip(tips.join("\n"));
  form->addRow("strategy", strategy_);
  in_flight_ = new QSpinBox;
  in_flight_->setObjectName("inFlight");
  in_flight_->setRange(1, 1'000'000);
  in_flight_->setToolTip("Default in-flight cap per host (hosts without a cap of their own)");
  form->addRow("in flight per host", in_flight_);
  retries_ = new QSpinBox;
  retries_->setObjectName("retries");
  retries_->setRange(0, 1000);
  retries_->setToolTip("Retries of a refused request when the query's context sets none");
  form->addRow("retries", retries_);
  timeout_ = seconds_box(3600);
  form->addRow("timeout", timeout_);
  layout->addWidget(basics);
  layout->addWidget(build_limits_box());
  layout->addWidget(build_core_box());
  layout->addWidget(build_comunica_box());
  set_client(Json::object());
}

QWidget* SettingsForm::build_limits_box() {
  auto* box = new QGroupBox("Host limits (host, host:port or *.domain group)");
  auto* layout = new QVBoxLayout(box);
  hosts_ = new QTableWidget(0, 3, box);
  hosts_->setObjectName("hosts");
  hosts_->setHorizontalHeaderLabels({"key", "in flight", "per second"});
  hosts_->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
  hosts_->verticalHeader()->hide();
  hosts_->setMinimumHeight(90);
  hosts_->setToolTip("Leave a cell empty for no limit of that kind");
  layout->addWidget(hosts_);
  auto* buttons = new QHBoxLayout;
  auto* add = new QPushButton("Add", box);
  auto* remove = new QPushButton("Remove", box);
  buttons->addWidget(add);
  buttons->addWidget(remove);
  buttons->addStretch();
  layout->addLayout(buttons);
  connect(add, &QPushButton::clicked, this, [this] {
    hosts_->insertRow(hosts_->rowCount());
    hosts_->setItem(hosts_->rowCount() - 1, 0, new QTableWidgetItem("example.org"));
  });
  connect(remove, &QPushButton::clicked, this, [this] {
    if (hosts_->currentRow() >= 0) hosts_->removeRow(hosts_->currentRow());
  });
  return box;
}

QWidget* SettingsForm::build_core_box() {
  auto* box = new QGroupBox("The core's constants and rules (throttle)");
  auto* form = new QFormLayout(box);
  initial_interval_ = seconds_box(3600);
  form->addRow("first learned interval", initial_interval_);
  max_interval_ = seconds_box(3600);
  form->addRow("largest learned interval", max_interval_);
  decay_ = new QDoubleSpinBox;
  decay_->setRange(0.001, 1);
  decay_->setDecimals(3);
  decay_->setSingleStep(0.05);
  decay_->setToolTip("Every answer that is not a refusal multiplies the interval by this");
  form->addRow("decay factor", decay_);
  max_retry_after_ = seconds_box(7 * 86400, 0);
  max_retry_after_->setToolTip("A longer Retry-After is absurd and treated as absent");
  form->addRow("longest Retry-After", max_retry_after_);
  hints_ = new QCheckBox("follow RateLimit hints (draft)", box);
  hints_->setObjectName("hints");
  hints_->setToolTip(
      "Pace by the server's RateLimit-Policy / RateLimit fields before it refuses (off by "
      "default)");
  form->addRow(hints_);
  for (const RuleText& rule : kRules) {
    auto* check = new QCheckBox(rule.label, box);
    check->setObjectName(rule.key);
    check->setToolTip(rule.tip);
    form->addRow(check);
    rules_[rule.key] = check;
  }
  return box;
}

QWidget* SettingsForm::build_comunica_box() {
  auto* box = new QGroupBox("Comunica's limiter (comunica)");
  auto* form = new QFormLayout(box);
  correction_ = new QDoubleSpinBox;
  correction_->setRange(0, 1e6);
  correction_->setDecimals(3);
  form->addRow("correction multiplier", correction_);
  failure_ = new QDoubleSpinBox;
  failure_->setRange(0, 1e6);
  form->addRow("failure multiplier", failure_);
  limit_by_default_ = new QCheckBox("limit by default", box);
  allow_overlap_ = new QCheckBox("allow overlap", box);
  form->addRow(limit_by_default_);
  form->addRow(allow_overlap_);
  return box;
}

void SettingsForm::set_client(const Json& client) {
  const EngineSettings engine;
  const sim::ComunicaSettings comunica;
  const Json c = client.is_object() ? client : Json::object();
  strategy_->setCurrentText(QString::fromStdString(c.value("strategy", "throttle")));
  in_flight_->setValue(c.value("inFlight", engine.in_flight));
  loaded_retries_ = c.contains("retries") && c["retries"].is_number_integer()
                        ? std::optional<int>(c["retries"].get<int>())
                        : std::nullopt;
  retries_->setValue(loaded_retries_.value_or(engine.retry_count));
  timeout_->setValue(c.value("timeout", 30.0));
  initial_interval_->setValue(c.value("initialInterval", seconds_of(engine.initial_interval)));
  max_interval_->setValue(c.value("maxInterval", seconds_of(engine.max_interval)));
  decay_->setValue(c.value("decay", engine.decay));
  hints_->setChecked(c.value("hints", engine.hints));
  max_retry_after_->setValue(c.value("maxRetryAfter", seconds_of(engine.max_retry_after)));
  const Json rules = c.value("rules", Json::object());
  for (const RuleText& rule : kRules) {
    rules_.at(rule.key)->setChecked(rules.value(rule.key, rule.on_by_default));
  }
  const Json com = c.value("comunica", Json::object());
  correction_->setValue(com.value("correctionMultiplier", comunica.correction_multiplier));
  failure_->setValue(com.value("failureMultiplier", comunica.failure_multiplier));
  limit_by_default_->setChecked(com.value("limitByDefault", comunica.limit_by_default));
  allow_overlap_->setChecked(com.value("allowOverlap", comunica.allow_overlap));
  hosts_->setRowCount(0);
  Json hosts = Json::object();
  if (c.contains("hosts")) {
    hosts = c["hosts"];
  } else {
    for (const auto& [key, limits] : engine.hosts) {
      Json l = Json::object();
      if (limits.in_flight) l["inFlight"] = *limits.in_flight;
      if (limits.per_second) l["perSecond"] = *limits.per_second;
      hosts[key] = l;
    }
  }
  for (const auto& [key, limits] : hosts.items()) {
    const int row = hosts_->rowCount();
    hosts_->insertRow(row);
    hosts_->setItem(row, 0, new QTableWidgetItem(QString::fromStdString(key)));
    auto cell = [&](const char* field) {
      return limits.contains(field) ? QString::fromStdString(limits[field].dump()) : QString();
    };
    hosts_->setItem(row, 1, new QTableWidgetItem(cell("inFlight")));
    hosts_->setItem(row, 2, new QTableWidgetItem(cell("perSecond")));
  }
  // Keep what the form has no field for: a strategy's own object, a rule without a box.
  passthrough_ = c;
  for (const char* key : {"strategy", "inFlight", "retries", "timeout", "initialInterval",
                          "maxInterval", "decay", "hints", "maxRetryAfter", "hosts"}) {
    passthrough_.erase(key);
  }
}

Json SettingsForm::client() const {
  Json c = passthrough_;
  c["strategy"] = strategy_->currentText().toStdString();
  c["inFlight"] = in_flight_->value();
  // Unless the scenario named retries or the user changed the box, each strategy keeps its own
  // default (the core 5, unpaced none...): "Run each strategy" then runs each as it ships.
  if (loaded_retries_ || retries_->value() != EngineSettings{}.retry_count)
    c["retries"] = retries_->value();
  c["timeout"] = timeout_->value();
  c["initialInterval"] = initial_interval_->value();
  c["maxInterval"] = max_interval_->value();
  c["decay"] = decay_->value();
  c["hints"] = hints_->isChecked();
  c["maxRetryAfter"] = max_retry_after_->value();
  Json rules = c.value("rules", Json::object());
  if (!rules.is_object()) rules = Json::object();
  for (const auto& [key, check] : rules_) rules[key] = check->isChecked();
  c["rules"] = rules;
  Json comunica = c.value("comunica", Json::object());
  if (!comunica.is_object()) comunica = Json::object();
  comunica.update(Json{{"correctionMultiplier", correction_->value()},
                       {"failureMultiplier", failure_->value()},
                       {"limitByDefault", limit_by_default_->isChecked()},
                       {"allowOverlap", allow_overlap_->isChecked()}});
  c["comunica"] = comunica;
  Json hosts = Json::object();
  for (int row = 0; row < hosts_->rowCount(); ++row) {
    auto text = [&](int column) {
      const QTableWidgetItem* item = hosts_->item(row, column);
      return item ? item->text().trimmed() : QString();
    };
    if (text(0).isEmpty()) continue;
    // A cell is read as JSON, else kept as text: a typo then reaches the scenario check, which
    // names the field, instead of vanishing here.
    auto value = [&](int column) {
      Json v = Json::parse(text(column).toStdString(), nullptr, false);
      return v.is_discarded() ? Json(text(column).toStdString()) : v;
    };
    Json limits = Json::object();
    if (!text(1).isEmpty()) limits["inFlight"] = value(1);
    if (!text(2).isEmpty()) limits["perSecond"] = value(2);
    hosts[text(0).toStdString()] = limits;
  }
  c["hosts"] = hosts;
  return c;
}

}  // namespace pacing::gui
