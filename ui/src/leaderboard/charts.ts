// The leaderboard's charts, drawn with Observable Plot as SVG: testable in
// the DOM, crisp on any screen, and with no code loaded from elsewhere.
import * as Plot from "@observablehq/plot";
import type { Board, ModelRating } from "../shared/api";
import { fmt, ms, pct, usd } from "../shared/dashboard";

const font = "system-ui, sans-serif";

// place puts a chart into its figure. Plot adds a <style> element to each
// SVG, which the page's CSP (no inline styles) would block and report; the
// same rules are in dashboard.css, so the element is removed before the
// chart reaches the document.
function place(figure: HTMLElement, chart: Element): void {
  chart.querySelectorAll("style").forEach((s) => s.remove());
  chart.classList.add("chart-svg");
  figure.querySelector(".chart-body")?.replaceChildren(chart);
}

function empty(figure: HTMLElement, why: string): void {
  const p = document.createElement("p");
  p.className = "chart-empty";
  p.textContent = why;
  figure.querySelector(".chart-body")?.replaceChildren(p);
}

function widthOf(figure: HTMLElement): number {
  return Math.max(280, Math.min(900, figure.clientWidth || 600));
}

// Interval ends for drawing: an unbounded end is drawn to the plot's edge.
function ends(m: ModelRating, lo: number, hi: number): [number, number] {
  return [m.ci_low ?? lo, m.ci_high ?? hi];
}

function ratingExtent(models: ModelRating[]): [number, number] {
  const xs = models.flatMap((m) => [m.rating, m.ci_low ?? m.rating, m.ci_high ?? m.rating]);
  const lo = Math.min(...xs);
  const hi = Math.max(...xs);
  const pad = Math.max(10, (hi - lo) * 0.08);
  return [Math.floor(lo - pad), Math.ceil(hi + pad)];
}

/** ratings draws each model's rating as a dot with its 95% interval as a whisker. */
export function ratings(figure: HTMLElement, board: Board): void {
  const models = board.models;
  if (models.length === 0) return empty(figure, "No rated models yet.");
  const [lo, hi] = ratingExtent(models);
  const data = models.map((m) => {
    const [a, b] = ends(m, lo, hi);
    return { ...m, lo: a, hi: b };
  });
  const order = models.map((m) => m.model);
  place(
    figure,
    Plot.plot({
      width: widthOf(figure),
      height: 40 + 30 * models.length,
      marginLeft: 110,
      style: { fontFamily: font },
      x: { domain: [lo, hi], label: "rating (Bradley-Terry, 95% interval)", grid: true },
      y: { domain: order, label: null },
      marks: [
        Plot.ruleX([1000], { stroke: "#b8c0cf", strokeDasharray: "3,3" }),
        Plot.ruleY(data, { y: "model", x1: "lo", x2: "hi", stroke: "#2457c5", strokeWidth: 2 }),
        Plot.tickX(data, { y: "model", x: "lo", stroke: "#2457c5" }),
        Plot.tickX(data, { y: "model", x: "hi", stroke: "#2457c5" }),
        Plot.dot(data, {
          y: "model",
          x: "rating",
          fill: "#1d2330",
          r: 4,
          title: (d: ModelRating) => `${d.model}: ${fmt(d.rating)} [${fmt(d.ci_low)}, ${fmt(d.ci_high)}]`,
        }),
      ],
    }),
  );
}

/** heatmap draws the pairwise win rates, row against column, with battle counts. */
export function heatmap(figure: HTMLElement, board: Board): void {
  const mx = board.matrix;
  if (!mx || mx.models.length < 2) return empty(figure, "Needs at least two models with battles.");
  const cells: { row: string; col: string; rate: number | null; n: number }[] = [];
  mx.models.forEach((row, r) =>
    mx.models.forEach((col, c) => {
      if (r !== c) cells.push({ row, col, rate: mx.win_rate[r][c], n: mx.battles[r][c] });
    }),
  );
  const w = widthOf(figure);
  place(
    figure,
    Plot.plot({
      width: Math.min(w, 140 + 110 * mx.models.length),
      height: 60 + 46 * mx.models.length,
      marginLeft: 110,
      marginBottom: 50,
      padding: 0.04,
      style: { fontFamily: font },
      x: { domain: mx.models, label: "opponent", tickRotate: -20 },
      y: { domain: mx.models, label: null },
      color: { type: "linear", scheme: "RdBu", domain: [0, 1] },
      marks: [
        Plot.cell(
          cells.filter((d) => d.rate != null),
          { x: "col", y: "row", fill: "rate", title: (d) => `${d.row} vs ${d.col}: ${pct(d.rate)} of ${d.n}` },
        ),
        Plot.cell(
          cells.filter((d) => d.rate == null),
          { x: "col", y: "row", fill: "#eef1f6" },
        ),
        Plot.text(cells, {
          x: "col",
          y: "row",
          text: (d) => (d.rate == null ? "never met" : `${pct(d.rate, 0)}\n${d.n} battles`),
          fill: (d) => (d.rate != null && Math.abs(d.rate - 0.5) > 0.3 ? "white" : "#1d2330"),
          lineHeight: 1.2,
        }),
      ],
    }),
  );
}

interface Point {
  model: string;
  x: number;
  y: number;
  lo: number;
  hi: number;
}

// frontier is the Pareto frontier of points where a smaller x and a larger
// y are better: sorted by x, each point that beats every cheaper one.
export function frontier(points: Point[]): Point[] {
  const sorted = [...points].sort((a, b) => a.x - b.x || b.y - a.y);
  const out: Point[] = [];
  let best = -Infinity;
  for (const p of sorted) {
    if (p.y > best) {
      out.push(p);
      best = p.y;
    }
  }
  return out;
}

// padded is the extent of ys with at least 20 rating points around it: with
// every rating equal the extent is one point, and the axis would count
// millionths of a point.
export function padded(ys: number[]): [number, number] {
  const lo = Math.min(...ys);
  const hi = Math.max(...ys);
  const pad = Math.max(10 - (hi - lo) / 2, (hi - lo) * 0.08);
  return [Math.floor(lo - pad), Math.ceil(hi + pad)];
}

/** tradeoff plots rating against a cost (money or time), with the Pareto frontier. */
export function tradeoff(
  figure: HTMLElement,
  board: Board,
  key: "cost_per_1k_responses_usd" | "latency_p95_ms",
): void {
  const points: Point[] = board.models
    .filter((m) => m[key] != null && m[key]! > 0)
    .map((m) => {
      const [lo, hi] = ends(m, m.rating, m.rating);
      return { model: m.model, x: m[key]!, y: m.rating, lo, hi };
    });
  if (points.length === 0) return empty(figure, "No measured generations for these models.");
  const front = frontier(points);
  const onFront = new Set(front.map((p) => p.model));
  const label = key === "latency_p95_ms" ? "p95 latency (log)" : "cost per 1,000 responses, USD (log)";
  const show = key === "latency_p95_ms" ? ms : usd;
  place(
    figure,
    Plot.plot({
      width: widthOf(figure),
      height: 300,
      marginLeft: 50,
      marginRight: 30,
      inset: 24,
      style: { fontFamily: font },
      x: { type: "log", label, tickFormat: (v: number) => show(v), ticks: 5 },
      y: { label: "rating", grid: true, domain: padded(points.flatMap((p) => [p.lo, p.hi])), tickFormat: ",.0f" },
      marks: [
        Plot.line(front, { x: "x", y: "y", curve: "step-after", stroke: "#2a9d5c", strokeWidth: 2, strokeDasharray: "5,3" }),
        Plot.ruleX(points, { x: "x", y1: "lo", y2: "hi", stroke: "#b8c0cf" }),
        Plot.dot(points, {
          x: "x",
          y: "y",
          r: 5,
          fill: (d: Point) => (onFront.has(d.model) ? "#2a9d5c" : "#8a94a8"),
          title: (d: Point) => `${d.model}: rating ${fmt(d.y)}, ${show(d.x)}`,
        }),
        Plot.text(points, { x: "x", y: "y", text: "model", dy: -12, fill: "#1d2330" }),
      ],
    }),
  );
}

// unboundedAbove and unboundedBelow are the flag reasons of models with no
// finite rating because they beat (or lost to) everyone they met.
const unboundedAbove = new Set(["undefeated", "above"]);
const unboundedBelow = new Set(["winless", "below"]);

interface DimRow {
  dim: string;
  model: string;
  rating: number;
  lo: number | null;
  hi: number | null;
  flag?: string; // set for a model with no finite rating, drawn at the edge
}

/** dimensions draws every model's rating per dimension, one row of whiskers
 * each. A model that won (or lost) every battle on a dimension has no
 * finite rating there: it is drawn at the edge, marked with a triangle and
 * its reason, rather than left out. */
export function dimensions(figure: HTMLElement, byDim: Board | undefined, order: string[]): void {
  const slices = byDim?.slices ?? {};
  const rated: DimRow[] = Object.entries(slices).flatMap(([dim, b]) =>
    b.models.map((m) => ({ dim, model: m.model, rating: m.rating, lo: m.ci_low, hi: m.ci_high })),
  );
  const edge = Object.entries(slices).flatMap(([dim, b]) =>
    (b.flagged ?? [])
      .filter((f) => unboundedAbove.has(f.reason) || unboundedBelow.has(f.reason))
      .map((f) => ({ dim, model: f.model, flag: f.reason })),
  );
  if (rated.length + edge.length === 0) return empty(figure, "No votes with per-dimension verdicts yet.");
  const dims = Object.keys(slices).sort();
  const all = [...rated.map((r) => r.model), ...edge.map((r) => r.model)];
  const models = [...new Set([...order.filter((m) => all.includes(m)), ...all])];
  const xs = rated.flatMap((r) => [r.rating, r.lo ?? r.rating, r.hi ?? r.rating]);
  const lo = (xs.length ? Math.min(...xs) : 1000) - 20;
  const hi = (xs.length ? Math.max(...xs) : 1000) + 20;
  const data = rated.map((r) => ({ ...r, lo: r.lo ?? lo, hi: r.hi ?? hi }));
  const marked = edge.map((r) => ({ ...r, rating: unboundedAbove.has(r.flag) ? hi : lo }));
  place(
    figure,
    Plot.plot({
      width: widthOf(figure),
      height: 40 + dims.length * (models.length * 16 + 18),
      marginLeft: 190,
      marginRight: 90,
      style: { fontFamily: font },
      x: { domain: [lo, hi], label: "rating on the dimension (95% interval)", grid: true },
      y: { domain: models, label: null, axis: null },
      fy: { domain: dims, label: null, padding: 0.15 },
      color: { domain: models, scheme: "tableau10", legend: true },
      marks: [
        Plot.frame({ stroke: "#eef1f6" }),
        Plot.ruleY(data, { fy: "dim", y: "model", x1: "lo", x2: "hi", stroke: "model", strokeWidth: 2 }),
        Plot.dot(data, {
          fy: "dim",
          y: "model",
          x: "rating",
          fill: "model",
          r: 4,
          title: (d) => `${d.model} on ${d.dim}: ${fmt(d.rating)}`,
        }),
        Plot.dot(marked, {
          fy: "dim",
          y: "model",
          x: "rating",
          fill: "model",
          symbol: "triangle",
          r: 6,
          rotate: (d) => (unboundedAbove.has(d.flag) ? 90 : -90),
          className: "unbounded",
          title: (d) => `${d.model} on ${d.dim}: ${d.flag} (no finite rating)`,
        }),
        Plot.text(marked, {
          fy: "dim",
          y: "model",
          x: "rating",
          text: "flag",
          textAnchor: "start",
          dx: 10,
          fill: "#1d2330",
          clip: false,
        }),
      ],
    }),
  );
}
