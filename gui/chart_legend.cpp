#include "gui/chart_legend.hpp"

#include <QGridLayout>
#include <QLabel>
#include <QPainter>
#include <QPixmap>
#include <QPolygonF>
#include <QVBoxLayout>
#include <algorithm>

namespace pacing::gui {

namespace {

QPixmap swatch(const LegendEntry& entry) {
  QPixmap pixmap(28, 14);
  pixmap.fill(Qt::transparent);
  QPainter painter(&pixmap);
  painter.setRenderHint(QPainter::Antialiasing);
  QColor color = entry.pen.color();
  switch (entry.swatch) {
    case LegendEntry::Swatch::line: {
      QPen pen = entry.pen;
      pen.setWidthF(2.2);
      painter.setPen(pen);
      painter.drawLine(QPointF(1, 7), QPointF(27, 7));
      break;
    }
    case LegendEntry::Swatch::marker: {
      painter.setPen(QPen(color.darker(160), 1));
      painter.setBrush(color);
      painter.drawPolygon(QPolygonF({QPointF(14, 1), QPointF(21, 13), QPointF(7, 13)}));
      break;
    }
    case LegendEntry::Swatch::area: {
      color.setAlpha(70);
      painter.setPen(Qt::NoPen);
      painter.setBrush(color);
      painter.drawRect(QRectF(2, 1, 24, 12));
      break;
    }
  }
  return pixmap;
}

}  // namespace

ChartLegend::ChartLegend(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(8, 4, 8, 4);
  layout->setSpacing(2);
  auto* grid_holder = new QWidget(this);
  grid_ = new QGridLayout(grid_holder);
  grid_->setContentsMargins(0, 0, 0, 0);
  grid_->setHorizontalSpacing(6);
  grid_->setVerticalSpacing(2);
  layout->addWidget(grid_holder);
  notes_ = new QLabel(this);
  notes_->setWordWrap(true);
  notes_->setTextFormat(Qt::PlainText);
  layout->addWidget(notes_);
  setAutoFillBackground(true);
  QPalette p = palette();
  p.setColor(QPalette::Window, Qt::white);
  setPalette(p);
}

void ChartLegend::set_entries(const std::vector<LegendEntry>& entries, const QStringList& notes,
                              int columns) {
  while (QLayoutItem* item = grid_->takeAt(0)) {
    delete item->widget();
    delete item;
  }
  texts_.clear();
  columns = std::max(columns, 1);
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const int row = static_cast<int>(i) / columns;
    const int column = static_cast<int>(i) % columns;
    auto* icon = new QLabel;
    icon->setPixmap(swatch(entries[i]));
    auto* text = new QLabel(entries[i].text);
    text->setTextFormat(Qt::PlainText);
    text->setContentsMargins(0, 0, 16, 0);  // room before the next entry's swatch
    grid_->addWidget(icon, row, 2 * column);
    grid_->addWidget(text, row, 2 * column + 1);
    texts_ << entries[i].text;
  }
  // Entries keep together on the left; the spare width goes to the column after the last.
  const int last = std::max(2 * columns, grid_->columnCount());  // stretching adds columns
  for (int c = 0; c <= last; ++c) {
    grid_->setColumnStretch(c, c == 2 * columns ? 1 : 0);
  }
  notes_->setText(notes.join('\n'));
  notes_->setVisible(!notes.isEmpty());
  texts_ << notes;
}

QStringList ChartLegend::texts() const { return texts_; }

}  // namespace pacing::gui
