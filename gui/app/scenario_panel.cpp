#include "gui/app/scenario_panel.hpp"

#include <QComboBox>
#include <QFileDialog>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSpinBox>
#include <QVBoxLayout>
#include <algorithm>
#include <fstream>

#include "gui/app/settings_form.hpp"
#include "input/files.hpp"
#include "strategies/registry.hpp"

namespace pacing::gui {

namespace {
constexpr int kPathRole = Qt::UserRole;
constexpr int kDescriptionRole = Qt::UserRole + 1;
}  // namespace

ScenarioPanel::ScenarioPanel(const std::filesystem::path& shipped_dir, QWidget* parent)
    : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(new QLabel("Shipped scenarios:", this));
  shipped_ = new QListWidget(this);
  shipped_->setMaximumHeight(150);
  layout->addWidget(shipped_);
  std::vector<std::filesystem::path> files;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(shipped_dir, ec)) {
    if (entry.path().extension() == ".json") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  for (const auto& file : files) {
    try {
      const sim::Scenario s = sim::load_scenario(file);
      auto* item = new QListWidgetItem(QString::fromStdString(s.name), shipped_);
      item->setData(kPathRole, QString::fromStdString(file.string()));
      item->setData(kDescriptionRole, QString::fromStdString(s.description));
      item->setToolTip(QString::fromStdString(s.description));
    } catch (const sim::InputError&) {
      // Not a scenario (or a broken one): not offered.
    }
  }
  auto* open = new QPushButton("Open scenario file…", this);
  layout->addWidget(open);
  description_ = new QLabel("Pick a scenario.", this);
  description_->setWordWrap(true);
  description_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(description_);

  // A crowd's populations: the form shows one at a time, with its number of clients.
  auto* who = new QHBoxLayout;
  who->addWidget(new QLabel("Settings of:", this));
  population_ = new QComboBox(this);
  population_->setObjectName("population");
  who->addWidget(population_, 1);
  who->addWidget(new QLabel("clients:", this));
  count_ = new QSpinBox(this);
  count_->setObjectName("count");
  count_->setRange(1, 100000);
  count_->setEnabled(false);
  who->addWidget(count_);
  layout->addLayout(who);
  connect(population_, &QComboBox::activated, this, [this](int row) {
    store_form(document_, shown_);
    show_population(population_->itemData(row).toInt());
  });

  auto* scroll = new QScrollArea(this);
  scroll->setWidgetResizable(true);
  form_ = new SettingsForm(scroll);
  scroll->setWidget(form_);
  layout->addWidget(scroll, 1);

  auto* buttons = new QGridLayout;
  run_ = new QPushButton("Run", this);
  run_->setToolTip("Run the scenario on virtual time with these settings");
  run_all_ = new QPushButton("Run each strategy", this);
  run_all_->setToolTip(QString::fromStdString("Run each strategy (" + sim::strategy_list() +
                                              ") with these settings, to compare"));
  cancel_ = new QPushButton("Cancel", this);
  cancel_->setToolTip("Stop before the next run of the series");
  cancel_->setEnabled(false);
  buttons->addWidget(run_, 0, 0);
  buttons->addWidget(run_all_, 0, 1);
  buttons->addWidget(cancel_, 0, 2);
  layout->addLayout(buttons);
  progress_ = new QProgressBar(this);
  progress_->setRange(0, 1);
  progress_->setValue(0);
  layout->addWidget(progress_);
  status_ = new QLabel(this);
  status_->setWordWrap(true);
  layout->addWidget(status_);

  connect(shipped_, &QListWidget::currentItemChanged, this, [this](QListWidgetItem* item) {
    if (!item) return;
    QString error;
    if (!open_scenario(item->data(kPathRole).toString().toStdString(), &error)) emit problem(error);
  });
  connect(open, &QPushButton::clicked, this, [this] {
    const QString file =
        QFileDialog::getOpenFileName(this, "Open a scenario", {}, "Scenarios (*.json)");
    QString error;
    if (!file.isEmpty() && !open_scenario(file.toStdString(), &error)) emit problem(error);
  });
  connect(run_, &QPushButton::clicked, this, [this] { emit run_requested(false); });
  connect(run_all_, &QPushButton::clicked, this, [this] { emit run_requested(true); });
  connect(cancel_, &QPushButton::clicked, this, [this] { emit cancel_requested(); });
  run_->setEnabled(false);
  run_all_->setEnabled(false);
}

bool ScenarioPanel::open_scenario(const std::filesystem::path& file, QString* error) {
  try {
    const sim::Scenario checked = sim::load_scenario(file);  // reports every defect at once
    document_ = sim::read_json_file(file);
    file_ = file;
    description_->setText(QString("<b>%1</b><br>%2")
                              .arg(QString::fromStdString(checked.name).toHtmlEscaped(),
                                   QString::fromStdString(checked.description).toHtmlEscaped()));
    population_->clear();
    if (document_.contains("client") || !document_.contains("clients")) {
      population_->addItem("client", -1);
    }
    const nlohmann::json crowd = document_.value("clients", nlohmann::json::array());
    for (std::size_t i = 0; i < crowd.size(); ++i) {
      population_->addItem(QString("%1 (%2 clients)")
                               .arg(QString::fromStdString(crowd[i].value("name", "")))
                               .arg(crowd[i].value("count", 1)),
                           static_cast<int>(i));
    }
    show_population(population_->itemData(0).toInt());
    run_->setEnabled(true);
    run_all_->setEnabled(true);
    return true;
  } catch (const std::exception& e) {
    if (error) *error = QString::fromUtf8(e.what());
    return false;
  }
}

void ScenarioPanel::show_population(int index) {
  shown_ = index;
  const bool crowd = index >= 0;
  const nlohmann::json& settings = crowd ? document_["clients"][static_cast<std::size_t>(index)]
                                         : document_.value("client", nlohmann::json::object());
  form_->set_client(settings);
  count_->setEnabled(crowd);
  count_->setValue(crowd ? settings.value("count", 1) : 1);
}

void ScenarioPanel::store_form(nlohmann::json& document, int index) const {
  if (index < 0) {
    document["client"] = form_->client();
    return;
  }
  // The population keeps what the form does not show (name, start, address, headers).
  nlohmann::json& population = document["clients"][static_cast<std::size_t>(index)];
  const nlohmann::json settings = form_->client();  // kept alive while its items are read
  for (const auto& [key, value] : settings.items()) population[key] = value;
  population["count"] = count_->value();
}

sim::Scenario ScenarioPanel::scenario_to_run() const {
  nlohmann::json document = document_;
  store_form(document, shown_);
  return sim::parse_scenario(document, file_);
}

void ScenarioPanel::show_progress(int done, int total, const QString& what) {
  run_->setEnabled(false);
  run_all_->setEnabled(false);
  cancel_->setEnabled(true);
  progress_->setRange(0, total);
  progress_->setValue(done);
  status_->setText(what);
}

void ScenarioPanel::show_idle(const QString& message) {
  run_->setEnabled(has_scenario());
  run_all_->setEnabled(has_scenario());
  cancel_->setEnabled(false);
  progress_->setRange(0, 1);
  progress_->setValue(1);
  status_->setText(message);
}

}  // namespace pacing::gui
