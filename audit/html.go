package audit

import (
	"fmt"
	"html/template"
	"image"
	"io"
	"sort"
	"strings"

	"github.com/taskproof/taskproof/predicate/specfmt"
)

// The HTML report draws its two charts at fixed places of the page (CSS pixels,
// from the page's top-left corner), so a screenshot of it can be checked: the bar
// chart of regression reasons per unit, then the weekly trend of verdicts.
var (
	ReasonsChartRect = image.Rect(16, 80, 16+chartW, 80+reasonsH)
	TrendChartRect   = image.Rect(16, 80+reasonsH+24, 16+chartW, 80+reasonsH+24+trendH)
)

const (
	chartW   = 1100
	reasonsH = 420
	trendH   = 320
	// maxChartUnits is how many units the reasons chart draws; the others are
	// summed into one bar.
	maxChartUnits = 12
)

// ReasonColors are the bar colours of the reasons (Reasons order), VerdictColors
// those of the verdicts (Verdicts order); unknown verdicts are grey.
var (
	ReasonColors = []string{"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
		"#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#7f7f7f"}
	VerdictColors = []string{"#59a14f", "#f28e2b", "#4e79a7", "#b07aa1"}
)

const otherColor = "#bab0ac"

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
	Regression []Row
	Reasons1   chart
	Trend      chart
	Pct        func(n, of int) string
	ReasonsTop int
	TrendTop   int
	MainTop    int
}

// WriteHTML writes the report as one self-contained HTML file: inline CSS, an
// inline SVG bar chart of regression reasons per unit (stacked, one bar per unit,
// at ReasonsChartRect) and an inline SVG chart of verdicts per ISO week (stacked,
// at TrendChartRect), then the tables. It loads nothing from the network and
// needs no JavaScript. All text is escaped by html/template.
func WriteHTML(w io.Writer, rep *Report) error {
	if rep == nil {
		return ErrReport
	}
	d := htmlData{
		Title: "taskproof audit", Scope: scopeLine(rep), Rep: rep, Verdicts: verdictOrder(rep),
		Reasons: usedReasons(rep), Pct: pct,
		ReasonsTop: ReasonsChartRect.Min.Y, TrendTop: TrendChartRect.Min.Y, MainTop: TrendChartRect.Max.Y + 24,
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
	for i, r := range Reasons {
		if string(r) == reason {
			return ReasonColors[i]
		}
	}
	return otherColor
}

func verdictColor(v string) string {
	for i, x := range Verdicts {
		if string(x) == v {
			return VerdictColors[i]
		}
	}
	return otherColor
}

func ellipsis(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// reasonsChart lays out the stacked bars of reasons per unit: the units with the
// most regression_only statements first, at most maxChartUnits, the rest summed.
func reasonsChart(rep *Report) chart {
	c := chart{ID: "reasons-chart", Label: "regression_only statements by reason and unit", Width: chartW, Height: reasonsH}
	c.Texts = append(c.Texts, svgText{X: 8, Y: 22, Size: 16, Text: c.Label})
	reasons := usedReasons(rep)
	if len(reasons) == 0 {
		c.Texts = append(c.Texts, svgText{X: chartW / 2, Y: reasonsH / 2, Anchor: "middle", Size: 14, Text: "no regression_only statements"})
		c.Lines = append(c.Lines, svgRect{X: 0, Y: reasonsH - 1, W: chartW, H: 1, Fill: "#888"})
		return c
	}
	// Legend.
	x := 8.0
	for _, r := range reasons {
		c.Rects = append(c.Rects, svgRect{X: x, Y: 34, W: 12, H: 12, Fill: reasonColor(r), Title: r})
		label := fmt.Sprintf("%s (%d)", r, rep.Regression.ByReason[r])
		c.Texts = append(c.Texts, svgText{X: x + 16, Y: 45, Size: 12, Text: label})
		x += 16 + float64(len(label))*7 + 14
		if x > chartW-160 {
			break
		}
	}
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
		if u.Total > maxTotal {
			maxTotal = u.Total
		}
	}
	const left, top, right, bottom = 280.0, 64.0, 60.0, 12.0
	plotW := chartW - left - right
	rowH := (reasonsH - top - bottom) / float64(len(units))
	if rowH > 40 {
		rowH = 40
	}
	barH := rowH * 0.7
	for i, u := range units {
		y := top + float64(i)*rowH
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
	c.Lines = append(c.Lines, svgRect{X: left - 1, Y: top - 4, W: 1, H: float64(len(units))*rowH + 4, Fill: "#888"})
	return c
}

// trendChart lays out the stacked bars of verdicts per ISO week.
func trendChart(rep *Report) chart {
	c := chart{ID: "trend-chart", Label: "statements per ISO week, by verdict", Width: chartW, Height: trendH}
	c.Texts = append(c.Texts, svgText{X: 8, Y: 22, Size: 16, Text: c.Label})
	const left, top, right, bottom = 56.0, 64.0, 16.0, 40.0
	plotW, plotH := chartW-left-right, trendH-top-bottom
	c.Lines = append(c.Lines, svgRect{X: left, Y: top + plotH, W: plotW, H: 1, Fill: "#888"}, svgRect{X: left - 1, Y: top, W: 1, H: plotH, Fill: "#888"})
	if len(rep.Weeks) == 0 {
		c.Texts = append(c.Texts, svgText{X: chartW / 2, Y: trendH / 2, Anchor: "middle", Size: 14, Text: "no statements"})
		return c
	}
	order := verdictOrder(rep)
	x := 8.0
	for _, v := range order {
		if rep.Verdicts[v] == 0 {
			continue
		}
		c.Rects = append(c.Rects, svgRect{X: x, Y: 34, W: 12, H: 12, Fill: verdictColor(v), Title: v})
		label := fmt.Sprintf("%s (%d)", v, rep.Verdicts[v])
		c.Texts = append(c.Texts, svgText{X: x + 16, Y: 45, Size: 12, Text: label})
		x += 16 + float64(len(label))*7 + 14
		if x > chartW-160 {
			break
		}
	}
	maxTotal := 0
	for _, w := range rep.Weeks {
		if w.Total > maxTotal {
			maxTotal = w.Total
		}
	}
	c.Texts = append(c.Texts, svgText{X: left - 6, Y: top + 4, Anchor: "end", Size: 11, Text: fmt.Sprint(maxTotal)},
		svgText{X: left - 6, Y: top + plotH, Anchor: "end", Size: 11, Text: "0"})
	slot := plotW / float64(len(rep.Weeks))
	barW := slot * 0.8
	if barW < 1 {
		barW = 1
	}
	labelEvery := 1 + int(70/slot)
	for i, w := range rep.Weeks {
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

func f1(v float64) string { return strings.TrimSuffix(fmt.Sprintf("%.1f", v), ".0") }

var htmlTemplate = template.Must(template.New("audit").Funcs(template.FuncMap{
	"f1":      f1,
	"short":   short,
	"details": func(r *Reason) string { return r.Details() },
	"count":   func(m map[string]int, k string) int { return m[k] },
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
table{border-collapse:collapse;margin:8px 0 24px}
th,td{border:1px solid #ccc;padding:3px 8px;text-align:left;vertical-align:top}
td.n,th.n{text-align:right}
h2{font-size:16px;margin:16px 0 4px}
.gate-failed{color:#b00020;font-weight:bold}
</style>
</head>
<body>
<header>
<h1>{{.Title}}</h1>
<p class="scope">{{.Scope}}</p>
</header>
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
{{with .Rep.Totals}}<p><b>{{.Ticks}}</b> ticks: <b>{{.Evidenced}}</b> evidenced, <b>{{.WithoutEvidence}}</b> without evidence · <b>{{.Statements}}</b> statements, <b>{{.RegressionOnly}}</b> regression_only ({{call $.Pct .RegressionOnly .Statements}})</p>{{end}}
{{with .Rep.Gate}}<p{{if .Failed}} class="gate-failed"{{end}}>Gate {{if .Failed}}failed{{else}}passed{{end}}: {{.Message}}</p>{{end}}
<h2>Verdicts</h2>
<table><tr><th>verdict</th><th class="n">statements</th><th class="n">share</th></tr>
{{range .Verdicts}}<tr><td>{{.}}</td><td class="n">{{count $.Rep.Verdicts .}}</td><td class="n">{{call $.Pct (count $.Rep.Verdicts .) $.Rep.Totals.Statements}}</td></tr>
{{end}}</table>
{{if .Reasons}}<h2>regression_only by reason and unit</h2>
<table><tr><th>unit</th>{{range .Reasons}}<th class="n">{{.}}</th>{{end}}<th class="n">total</th></tr>
{{range .Rep.Regression.ByUnit}}{{$u := .}}<tr><td>{{.Unit.Dir}}</td>{{range $.Reasons}}<td class="n">{{count $u.Reasons .}}</td>{{end}}<td class="n">{{.Total}}</td></tr>
{{end}}<tr><th>total</th>{{range .Reasons}}<th class="n">{{count $.Rep.Regression.ByReason .}}</th>{{end}}<th class="n">{{.Rep.Totals.RegressionOnly}}</th></tr></table>
<h2>regression_only ticks</h2>
<table><tr><th>time</th><th>commit</th><th>unit</th><th>task</th><th>title</th><th>reason</th><th>signature</th><th>details</th></tr>
{{range .Regression}}<tr><td>{{.Time}}</td><td><code>{{short (printf "%s" .Commit)}}</code></td><td>{{.Unit.Dir}}</td><td>{{.TaskLabel}}</td><td>{{.Title}}</td><td>{{.Regression.Reason}}</td><td>{{.Signature.Status}}</td><td>{{details .Regression}}</td></tr>
{{end}}</table>{{end}}
{{if .Rep.Weeks}}<h2>Trend per ISO week</h2>
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
