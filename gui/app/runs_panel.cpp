#include "gui/app/runs_panel.hpp"

#include <QHBoxLayout>
#include <QListWidget>
#include <QPushButton>
#include <QVBoxLayout>

namespace pacing::gui {

RunsPanel::RunsPanel(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  list_ = new QListWidget(this);
  list_->setToolTip(
      "Ticked runs are charted and compared; the highlighted one is taught. "
      "Double-click to rename.");
  layout->addWidget(list_);
  auto* buttons = new QHBoxLayout;
  auto* remove = new QPushButton("Remove", this);
  auto* clear = new QPushButton("Remove all", this);
  buttons->addWidget(remove);
  buttons->addWidget(clear);
  buttons->addStretch();
  layout->addLayout(buttons);
  connect(list_, &QListWidget::itemChanged, this, [this] { emit ticked_changed(); });
  connect(list_, &QListWidget::currentRowChanged, this, [this] { emit current_changed(); });
  connect(remove, &QPushButton::clicked, this, [this] {
    const int row = list_->currentRow();
    if (row < 0) return;
    runs_.erase(runs_.begin() + row);
    delete list_->takeItem(row);
    emit ticked_changed();
    emit current_changed();
  });
  connect(clear, &QPushButton::clicked, this, [this] {
    runs_.clear();
    list_->clear();
    emit ticked_changed();
    emit current_changed();
  });
}

void RunsPanel::add_run(RunData run) {
  if (run.label.empty()) {
    run.label = (run.strategy.empty() ? "run" : run.strategy) + " #" + std::to_string(next_number_);
  }
  ++next_number_;
  const QSignalBlocker quiet(list_);  // one notification below, not one per property set
  auto* item = new QListWidgetItem(QString::fromStdString(run.label), list_);
  item->setFlags(item->flags() | Qt::ItemIsUserCheckable | Qt::ItemIsEditable);
  item->setCheckState(Qt::Checked);
  item->setToolTip(QString::fromStdString(run.scenario + " (" + run.strategy + ", seed " +
                                          std::to_string(run.seed) + ")"));
  runs_.push_back(std::move(run));
  list_->setCurrentItem(item);
  emit ticked_changed();
  emit current_changed();
}

std::vector<RunData> RunsPanel::ticked_runs() const {
  std::vector<RunData> out;
  for (int row = 0; row < list_->count(); ++row) {
    const QListWidgetItem* item = list_->item(row);
    if (item->checkState() != Qt::Checked) continue;
    RunData run = runs_[static_cast<std::size_t>(row)];
    run.label = item->text().toStdString();
    out.push_back(std::move(run));
  }
  return out;
}

const RunData* RunsPanel::current_run() const {
  const int row = list_->currentRow();
  return row < 0 ? nullptr : &runs_[static_cast<std::size_t>(row)];
}

int RunsPanel::count() const { return list_->count(); }

void RunsPanel::set_ticked(int row, bool ticked) {
  if (QListWidgetItem* item = list_->item(row))
    item->setCheckState(ticked ? Qt::Checked : Qt::Unchecked);
}

}  // namespace pacing::gui
