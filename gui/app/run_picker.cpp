#include "gui/app/run_picker.hpp"

#include <QDialogButtonBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QVBoxLayout>

namespace pacing::gui {

QString RunPicker::describe(const DbRunInfo& run) {
  QString text =
      QString("run %1 · %2 · %3 · seed %4")
          .arg(run.id)
          .arg(QString::fromStdString(run.scenario), QString::fromStdString(run.strategy))
          .arg(run.seed);
  if (run.combination) text += QString(" · combination %1").arg(*run.combination);
  if (run.replication) text += QString(" · replication %1").arg(*run.replication);
  if (!run.parameters.empty() && run.parameters != "{}") {
    text += " · " + QString::fromStdString(run.parameters);
  }
  return text;
}

RunPicker::RunPicker(const std::vector<DbRunInfo>& runs, std::size_t ticked, QWidget* parent)
    : QDialog(parent), runs_(runs), list_(new QListWidget(this)), filter_(new QLineEdit(this)) {
  setWindowTitle("Open runs of a results database");
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(new QLabel(QString("The database holds %1 runs; tick the ones to open (each "
                                       "one is a line on every chart).")
                                   .arg(runs.size()),
                               this));
  filter_->setPlaceholderText("filter, e.g. combination 3 or comunica");
  filter_->setClearButtonEnabled(true);
  layout->addWidget(filter_);
  for (std::size_t i = 0; i < runs_.size(); ++i) {
    auto* item = new QListWidgetItem(describe(runs_[i]), list_);
    item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
    item->setCheckState(i < ticked ? Qt::Checked : Qt::Unchecked);
  }
  layout->addWidget(list_);
  auto* tick_shown = new QPushButton("Tick the shown", this);
  auto* untick_all = new QPushButton("Untick all", this);
  auto* row = new QHBoxLayout;
  row->addWidget(tick_shown);
  row->addWidget(untick_all);
  row->addStretch();
  layout->addLayout(row);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Open | QDialogButtonBox::Cancel, this);
  layout->addWidget(buttons);
  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  connect(filter_, &QLineEdit::textChanged, this, [this](const QString& text) {
    for (int i = 0; i < list_->count(); ++i) {
      list_->item(i)->setHidden(!list_->item(i)->text().contains(text, Qt::CaseInsensitive));
    }
  });
  connect(tick_shown, &QPushButton::clicked, this, [this] {
    for (int i = 0; i < list_->count(); ++i) {
      if (!list_->item(i)->isHidden()) list_->item(i)->setCheckState(Qt::Checked);
    }
  });
  connect(untick_all, &QPushButton::clicked, this, [this] {
    for (int i = 0; i < list_->count(); ++i) list_->item(i)->setCheckState(Qt::Unchecked);
  });
  resize(760, 520);
}

std::vector<std::int64_t> RunPicker::chosen() const {
  std::vector<std::int64_t> ids;
  for (int i = 0; i < list_->count(); ++i) {
    if (list_->item(i)->checkState() == Qt::Checked)
      ids.push_back(runs_[static_cast<std::size_t>(i)].id);
  }
  return ids;
}

}  // namespace pacing::gui
