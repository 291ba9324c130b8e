#include "gui/app/charts_tab.hpp"

#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QVBoxLayout>
#include <set>

#include "gui/chart_stack.hpp"

namespace pacing::gui {

ChartsTab::ChartsTab(QWidget* parent) : QWidget(parent) {
  auto* layout = new QHBoxLayout(this);
  charts_ = new ChartStack(this);
  layout->addWidget(charts_, 1);
  auto* side = new QVBoxLayout;
  auto* hint = new QLabel(
      "Hosts and groups\n(none ticked: every host;\nmany: the busiest, and the\nrest as their mean "
      "per host)",
      this);
  side->addWidget(hint);
  filter_ = new QLineEdit(this);
  filter_->setPlaceholderText("filter, e.g. qlever");
  filter_->setClearButtonEnabled(true);
  filter_->setMaximumWidth(260);
  side->addWidget(filter_);
  entities_ = new QListWidget(this);
  entities_->setMaximumWidth(260);
  side->addWidget(entities_, 1);
  auto* reset = new QPushButton("Show the whole run", this);
  reset->setToolTip(
      "Zoom: drag over a span, wheel; pan: Shift+wheel or arrow keys; "
      "right click zooms out; double click shows everything");
  side->addWidget(reset);
  layout->addLayout(side);
  connect(reset, &QPushButton::clicked, charts_, &ChartStack::reset_zoom);
  connect(entities_, &QListWidget::itemChanged, this, &ChartsTab::apply_choice);
  connect(filter_, &QLineEdit::textChanged, this, &ChartsTab::apply_filter);
}

void ChartsTab::apply_filter() {
  // Hidden rows keep their ticks: filtering narrows what is listed, not what is charted.
  const QString text = filter_->text().trimmed();
  for (int row = 0; row < entities_->count(); ++row) {
    QListWidgetItem* item = entities_->item(row);
    item->setHidden(!text.isEmpty() && !item->text().contains(text, Qt::CaseInsensitive));
  }
}

void ChartsTab::set_runs(const std::vector<RunData>& runs) {
  std::set<std::string> ticked;
  for (int row = 0; row < entities_->count(); ++row) {
    if (entities_->item(row)->checkState() == Qt::Checked) {
      ticked.insert(entities_->item(row)->text().toStdString());
    }
  }
  std::set<std::string> hosts, groups, populations;
  for (const RunData& run : runs) {
    for (const auto& h : run.hosts) hosts.insert(h->key);
    for (const auto& g : run.groups) groups.insert(g->key);
    for (const auto& p : run.populations) populations.insert(p->key);
  }
  {
    const QSignalBlocker quiet(entities_);
    entities_->clear();
    // Every host, however many: the filter above the list finds one among thousands.
    for (const auto* keys : {&populations, &groups, &hosts}) {
      for (const std::string& key : *keys) {
        auto* item = new QListWidgetItem(QString::fromStdString(key), entities_);
        item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
        item->setCheckState(ticked.contains(key) ? Qt::Checked : Qt::Unchecked);
      }
    }
  }
  apply_filter();
  charts_->set_runs(runs, ticked_choice());
}

LineChoice ChartsTab::ticked_choice() const {
  LineChoice choice;
  for (int row = 0; row < entities_->count(); ++row) {
    if (entities_->item(row)->checkState() == Qt::Checked) {
      choice.keys.insert(entities_->item(row)->text().toStdString());
    }
  }
  return choice;
}

void ChartsTab::apply_choice() { charts_->set_choice(ticked_choice()); }

}  // namespace pacing::gui
