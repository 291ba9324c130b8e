#pragma once
// The charts of one or more runs, stacked over one shared time axis, with one legend: what the
// GUI shows and what `pacing-lab plot` renders. Keeps the runs' exact data and draws, for the time
// window shown, a reduction of it to the chart's width in pixels, so large runs stay responsive.

#include <QString>
#include <QWidget>
#include <QtCharts/QLineSeries>
#include <QtCharts/QScatterSeries>
#include <QtCharts/QValueAxis>
#include <array>
#include <limits>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "gui/chart_legend.hpp"
#include "gui/charts.hpp"
#include "gui/lines.hpp"
#include "gui/reduce.hpp"
#include "results/attempt_detail.hpp"
#include "results/run_data.hpp"

namespace pacing::gui {

class TimeChartView;

class ChartStack : public QWidget {
  Q_OBJECT
 public:
  explicit ChartStack(QWidget* parent = nullptr);
  ~ChartStack() override;

  /// Shows these runs (labelled; see label_runs), replacing what was shown, over their whole
  /// time, drawing the hosts and groups `choice` names.
  void set_runs(std::vector<RunData> runs, LineChoice choice = {});
  const std::vector<RunData>& runs() const { return runs_; }
  /// Which hosts and groups to draw.
  void set_choice(LineChoice choice);
  const std::vector<Line>& lines() const { return lines_; }

  /// Shows the time window [x0, x1] (seconds) on every chart.
  void set_time_window(double x0, double x1);
  double window_start() const { return x0_; }
  double window_end() const { return x1_; }
  /// How many host lines are drawn from their run's attempts in the current window (runs read
  /// from a results database, zoomed finer than their stored series: see finer_than_stored).
  std::size_t lines_from_attempts() const;
  /// The end of the longest run shown: the window reset_zoom() shows is [0, run_end()].
  double run_end() const { return end_; }
  void reset_zoom();

  /// The teaching cursor: a vertical line at instant `t` on every chart; NaN hides it.
  void set_cursor(double t);

  QChart* chart(ChartKind kind) const;
  ChartLegend* legend() const { return legend_; }
  /// The tooltip of the refusal marker at `point` of `series` (empty when none is there).
  QString marker_text(const QScatterSeries* series, const QPointF& point) const;

  /// Makes the plot areas of all charts start and end at the same x, so times line up.
  void align_plot_areas();

 signals:
  /// The time window changed (zoom, pan, reset or set_time_window).
  void window_changed(double x0, double x1);

 protected:
  void resizeEvent(QResizeEvent* event) override;

 private:
  struct ChartParts {
    TimeChartView* view = nullptr;
    QChart* chart = nullptr;
    QValueAxis* time = nullptr;
    QValueAxis* value = nullptr;
    QValueAxis* unit = nullptr;  ///< hidden 0..1 axis for pauses and the cursor
    QLineSeries* cursor = nullptr;
    bool integral = false;  ///< counts (whole ticks) rather than seconds
  };
  /// A drawn series and the exact steps it reduces.
  struct StepBinding {
    QLineSeries* series;
    const Steps* steps;  ///< as stored
    ChartParts* chart;   ///< the chart it is drawn in
    const Line* line;
    ChartKind kind;
    /// The window's steps from the run's attempts, when the stored series is coarser than the
    /// window (in-flight counts only); empty otherwise.
    std::optional<Steps> from_attempts;
    const Steps& drawn() const { return from_attempts ? *from_attempts : *steps; }
  };
  /// A drawn marker series and the refusals it stands for.
  struct MarkerBinding {
    QScatterSeries* series;
    const Line* line;
    std::vector<Marker> shown;
    /// The window's refusals and in-flight steps from the run's attempts (see StepBinding).
    std::optional<std::pair<std::vector<Refusal>, Steps>> from_attempts;
    const std::vector<Refusal>& refusals() const {
      return from_attempts ? from_attempts->first : line->entity->refusals;
    }
    const Steps& in_flight() const {
      return from_attempts ? from_attempts->second : line->entity->in_flight;
    }
  };

  void rebuild();
  void build_chart(ChartKind kind, ChartParts& parts);
  void add_pauses(ChartParts& parts, const Line& line);
  void add_refusals(ChartParts& parts, const Line& line);
  void update_legend();
  /// Re-reduces every series to the current window and width.
  void redraw();
  /// Reads the attempts behind the lines whose stored series are coarser than the window.
  void update_from_attempts();
  /// The attempts of `line`'s host when it should be drawn from them in the current window.
  std::shared_ptr<const HostAttempts> attempts_for(const Line& line) const;
  void place_cursor(ChartParts& parts);
  int plot_width() const;

  std::vector<RunData> runs_;
  LineChoice choice_;
  std::vector<Line> lines_;
  std::array<ChartParts, kChartKinds.size()> charts_;
  ChartLegend* legend_ = nullptr;
  std::vector<StepBinding> step_bindings_;
  std::vector<MarkerBinding> marker_bindings_;
  double x0_ = 0, x1_ = 1, end_ = 1;
  double cursor_ = std::numeric_limits<double>::quiet_NaN();
  bool setting_window_ = false;
};

}  // namespace pacing::gui
