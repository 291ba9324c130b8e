#include "gui/app/teach_panel.hpp"

#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSlider>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "gui/chart_stack.hpp"

namespace pacing::gui {

namespace {
constexpr int kSliderSteps = 10000;

QString number(double v) { return QString::number(v, 'g', 6); }
}  // namespace

TeachPanel::TeachPanel(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  title_ = new QLabel("Run a scenario or open a result, then pick an instant.", this);
  layout->addWidget(title_);
  auto* controls = new QHBoxLayout;
  auto* back = new QPushButton("◀ previous change", this);
  auto* forward = new QPushButton("next change ▶", this);
  back->setToolTip("Go back to the previous instant at which anything changed");
  forward->setToolTip("Go to the next instant at which anything changes");
  slider_ = new QSlider(Qt::Horizontal, this);
  slider_->setRange(0, kSliderSteps);
  time_box_ = new QDoubleSpinBox(this);
  time_box_->setDecimals(3);
  time_box_->setSuffix(" s");
  time_box_->setRange(0, 1);
  controls->addWidget(back);
  controls->addWidget(slider_, 1);
  controls->addWidget(forward);
  controls->addWidget(new QLabel("at", this));
  controls->addWidget(time_box_);
  layout->addLayout(controls);

  auto* split = new QSplitter(Qt::Horizontal, this);
  auto* left = new QWidget(split);
  auto* left_layout = new QVBoxLayout(left);
  left_layout->setContentsMargins(0, 0, 0, 0);
  table_ = new QTableWidget(0, 7, left);
  table_->setHorizontalHeaderLabels(
      {"kind", "key", "in flight", "waiting", "cap", "learned interval", "paused until"});
  table_->verticalHeader()->hide();
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  left_layout->addWidget(table_, 1);
  left_layout->addWidget(new QLabel("Why the next request waits:", left));
  explanation_ = new QPlainTextEdit(left);
  explanation_->setReadOnly(true);
  left_layout->addWidget(explanation_, 1);
  charts_ = new ChartStack(split);
  split->addWidget(left);
  split->addWidget(charts_);
  split->setStretchFactor(0, 2);
  split->setStretchFactor(1, 3);
  layout->addWidget(split, 1);

  connect(slider_, &QSlider::valueChanged, this,
          [this](int position) { set_time(slider_to_time(position)); });
  connect(time_box_, &QDoubleSpinBox::valueChanged, this, [this](double t) {
    if (std::abs(t - time_) > 5e-4) set_time(t);  // the box rounds to milliseconds
  });
  connect(back, &QPushButton::clicked, this, &TeachPanel::step_back);
  connect(forward, &QPushButton::clicked, this, &TeachPanel::step_forward);
}

double TeachPanel::slider_to_time(int position) const { return end_ * position / kSliderSteps; }

void TeachPanel::set_run(const RunData& run) {
  run_ = run;
  instants_ = change_instants(run_);
  end_ = std::max(run_.end_time(), 1e-3);
  title_->setText(QString("Teaching %1 (%2, %3): %4 hosts, %5 groups, %6 queues")
                      .arg(QString::fromStdString(run_.label),
                           QString::fromStdString(run_.scenario),
                           QString::fromStdString(run_.strategy))
                      .arg(run_.hosts.size())
                      .arg(run_.groups.size())
                      .arg(run_.queues.size()));
  time_box_->setRange(0, end_);
  charts_->set_runs({run_});
  time_ = -1;  // so set_time(0) refreshes
  set_time(0);
}

void TeachPanel::set_time(double t) {
  t = std::clamp(t, 0.0, end_);
  time_ = t;
  const QSignalBlocker quiet_slider(slider_);
  const QSignalBlocker quiet_box(time_box_);
  slider_->setValue(static_cast<int>(std::lround(t / end_ * kSliderSteps)));
  time_box_->setValue(t);
  const Moment moment = moment_at(run_, t);
  fill_table(moment);
  explanation_->setPlainText(QString::fromStdString(explain(moment)));
  charts_->set_cursor(t);
}

void TeachPanel::step_forward() {
  auto it = std::upper_bound(instants_.begin(), instants_.end(), time_ + 1e-9);
  if (it != instants_.end()) set_time(*it);
}

void TeachPanel::step_back() {
  auto it = std::lower_bound(instants_.begin(), instants_.end(), time_ - 1e-9);
  if (it != instants_.begin()) set_time(*std::prev(it));
}

QString TeachPanel::explanation() const { return explanation_->toPlainText(); }

void TeachPanel::fill_table(const Moment& moment) {
  table_->setRowCount(0);
  auto add_row = [&](const QStringList& cells) {
    const int row = table_->rowCount();
    table_->insertRow(row);
    for (int c = 0; c < cells.size(); ++c) table_->setItem(row, c, new QTableWidgetItem(cells[c]));
  };
  auto pause = [&](double until) {
    return until > moment.t ? QString::fromStdString(format_seconds(until)) : QString("-");
  };
  for (const auto* list : {&moment.hosts, &moment.groups}) {
    for (const EntityMoment& e : *list) {
      add_row({e.group ? "group" : "host", QString::fromStdString(e.key), number(e.in_flight),
               number(e.queued), "", QString::fromStdString(format_seconds(e.interval)),
               pause(e.paused_until)});
    }
  }
  for (const QueueMoment& q : moment.queues) {
    add_row({"queue", QString::fromStdString(q.key), number(q.in_flight), number(q.queued),
             q.host.cap ? QString::number(*q.host.cap) : QString("none"),
             q.host.rate_interval > 0
                 ? "rate " + QString::fromStdString(format_seconds(q.host.rate_interval))
                 : QString(),
             ""});
  }
}

}  // namespace pacing::gui
