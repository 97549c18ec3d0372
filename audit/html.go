package audit

import (
	"fmt"
	"html/template"
	"image"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/taskproof/taskproof/internal/printable"
	"github.com/taskproof/taskproof/predicate/specfmt"
)

// The HTML report puts its headline numbers, then its two charts at places of
// the page computed from the report (CSS pixels, from the page's top-left
// corner: ChartRects), so a screenshot of it can be checked: the bar chart of
// regression reasons per unit, as tall as its bars need, then the weekly
// trend of verdicts. The tables follow.

const (
	chartW = 1100
	trendH = 320
	// maxChartUnits is how many units the reasons chart draws; the others are
	// summed into one bar.
	maxChartUnits = 12
	headerH       = 72 // title and scope
	headlineH     = 88 // the headline numbers
	chartGap      = 24
	legendTop     = 34 // a chart's first legend row, below its title
	legendRowH    = 20
	reasonRowH    = 36 // one unit's bar and its gap
)

// ChartRects are where WriteHTML draws the reasons chart and the trend chart
// for rep.
func ChartRects(rep *Report) (reasons, trend image.Rectangle) {
	top := headerH + headlineH
	reasons = image.Rect(16, top, 16+chartW, top+reasonsHeight(rep))
	top = reasons.Max.Y + chartGap
	trend = image.Rect(16, top, 16+chartW, top+trendH)
	return reasons, trend
}

// reasonsHeight is the reasons chart's height: its title and legend rows,
// one row per unit drawn, and a margin; a short line for no statements.
func reasonsHeight(rep *Report) int {
	reasons := usedReasons(rep)
	if len(reasons) == 0 {
		return 72
	}
	units := min(len(rep.Regression.ByUnit), maxChartUnits)
	return legendTop + len(legendRows(reasonLabels(rep, reasons)))*legendRowH + 12 + units*reasonRowH + 12
}

// reasonColors are the bar colours of the reasons (allReasons order), verdictColors
// those of the verdicts (allVerdicts order); unknown verdicts are grey.
var (
	reasonColors = []string{"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
		"#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#7f7f7f"}
	verdictColors = []string{"#59a14f", "#f28e2b", "#4e79a7", "#b07aa1"}
)

const otherColor = "#bab0ac"

// reasonMeanings say what each regression reason means, for the report's
// legend of reason codes.
var reasonMeanings = map[string]string{
	"no_story":            "the task belongs to no user story, so no acceptance test covers it",
	"no_scenarios":        "the task's user story (story) states no acceptance scenario",
	"acceptance_off":      "acceptance tests are turned off in the project's configuration",
	"author_wrote_none":   "the test author returned no test file",
	"author_failed":       "the test author's answer could not be used (detail)",
	"already_passing":     "the acceptance tests passed before the change (implemented_by: the tick that made them pass)",
	"not_red":             "the red run did not fail on an assertion or an absent symbol (red_class: how it ended)",
	"tests_not_collected": "the acceptance command collected no test (the files it did not collect, and why)",
	"planning_work":       "a planning task (design documents), judged by the checks alone",
	"unrecorded":          "a regression_only tick that records no reason (written before reasons were recorded, or missing)",
}

type svgRect struct {
	X, Y, W, H float64
	Fill       string
	Title      string
}

type svgText struct {
	X, Y   float64
	Anchor string
	Size   int
	Text   string
}

type chart struct {
	ID, Label     string
	Width, Height int
	Rects         []svgRect
	Texts         []svgText
	Lines         []svgRect // axis lines as thin rects
}

type htmlData struct {
	Title      string
	Scope      string
	Rep        *Report
	Verdicts   []string
	Reasons    []string
	Legend     []legendEntry
	Regression []Row
	Reasons1   chart
	Trend      chart
	Pct        func(n, of int) string
	HeadTop    int
	ReasonsTop int
	TrendTop   int
	MainTop    int
}

// legendEntry is one row of the legend of reason codes.
type legendEntry struct {
	Reason, Meaning, Color string
	Count                  int
}

// WriteHTML writes the report as one self-contained HTML file: inline CSS, the
// headline numbers, an inline SVG bar chart of regression reasons per unit
// (stacked, one bar per unit) and an inline SVG chart of verdicts per ISO week
// of the tick commits' dates (stacked), at ChartRects, then the legend of
// reason codes and the tables. It loads nothing from the network and
// needs no JavaScript. All text is escaped by html/template.
func WriteHTML(w io.Writer, rep *Report) error {
	if rep == nil {
		return ErrReport
	}
	reasons, trend := ChartRects(rep)
	d := htmlData{
		Title: "taskproof audit", Scope: scopeLine(rep), Rep: rep, Verdicts: verdictOrder(rep),
		Reasons: usedReasons(rep), Pct: pct,
		HeadTop: headerH, ReasonsTop: reasons.Min.Y, TrendTop: trend.Min.Y, MainTop: trend.Max.Y + chartGap,
	}
	for _, r := range d.Reasons {
		d.Legend = append(d.Legend, legendEntry{Reason: r, Meaning: reasonMeanings[r], Color: reasonColor(r), Count: rep.Regression.ByReason[r]})
	}
	for _, r := range rep.Ticks {
		if r.Regression != nil {
			d.Regression = append(d.Regression, r)
		}
	}
	d.Reasons1 = reasonsChart(rep)
	d.Trend = trendChart(rep)
	return htmlTemplate.Execute(w, d)
}

func reasonColor(reason string) string {
	for i, r := range allReasons {
		if string(r) == reason {
			return reasonColors[i]
		}
	}
	return otherColor
}

func verdictColor(v string) string {
	for i, x := range allVerdicts {
		if string(x) == v {
			return verdictColors[i]
		}
	}
	return otherColor
}

// ellipsis shortens s to n runes keeping its end: a unit dir's last
// element is its name (openspec/changes/…, specs/…).
func ellipsis(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return "…" + string(r[len(r)-n+1:])
}

// reasonLabels are the legend labels of reasons: "reason (count)".
func reasonLabels(rep *Report, reasons []string) []string {
	out := make([]string, len(reasons))
	for i, r := range reasons {
		out[i] = fmt.Sprintf("%s (%d)", r, rep.Regression.ByReason[r])
	}
	return out
}

// legendRows splits legend labels into the rows they fill across a chart
// (a swatch, the label at about 7 pixels a character, a gap): each row's
// first label's index.
func legendRows(labels []string) []int {
	rows := []int{0}
	x := 8.0
	for i, l := range labels {
		w := 16 + float64(len([]rune(l)))*7 + 14
		if x+w > chartW-8 && x > 8 {
			rows = append(rows, i)
			x = 8
		}
		x += w
	}
	return rows
}

// legend draws labels with their colours in rows from y = legendTop.
func (c *chart) legend(labels, colors, titles []string) float64 {
	rows := legendRows(labels)
	row := 0
	x := 8.0
	for i, l := range labels {
		if row+1 < len(rows) && rows[row+1] == i {
			row, x = row+1, 8
		}
		y := float64(legendTop + row*legendRowH)
		c.Rects = append(c.Rects, svgRect{X: x, Y: y, W: 12, H: 12, Fill: colors[i], Title: titles[i]})
		c.Texts = append(c.Texts, svgText{X: x + 16, Y: y + 11, Size: 12, Text: l})
		x += 16 + float64(len([]rune(l)))*7 + 14
	}
	return float64(legendTop + len(rows)*legendRowH)
}

// reasonsChart lays out the stacked bars of reasons per unit: the units with the
// most regression_only statements first, at most maxChartUnits, the rest summed,
// in a chart as tall as its bars (reasonsHeight).
func reasonsChart(rep *Report) chart {
	h := reasonsHeight(rep)
	c := chart{ID: "reasons-chart", Label: "regression_only statements by reason and unit", Width: chartW, Height: h}
	c.Texts = append(c.Texts, svgText{X: 8, Y: 22, Size: 16, Text: c.Label})
	reasons := usedReasons(rep)
	if len(reasons) == 0 {
		c.Texts = append(c.Texts, svgText{X: 8, Y: 52, Size: 14, Text: "no regression_only statements"})
		return c
	}
	colors := make([]string, len(reasons))
	for i, r := range reasons {
		colors[i] = reasonColor(r)
	}
	top := c.legend(reasonLabels(rep, reasons), colors, reasons) + 12
	units := append([]UnitReasons(nil), rep.Regression.ByUnit...)
	sort.SliceStable(units, func(i, j int) bool { return units[i].Total > units[j].Total })
	if len(units) > maxChartUnits {
		other := UnitReasons{Unit: specfmt.Unit{Dir: fmt.Sprintf("%d other units", len(units)-maxChartUnits+1)}, Reasons: map[string]int{}}
		for _, u := range units[maxChartUnits-1:] {
			other.Total += u.Total
			for r, n := range u.Reasons {
				other.Reasons[r] += n
			}
		}
		units = append(units[:maxChartUnits-1], other)
	}
	maxTotal := 0
	for _, u := range units {
		maxTotal = max(maxTotal, u.Total)
	}
	const left, right = 280.0, 60.0
	plotW := chartW - left - right
	barH := reasonRowH * 0.7
	for i, u := range units {
		y := top + float64(i*reasonRowH)
		c.Texts = append(c.Texts, svgText{X: left - 8, Y: y + barH/2 + 4, Anchor: "end", Size: 12, Text: ellipsis(u.Unit.Dir, 38)})
		bx := left
		for _, r := range reasons {
			n := u.Reasons[r]
			if n == 0 {
				continue
			}
			bw := plotW * float64(n) / float64(maxTotal)
			c.Rects = append(c.Rects, svgRect{X: bx, Y: y, W: bw, H: barH, Fill: reasonColor(r), Title: fmt.Sprintf("%s: %s %d", u.Unit.Dir, r, n)})
			bx += bw
		}
		c.Texts = append(c.Texts, svgText{X: bx + 6, Y: y + barH/2 + 4, Size: 12, Text: fmt.Sprint(u.Total)})
	}
	c.Lines = append(c.Lines, svgRect{X: left - 1, Y: top - 4, W: 1, H: float64(len(units)*reasonRowH) + 4, Fill: "#888"})
	return c
}

// trendChart lays out the stacked bars of verdicts per ISO week.
func trendChart(rep *Report) chart {
	c := chart{ID: "trend-chart", Label: "statements per ISO week of the tick commit's date, by verdict", Width: chartW, Height: trendH}
	c.Texts = append(c.Texts, svgText{X: 8, Y: 22, Size: 16, Text: c.Label})
	const left, top, right, bottom = 56.0, 64.0, 16.0, 40.0
	plotW, plotH := chartW-left-right, trendH-top-bottom
	c.Lines = append(c.Lines, svgRect{X: left, Y: top + plotH, W: plotW, H: 1, Fill: "#888"}, svgRect{X: left - 1, Y: top, W: 1, H: plotH, Fill: "#888"})
	if len(rep.Weeks) == 0 {
		c.Texts = append(c.Texts, svgText{X: chartW / 2, Y: trendH / 2, Anchor: "middle", Size: 14, Text: "no statements"})
		return c
	}
	order := verdictOrder(rep)
	var labels, colors, titles []string
	for _, v := range order {
		if rep.Verdicts[v] > 0 {
			labels, colors, titles = append(labels, fmt.Sprintf("%s (%d)", v, rep.Verdicts[v])), append(colors, verdictColor(v)), append(titles, v)
		}
	}
	c.legend(labels, colors, titles)
	maxTotal := 0
	for _, w := range rep.Weeks {
		if w.Total > maxTotal {
			maxTotal = w.Total
		}
	}
	c.Texts = append(c.Texts, svgText{X: left - 6, Y: top + 4, Anchor: "end", Size: 11, Text: fmt.Sprint(maxTotal)},
		svgText{X: left - 6, Y: top + plotH, Anchor: "end", Size: 11, Text: "0"})
	weeks := weekAxis(rep.Weeks)
	slot := plotW / float64(len(weeks))
	barW := min(max(slot*0.8, 1), 64) // a few weeks make bars, not slabs
	labelEvery := 1 + int(70/slot)
	for i, w := range weeks {
		bx := left + float64(i)*slot + (slot-barW)/2
		y := top + plotH
		for _, v := range order {
			n := w.Verdicts[v]
			if n == 0 {
				continue
			}
			h := plotH * float64(n) / float64(maxTotal)
			y -= h
			c.Rects = append(c.Rects, svgRect{X: bx, Y: y, W: barW, H: h, Fill: verdictColor(v), Title: fmt.Sprintf("%s: %s %d", w.Week, v, n)})
		}
		if i%labelEvery == 0 {
			c.Texts = append(c.Texts, svgText{X: bx + barW/2, Y: top + plotH + 16, Anchor: "middle", Size: 11, Text: w.Week})
		}
	}
	return c
}

// maxAxisWeeks bounds the weeks weekAxis spreads the trend over.
const maxAxisWeeks = 260

// weekAxis is the trend's weeks on a time axis: every ISO week from the first
// to the last, empty ones included, so that a quiet month shows as one; the
// weeks as they are when they span more than maxAxisWeeks (dates far apart),
// and with the "unknown" week last.
func weekAxis(weeks []Week) []Week {
	var known []Week
	var unknown *Week
	for i := range weeks {
		if weeks[i].Week == weekUnknown {
			unknown = &weeks[i]
			continue
		}
		known = append(known, weeks[i])
	}
	out := known
	if len(known) > 1 {
		first, err1 := weekStart(known[0].Week)
		last, err2 := weekStart(known[len(known)-1].Week)
		if err1 == nil && err2 == nil && last.Sub(first) <= maxAxisWeeks*7*24*time.Hour {
			out = nil
			i := 0
			for t := first; !t.After(last); t = t.AddDate(0, 0, 7) {
				if k := isoWeek(t); i < len(known) && known[i].Week == k {
					out = append(out, known[i])
					i++
				} else {
					out = append(out, Week{Week: k, Verdicts: map[string]int{}})
				}
			}
			if i != len(known) {
				out = known // weeks out of order: drawn as they are
			}
		}
	}
	if unknown != nil {
		out = append(out, *unknown)
	}
	return out
}

// weekStart is the Monday of ISO week w ("2026-W03").
func weekStart(w string) (time.Time, error) {
	var y, n int
	if _, err := fmt.Sscanf(w, "%04d-W%02d", &y, &n); err != nil {
		return time.Time{}, err
	}
	// January 4th is in week 1.
	jan4 := time.Date(y, 1, 4, 0, 0, 0, 0, time.UTC)
	monday := jan4.AddDate(0, 0, -((int(jan4.Weekday()) + 6) % 7))
	return monday.AddDate(0, 0, 7*(n-1)), nil
}

// day is the date of an RFC 3339 time, or the text as it is.
func day(s string) string {
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t.UTC().Format("2006-01-02")
	}
	return s
}

func f1(v float64) string { return strings.TrimSuffix(fmt.Sprintf("%.1f", v), ".0") }

var htmlTemplate = template.Must(template.New("audit").Funcs(template.FuncMap{
	"f1":      f1,
	"short":   printable.Short,
	"details": func(r *Reason) string { return r.Details() },
	"count":   func(m map[string]int, k string) int { return m[k] },
	"sub":     func(a, b, c int) int { return a - b - c },
	"day":     day,
}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>{{.Title}}</title>
<style>
body{margin:0;font:14px/1.4 system-ui,-apple-system,"Segoe UI",sans-serif;color:#222;background:#fff}
header{position:absolute;left:16px;top:0;right:16px;height:72px;overflow:hidden}
h1{font-size:20px;margin:12px 0 4px}
.scope{color:#555;margin:0;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
svg.chart{position:absolute;left:16px;display:block;background:#fff}
main{position:absolute;left:16px;right:16px}
.wide{overflow-x:auto}
table{border-collapse:collapse;margin:8px 0 24px}
th,td{border:1px solid #ccc;padding:3px 8px;text-align:left;vertical-align:top}
td.n,th.n{text-align:right}
td.d{white-space:nowrap}
h2{font-size:16px;margin:16px 0 4px}
.gate-failed{color:#b00020;font-weight:bold}
.gate-passed{color:#1b5e20;font-weight:bold}
.headline{position:absolute;left:16px;right:16px;display:flex;gap:12px;overflow:hidden}
.num{border:1px solid #ddd;border-radius:6px;padding:6px 14px;min-width:120px}
.num b{display:block;font-size:26px;line-height:1.2}
.num span{color:#555;font-size:12px;white-space:nowrap}
.num.gate{min-width:0;flex:1;overflow:hidden}
.num.gate p{margin:4px 0 0;font-size:13px;overflow:hidden;text-overflow:ellipsis;display:-webkit-box;-webkit-line-clamp:2;-webkit-box-orient:vertical}
.swatch{display:inline-block;width:12px;height:12px;vertical-align:-1px;margin-right:6px}
</style>
</head>
<body>
<header>
<h1>{{.Title}}</h1>
<p class="scope">{{.Scope}}</p>
</header>
<section class="headline" style="top:{{.HeadTop}}px;height:{{sub .ReasonsTop .HeadTop 12}}px" aria-label="headline numbers">
{{with .Rep.Totals}}<div class="num"><b>{{.Ticks}}</b><span>ticks</span></div>
<div class="num"><b>{{.Evidenced}}</b><span>evidenced ({{call $.Pct .Evidenced .Ticks}})</span></div>
<div class="num"><b>{{.WithoutEvidence}}</b><span>without evidence</span></div>
<div class="num"><b>{{.Statements}}</b><span>statements</span></div>
<div class="num"><b>{{.RegressionOnly}}</b><span>regression_only ({{call $.Pct .RegressionOnly .Statements}})</span></div>{{end}}
{{with .Rep.Gate}}<div class="num gate"><b class="{{if .Failed}}gate-failed{{else}}gate-passed{{end}}">Gate {{if .Failed}}failed{{else}}passed{{end}}</b><p>{{.Message}}</p></div>{{end}}
</section>
{{with .Reasons1}}<svg class="chart" id="{{.ID}}" style="top:{{$.ReasonsTop}}px" width="{{.Width}}" height="{{.Height}}" viewBox="0 0 {{.Width}} {{.Height}}" xmlns="http://www.w3.org/2000/svg" role="img" aria-label="{{.Label}}">
{{range .Lines}}<rect x="{{f1 .X}}" y="{{f1 .Y}}" width="{{f1 .W}}" height="{{f1 .H}}" fill="{{.Fill}}"/>
{{end}}{{range .Rects}}<rect x="{{f1 .X}}" y="{{f1 .Y}}" width="{{f1 .W}}" height="{{f1 .H}}" fill="{{.Fill}}"><title>{{.Title}}</title></rect>
{{end}}{{range .Texts}}<text x="{{f1 .X}}" y="{{f1 .Y}}" font-size="{{.Size}}"{{if .Anchor}} text-anchor="{{.Anchor}}"{{end}}>{{.Text}}</text>
{{end}}</svg>{{end}}
{{with .Trend}}<svg class="chart" id="{{.ID}}" style="top:{{$.TrendTop}}px" width="{{.Width}}" height="{{.Height}}" viewBox="0 0 {{.Width}} {{.Height}}" xmlns="http://www.w3.org/2000/svg" role="img" aria-label="{{.Label}}">
{{range .Lines}}<rect x="{{f1 .X}}" y="{{f1 .Y}}" width="{{f1 .W}}" height="{{f1 .H}}" fill="{{.Fill}}"/>
{{end}}{{range .Rects}}<rect x="{{f1 .X}}" y="{{f1 .Y}}" width="{{f1 .W}}" height="{{f1 .H}}" fill="{{.Fill}}"><title>{{.Title}}</title></rect>
{{end}}{{range .Texts}}<text x="{{f1 .X}}" y="{{f1 .Y}}" font-size="{{.Size}}"{{if .Anchor}} text-anchor="{{.Anchor}}"{{end}}>{{.Text}}</text>
{{end}}</svg>{{end}}
<main style="top:{{.MainTop}}px">
{{if .Legend}}<h2>Reason codes</h2>
<table><tr><th>reason</th><th class="n">statements</th><th>meaning</th></tr>
{{range .Legend}}<tr><td><span class="swatch" style="background:{{.Color}}"></span><code>{{.Reason}}</code></td><td class="n">{{.Count}}</td><td>{{.Meaning}}</td></tr>
{{end}}</table>{{end}}
<h2>Verdicts</h2>
<table><tr><th>verdict</th><th class="n">statements</th><th class="n">share</th></tr>
{{range .Verdicts}}<tr><td>{{.}}</td><td class="n">{{count $.Rep.Verdicts .}}</td><td class="n">{{call $.Pct (count $.Rep.Verdicts .) $.Rep.Totals.Statements}}</td></tr>
{{end}}</table>
{{if .Reasons}}<h2>regression_only by reason and unit</h2>
<div class="wide"><table><tr><th>unit</th>{{range .Reasons}}<th class="n">{{.}}</th>{{end}}<th class="n">total</th></tr>
{{range .Rep.Regression.ByUnit}}{{$u := .}}<tr><td>{{.Unit.Dir}}</td>{{range $.Reasons}}<td class="n">{{count $u.Reasons .}}</td>{{end}}<td class="n">{{.Total}}</td></tr>
{{end}}<tr><th>total</th>{{range .Reasons}}<th class="n">{{count $.Rep.Regression.ByReason .}}</th>{{end}}<th class="n">{{.Rep.Totals.RegressionOnly}}</th></tr></table></div>
<h2>regression_only ticks</h2>
<div class="wide"><table><tr><th>committed</th><th>recorded</th><th>commit</th><th>unit</th><th>task</th><th>title</th><th>reason</th><th>signature</th><th>details</th></tr>
{{range .Regression}}<tr><td class="d">{{day .CommitTime}}</td><td class="d">{{day .Time}}</td><td><code>{{short (printf "%s" .Commit)}}</code></td><td>{{.Unit.Dir}}</td><td>{{.TaskLabel}}</td><td>{{.Title}}</td><td>{{.Regression.Reason}}</td><td>{{.Signature.Status}}</td><td>{{details .Regression}}</td></tr>
{{end}}</table></div>{{end}}
{{if .Rep.Weeks}}<h2>Trend per ISO week of the tick commit's date</h2>
<table><tr><th>week</th>{{range .Verdicts}}<th class="n">{{.}}</th>{{end}}<th class="n">total</th></tr>
{{range .Rep.Weeks}}{{$w := .}}<tr><td>{{.Week}}</td>{{range $.Verdicts}}<td class="n">{{count $w.Verdicts .}}</td>{{end}}<td class="n">{{.Total}}</td></tr>
{{end}}</table>{{end}}
{{if .Rep.WithoutEvidence}}<h2>Ticks without evidence ({{len .Rep.WithoutEvidence}})</h2>
<table><tr><th>commit</th><th>unit</th><th>task</th><th>file</th><th>why</th></tr>
{{range .Rep.WithoutEvidence}}<tr><td><code>{{short (printf "%s" .Commit)}}</code></td><td>{{.Unit.Dir}}</td><td>{{.TaskID}}</td><td>{{.Path}}:{{.Line}}</td><td>{{.Why}}</td></tr>
{{end}}</table>{{end}}
{{if .Rep.Problems}}<h2>Problems ({{len .Rep.Problems}})</h2>
<table><tr><th>commit</th><th class="n">note line</th><th>message</th></tr>
{{range .Rep.Problems}}<tr><td><code>{{short (printf "%s" .Commit)}}</code></td><td class="n">{{.NoteLine}}</td><td>{{.Message}}</td></tr>
{{end}}</table>{{end}}
</main>
</body>
</html>
`))
