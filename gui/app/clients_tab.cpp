#include "gui/app/clients_tab.hpp"

#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

#include "gui/fairness_chart.hpp"

namespace pacing::gui {

namespace {

/// A cell that shows a number with `decimals` and sorts by the number, not its text.
class NumberItem : public QTableWidgetItem {
 public:
  NumberItem(double value, int decimals)
      : QTableWidgetItem(QString::number(value, 'f', decimals)), value_(value) {
    setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
  }
  bool operator<(const QTableWidgetItem& other) const override {
    const auto* number = dynamic_cast<const NumberItem*>(&other);
    return number ? value_ < number->value_ : QTableWidgetItem::operator<(other);
  }

 private:
  double value_;
};

}  // namespace

ClientsTab::ClientsTab(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  auto* split = new QSplitter(Qt::Vertical, this);
  chart_ = new FairnessChart(split);
  auto* below = new QWidget(split);
  auto* below_layout = new QVBoxLayout(below);
  below_layout->setContentsMargins(0, 0, 0, 0);
  note_ = new QLabel(below);
  note_->setWordWrap(true);
  below_layout->addWidget(note_);
  table_ = new QTableWidget(below);
  table_->setColumnCount(static_cast<int>(headers().size()));
  table_->setHorizontalHeaderLabels(headers());
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->verticalHeader()->hide();
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table_->setAlternatingRowColors(true);
  below_layout->addWidget(table_, 1);
  split->addWidget(chart_);
  split->addWidget(below);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  layout->addWidget(split);
  set_runs({});
}

QStringList ClientsTab::headers() {
  return {"run", "client", "completed", "gave up", "refusals", "makespan (s)", "goodput (/s)"};
}

void ClientsTab::set_runs(const std::vector<RunData>& runs) {
  chart_->set_runs(runs);
  table_->setSortingEnabled(false);  // rows would move while they are filled
  int total = 0;
  for (const RunData& run : runs) {
    for (const auto& p : run.populations) total += static_cast<int>(p->clients.size());
  }
  const int rows = std::min(total, kMaxRows);
  table_->setRowCount(rows);
  int row = 0;
  for (const RunData& run : runs) {
    for (const auto& p : run.populations) {
      // "clients: users" -> "users#3", as the trace names a client.
      const QString name = QString::fromStdString(p->key.substr(p->key.find(' ') + 1));
      const ClientColumns& c = p->clients;
      for (std::size_t i = 0; i < c.size() && row < rows; ++i, ++row) {
        table_->setItem(row, 0, new QTableWidgetItem(QString::fromStdString(run.label)));
        table_->setItem(row, 1, new QTableWidgetItem(QString("%1#%2").arg(name).arg(i)));
        table_->setItem(row, 2, new NumberItem(c.completed[i], 0));
        table_->setItem(row, 3, new NumberItem(c.gave_up[i], 0));
        table_->setItem(row, 4, new NumberItem(c.refusals[i], 0));
        table_->setItem(row, 5, new NumberItem(c.makespan[i], 3));
        table_->setItem(row, 6, new NumberItem(c.goodput[i], 3));
      }
    }
  }
  table_->setSortingEnabled(true);
  if (total == 0) {
    note_->setText(
        "No crowd here: a scenario with `clients` (populations of clients) shows each client's "
        "goodput and figures here, from result.json's per_client (written with series).");
  } else if (total > rows) {
    note_->setText(QString("%1 clients; the table lists the first %2 (the chart draws them all).")
                       .arg(total)
                       .arg(rows));
  } else {
    note_->setText(QString("%1 clients. Click a header to sort.").arg(total));
  }
}

}  // namespace pacing::gui
