#include "gui/leaderboard_chart.hpp"

#include <QColor>
#include <QFont>
#include <QFontMetrics>
#include <QPainter>
#include <algorithm>
#include <cmath>

namespace pacing::gui {

namespace {

constexpr int kLabelWidth = 230;
constexpr int kCellWidth = 130;
constexpr int kCellHeight = 22;
constexpr int kTop = 78;  // title, legend and column headers

}  // namespace

unsigned refusal_colour(double refusals_per_1000) {
  // 0 -> white; 1000 and more -> dark red; log10(1 + r) / 3 of the way between.
  const double t = std::clamp(std::log10(1 + std::max(0.0, refusals_per_1000)) / 3.0, 0.0, 1.0);
  const auto mix = [t](int from, int to) {
    return static_cast<int>(std::lround(from + (to - from) * t));
  };
  return QColor(mix(255, 165), mix(255, 15), mix(255, 21)).rgb();
}

QImage paint_leaderboard(const LeaderboardMap& map) {
  const int columns = static_cast<int>(map.strategies.size());
  const int rows = static_cast<int>(map.scenarios.size());
  QImage image(kLabelWidth + columns * kCellWidth + 10, kTop + rows * kCellHeight + 10,
               QImage::Format_RGB32);
  image.fill(Qt::white);
  QPainter p(&image);
  p.setRenderHint(QPainter::Antialiasing);
  QFont font = p.font();
  font.setPointSizeF(8.5);
  p.setFont(font);
  QFont bold = font;
  bold.setBold(true);

  p.setFont(bold);
  p.drawText(QRect(8, 4, image.width() - 16, 20), Qt::AlignLeft | Qt::AlignVCenter,
             "Leaderboard: every strategy on every scenario");
  p.setFont(font);
  p.drawText(QRect(8, 24, image.width() - 16, 20), Qt::AlignLeft | Qt::AlignVCenter,
             "colour: refusals per 1,000 requests (white none, dark red 1,000 and more); text: "
             "makespan over the best; % succeeded (2xx) when below 100 %");
  p.setFont(bold);
  for (int c = 0; c < columns; ++c) {
    p.drawText(QRect(kLabelWidth + c * kCellWidth, kTop - 26, kCellWidth, 22), Qt::AlignCenter,
               QString::fromStdString(map.strategies[static_cast<std::size_t>(c)]));
  }
  p.setFont(font);
  for (int r = 0; r < rows; ++r) {
    const auto row = static_cast<std::size_t>(r);
    const int y = kTop + r * kCellHeight;
    p.setPen(Qt::black);
    p.drawText(QRect(8, y, kLabelWidth - 14, kCellHeight), Qt::AlignRight | Qt::AlignVCenter,
               QString::fromStdString(map.scenarios[row]));
    for (int c = 0; c < columns; ++c) {
      const auto col = static_cast<std::size_t>(c);
      const QRect cell(kLabelWidth + c * kCellWidth, y, kCellWidth - 2, kCellHeight - 2);
      const double refusals = map.refusals_per_1000[row][col];
      const QColor fill = QColor::fromRgb(refusal_colour(refusals));
      p.fillRect(cell, fill);
      QString text = QString("×%1").arg(map.makespan_ratio[row][col], 0, 'f', 2);
      const double share = map.succeeded_share[row][col];
      if (share < 0.9995) text += QString("  %1 %").arg(100 * share, 0, 'f', 0);
      p.setPen(fill.lightnessF() < 0.55 ? Qt::white : Qt::black);
      p.drawText(cell, Qt::AlignCenter, text);
    }
  }
  return image;
}

}  // namespace pacing::gui
