// The leaderboard table: sortable columns, and models whose ratings are
// statistically tied shaded as one group.
import type { Board, ModelRating, PassStats } from "../shared/api";
import { el, fmt, ms, pct, usd } from "../shared/dashboard";

export interface Row extends ModelRating {
  group: number; // tie group, 1-based in rating order
  pass?: PassStats;
}

interface Column {
  key: string;
  head: string;
  title?: string;
  value: (r: Row) => number | string | null | undefined;
  show: (r: Row) => string;
  num?: boolean;
  // present says whether the column has any data; empty ones are hidden.
  present?: (rows: Row[]) => boolean;
}

const has = (f: (r: Row) => unknown) => (rows: Row[]) => rows.some((r) => f(r) != null);

const columns: Column[] = [
  {
    key: "rank",
    head: "Rank (UB)",
    title: "1 + the number of models whose interval lies wholly above this one's",
    value: (r) => r.rank,
    show: (r) => String(r.rank),
    num: true,
  },
  { key: "model", head: "Model", value: (r) => r.model, show: (r) => r.model },
  {
    key: "rank_change",
    head: "Rank change",
    title: "places gained (+) or lost (−) by controlling, against the plain rank",
    value: (r) => (r.uncontrolled_rank == null ? null : r.uncontrolled_rank - r.rank),
    show: (r) => {
      if (r.uncontrolled_rank == null) return "–";
      const d = r.uncontrolled_rank - r.rank;
      return d > 0 ? `+${d}` : d < 0 ? `−${-d}` : "0";
    },
    num: true,
    present: has((r) => r.uncontrolled_rank),
  },
  {
    key: "plain",
    head: "Plain rating",
    title: "the rating without control",
    value: (r) => r.uncontrolled_rating,
    show: (r) => fmt(r.uncontrolled_rating),
    num: true,
    present: has((r) => r.uncontrolled_rating),
  },
  { key: "rating", head: "Rating", value: (r) => r.rating, show: (r) => fmt(r.rating), num: true },
  {
    key: "ci",
    head: "95% interval",
    value: (r) => (r.ci_high ?? Infinity) - (r.ci_low ?? -Infinity),
    show: (r) => (r.ci_low == null && r.ci_high == null ? "–" : `${fmt(r.ci_low)} – ${fmt(r.ci_high)}`),
    num: true,
  },
  { key: "battles", head: "Battles", value: (r) => r.battles, show: (r) => String(r.battles), num: true },
  { key: "win_rate", head: "Win rate", title: "(wins + ties/2) / battles", value: (r) => r.win_rate, show: (r) => pct(r.win_rate), num: true },
  {
    key: "ttft",
    head: "TTFT p50 / p95",
    title: "time to first token",
    value: (r) => r.ttft_p50_ms,
    show: (r) => `${ms(r.ttft_p50_ms)} / ${ms(r.ttft_p95_ms)}`,
    num: true,
    present: has((r) => r.ttft_p50_ms),
  },
  {
    key: "latency",
    head: "Latency p50 / p95",
    value: (r) => r.latency_p50_ms,
    show: (r) => `${ms(r.latency_p50_ms)} / ${ms(r.latency_p95_ms)}`,
    num: true,
    present: has((r) => r.latency_p50_ms),
  },
  {
    key: "cost",
    head: "Cost / 1k resp.",
    title: "US dollars per 1,000 responses",
    value: (r) => r.cost_per_1k_responses_usd,
    show: (r) => usd(r.cost_per_1k_responses_usd),
    num: true,
    present: has((r) => r.cost_per_1k_responses_usd),
  },
  {
    key: "errors",
    head: "Errors",
    title: "share of generations that failed",
    value: (r) => r.error_rate,
    show: (r) => pct(r.error_rate),
    num: true,
    present: has((r) => r.error_rate),
  },
  {
    key: "pass",
    head: "Pass rate",
    title: "share of samples that passed every rule check",
    value: (r) => r.pass?.pass_rate,
    show: (r) => pct(r.pass?.pass_rate),
    num: true,
    present: has((r) => r.pass),
  },
  {
    key: "passk",
    head: "pass^k",
    title: "share of prompts where every one of the k samples passed",
    value: (r) => r.pass?.pass_all_k,
    show: (r) => (r.pass ? `${pct(r.pass.pass_all_k)} (k=${r.pass.k})` : "–"),
    num: true,
    present: has((r) => r.pass),
  },
];

// tieGroups numbers the models in rating order: a model starts a new group
// when its interval lies wholly below the current group's leader's, so
// every member of a group is statistically tied with its leader.
export function tieGroups(models: ModelRating[], pass: Map<string, PassStats>): Row[] {
  const sorted = [...models].sort((a, b) => b.rating - a.rating);
  let group = 0;
  let leaderLow = Infinity;
  return sorted.map((m) => {
    const hi = m.ci_high ?? Infinity;
    if (group === 0 || hi < leaderLow) {
      group++;
      leaderLow = m.ci_low ?? -Infinity;
    }
    return { ...m, group, pass: pass.get(m.model) };
  });
}

export interface SortState {
  key: string;
  desc: boolean;
}

/** renderTable fills the table with the board's rated models, sorted as asked. */
export function renderTable(
  table: HTMLTableElement,
  board: Board,
  pass: Map<string, PassStats>,
  sort: SortState,
  onSort: (key: string) => void,
): void {
  const rows = tieGroups(board.models, pass);
  const cols = columns.filter((c) => !c.present || c.present(rows));
  const col = cols.find((c) => c.key === sort.key) ?? cols[2];
  const dir = sort.desc ? -1 : 1;
  rows.sort((a, b) => {
    const x = col.value(a);
    const y = col.value(b);
    if (x == null && y == null) return 0;
    if (x == null) return 1; // missing values last, whichever the direction
    if (y == null) return -1;
    const c = typeof x === "string" ? x.localeCompare(String(y)) : (x as number) - (y as number);
    return dir * c || b.rating - a.rating;
  });

  const head = el("thead");
  const tr = el("tr");
  for (const c of cols) {
    const th = el("th", c.num ? "num" : "");
    const btn = el("button", "sort", c.head);
    btn.type = "button";
    btn.dataset.key = c.key;
    if (c.title) btn.title = c.title;
    btn.addEventListener("click", () => onSort(c.key));
    th.append(btn);
    if (c.key === col.key) {
      th.setAttribute("aria-sort", sort.desc ? "descending" : "ascending");
      btn.append(el("span", "arrow", sort.desc ? " ▼" : " ▲"));
    }
    tr.append(th);
  }
  head.append(tr);

  const body = el("tbody");
  const groupSize = new Map<number, number>();
  rows.forEach((r) => groupSize.set(r.group, (groupSize.get(r.group) ?? 0) + 1));
  for (const r of rows) {
    const row = el("tr", `tie-${r.group % 2 ? "odd" : "even"}`);
    row.dataset.model = r.model;
    row.dataset.group = String(r.group);
    for (const c of cols) {
      const td = el("td", c.num ? "num" : "", c.show(r));
      td.dataset.label = c.head;
      if (c.key === "model" && (groupSize.get(r.group) ?? 0) > 1) {
        const chip = el("span", "tie-chip", `tied ≈${r.group}`);
        chip.title = "statistically tied with the other models of this group: their intervals overlap its leader's";
        td.append(" ", chip);
      }
      row.append(td);
    }
    body.append(row);
  }
  table.replaceChildren(head, body);
}
