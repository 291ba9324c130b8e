#include "gui/app/summary_table.hpp"

#include <QHeaderView>
#include <algorithm>
#include <functional>
#include <optional>

#include "gui/explain.hpp"

namespace pacing::gui {

namespace {

struct Column {
  const char* header;
  std::function<double(const Summary&)> value;
  bool seconds;
  bool less_is_better;
};

const std::vector<Column>& numeric_columns() {
  static const std::vector<Column> columns{
      {"requests", [](const Summary& s) { return s.requests; }, false, false},
      {"completed", [](const Summary& s) { return s.completed; }, false, false},
      {"gave up", [](const Summary& s) { return s.gave_up; }, false, true},
      {"failed", [](const Summary& s) { return s.failed; }, false, true},
      {"refusals", [](const Summary& s) { return s.refusals; }, false, true},
      {"retries", [](const Summary& s) { return s.retries; }, false, true},
      {"makespan", [](const Summary& s) { return s.makespan; }, true, true},
      {"p50 latency", [](const Summary& s) { return s.p50; }, true, true},
      {"p95 latency", [](const Summary& s) { return s.p95; }, true, true},
      {"p99 latency", [](const Summary& s) { return s.p99; }, true, true},
  };
  return columns;
}

}  // namespace

SummaryTable::SummaryTable(QWidget* parent) : QTableWidget(parent) {
  setColumnCount(static_cast<int>(headers().size()));
  setHorizontalHeaderLabels(headers());
  setEditTriggers(QAbstractItemView::NoEditTriggers);
  verticalHeader()->hide();
  horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  setAlternatingRowColors(true);
}

QStringList SummaryTable::headers() {
  QStringList out{"run", "scenario", "strategy", "seed"};
  for (const Column& c : numeric_columns()) out << c.header;
  return out;
}

void SummaryTable::set_runs(const std::vector<RunData>& runs) {
  setRowCount(static_cast<int>(runs.size()));
  for (int row = 0; row < rowCount(); ++row) {
    const RunData& run = runs[static_cast<std::size_t>(row)];
    setItem(row, 0, new QTableWidgetItem(QString::fromStdString(run.label)));
    setItem(row, 1, new QTableWidgetItem(QString::fromStdString(run.scenario)));
    setItem(row, 2, new QTableWidgetItem(QString::fromStdString(run.strategy)));
    setItem(row, 3, new QTableWidgetItem(QString::number(run.seed)));
  }
  // Times compare only among the runs that completed the most: a run that gave up at once is
  // fast, not better.
  double most_completed = 0;
  for (const RunData& run : runs) most_completed = std::max(most_completed, run.summary.completed);
  const auto& columns = numeric_columns();
  for (std::size_t c = 0; c < columns.size(); ++c) {
    const int column = static_cast<int>(c) + 4;
    auto competes = [&](const RunData& run) {
      return !columns[c].seconds || run.summary.completed == most_completed;
    };
    std::optional<double> best;
    for (const RunData& run : runs) {
      if (!competes(run)) continue;
      const double v = columns[c].value(run.summary);
      best = best ? std::min(*best, v) : v;
    }
    for (std::size_t r = 0; r < runs.size(); ++r) {
      const double v = columns[c].value(runs[r].summary);
      const QString text = columns[c].seconds ? QString::fromStdString(format_seconds(v))
                                              : QString::number(v, 'f', 0);
      auto* item = new QTableWidgetItem(text);
      item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
      if (runs.size() > 1 && columns[c].less_is_better && competes(runs[r]) && v == best) {
        QFont font = item->font();
        font.setBold(true);
        item->setFont(font);
      }
      setItem(static_cast<int>(r), column, item);
    }
  }
}

}  // namespace pacing::gui
