// The leaderboard page: the table, the slice selector, five charts and the
// downloads, refreshed whenever the server says votes changed. The page
// holds no statistics of its own: every number comes from /api/leaderboard,
// as the public may ask for it: no per-judge slicing, the server's rounds.
import "../shared/dashboard.css";
import type { Board, PassStats, Report } from "../shared/api";
import { getJSON, HTTPError } from "../shared/api";
import { byId, el, pct, subscribeChanges, watchCSP } from "../shared/dashboard";
import * as charts from "./charts";
import { judgesLine } from "./judges";
import { renderTable, type SortState } from "./table";

watchCSP();

const bySelect = byId<HTMLSelectElement>("by");
const valueSelect = byId<HTMLSelectElement>("value");
const valueLabel = byId("value-label");
const controlSelect = byId<HTMLSelectElement>("control");
const table = byId<HTMLTableElement>("board");
const status = byId("status");
const live = byId("live");

const params = new URLSearchParams(location.search);
let by = params.get("by") ?? "overall";
// A link to a slicing the page does not offer (judge, which is the
// admin's) shows the overall board.
if (![...bySelect.options].some((o) => o.value === by)) by = "overall";
let value = params.get("value") ?? "";
let control = params.get("control") ?? "none";
const judgesSelect = byId<HTMLSelectElement>("judges");
let judges = params.get("judges") ?? "";
if (![...judgesSelect.options].some((o) => o.value === judges)) judges = "";
const weightingSelect = byId<HTMLSelectElement>("weighting");
let weighting = params.get("weighting") ?? "";
if (![...weightingSelect.options].some((o) => o.value === weighting)) weighting = "";
let sort: SortState = { key: "rating", desc: true };
const lowFirst = new Set(["rank", "model", "ttft", "latency", "cost", "errors"]);
const reports = new Map<string, Report>();

function url(slicing: string): string {
  const q = new URLSearchParams();
  if (slicing !== "overall") q.set("by", slicing);
  if (control !== "none") q.set("control", control);
  if (judges) q.set("judges", judges);
  if (weighting) q.set("weighting", weighting);
  return `/api/leaderboard?${q}`;
}

async function load(slicing: string): Promise<Report> {
  const r = await getJSON<Report>(url(slicing));
  reports.set(slicing, r);
  return r;
}

// refresh refetches what is shown: the overall board, the per-dimension
// board of the chart, and the selected slicing. The server caches them by
// vote count, so this is cheap when nothing changed.
async function refresh(): Promise<void> {
  try {
    const want = new Set(["overall", "dimension", by]);
    await Promise.all([...want].map(load));
    render();
    status.textContent = "";
    document.body.dataset.state = "ready";
  } catch (err) {
    if (err instanceof HTTPError && err.status === 429) {
      // The server computes only so many boards for one address; the
      // board shown stays, and the page asks again when it may.
      const wait = err.retryAfter ?? 5;
      status.textContent = `The server is busy; the board shown may be a little old. Trying again in ${wait} s.`;
      window.setTimeout(() => void onChange(), wait * 1000);
      return;
    }
    status.textContent = `Could not load the leaderboard: ${(err as Error).message}`;
    status.classList.add("warn");
  }
}

// board is the leaderboard the table and the main charts show.
function board(): Board | undefined {
  const r = reports.get(by);
  if (!r) return undefined;
  if (by === "overall") return r;
  return r.slices?.[value];
}

function passMap(r: Report | undefined): Map<string, PassStats> {
  const m = new Map<string, PassStats>();
  const first = r?.pass ? Object.keys(r.pass).sort()[0] : undefined;
  if (first) for (const p of r!.pass![first]) m.set(p.model, p);
  return m;
}

function fillValues(r: Report): void {
  const slices = Object.entries(r.slices ?? {}).sort((a, b) => b[1].battles - a[1].battles);
  if (!slices.some(([k]) => k === value)) value = slices[0]?.[0] ?? "";
  valueSelect.replaceChildren(
    ...slices.map(([k, b]) => {
      const o = el("option", "", `${k || "(none)"} · ${b.battles} battles`);
      o.value = k;
      o.selected = k === value;
      return o;
    }),
  );
}

function render(): void {
  const overall = reports.get("overall");
  if (!overall) return;
  const current = reports.get(by);
  valueLabel.hidden = by === "overall";
  if (by !== "overall" && current) fillValues(current);
  const b = board() ?? overall;
  document.body.dataset.votes = String(overall.votes);
  document.body.dataset.slice = by === "overall" ? "overall" : `${by}=${value}`;

  byId("summary").textContent =
    `${b.battles} battles · ${b.models.length} rated models · ` +
    `${b.method.interval === "bootstrap" ? `${b.method.bootstrap_rounds} bootstrap rounds` : b.method.interval}` +
    (b.method.weighting === "propensity" ? " · votes weighted by the inverse of their pair's dealing chance" : "");
  renderTable(table, b, passMap(overall), sort, (key) => {
    // A first click sorts best first: low for ranks, times, costs, errors.
    sort = { key, desc: sort.key === key ? !sort.desc : !lowFirst.has(key) };
    render();
  });
  byId("judges-line").textContent = judgesLine(b);
  renderFlagged(b);
  renderCoefficients(b);
  renderNotes(b);
  renderEmpty(overall);

  charts.ratings(byId("chart-ratings"), b);
  charts.heatmap(byId("chart-heatmap"), b);
  charts.tradeoff(byId("chart-cost"), b, "cost_per_1k_responses_usd");
  charts.tradeoff(byId("chart-latency"), b, "latency_p95_ms");
  charts.dimensions(byId("chart-dims"), reports.get("dimension"), overall.models.map((m) => m.model));

  const q = new URLSearchParams(location.search);
  q.delete("by");
  q.delete("value");
  q.delete("control");
  q.delete("judges");
  q.delete("weighting");
  if (control !== "none") q.set("control", control);
  if (judges) q.set("judges", judges);
  if (weighting) q.set("weighting", weighting);
  if (by !== "overall") {
    q.set("by", by);
    q.set("value", value);
  }
  const s = q.toString();
  history.replaceState(null, "", s ? `?${s}` : location.pathname);
}

function renderFlagged(b: Board): void {
  const box = byId("flagged-box");
  const list = byId("flagged");
  const flagged = b.flagged ?? [];
  box.hidden = flagged.length === 0;
  list.replaceChildren(
    ...flagged.map((f) => {
      const li = el("li");
      li.dataset.model = f.model;
      const errors = f.error_rate != null ? `; ${pct(f.error_rate)} of its responses failed` : "";
      li.append(el("strong", "", f.model), ` — ${f.reason}: ${f.detail} (${f.wins} W / ${f.losses} L / ${f.ties} T${errors})`);
      return li;
    }),
  );
}

function renderCoefficients(b: Board): void {
  const coefs = b.coefficients ?? [];
  byId("coefficients-box").hidden = coefs.length === 0;
  byId("coefficients").replaceChildren(
    ...coefs.map((c) => {
      const li = el("li");
      li.dataset.feature = c.name;
      const ci = c.ci_low == null && c.ci_high == null ? "" : ` [${c.ci_low?.toFixed(3) ?? "−∞"}, ${c.ci_high?.toFixed(3) ?? "+∞"}]`;
      li.append(el("strong", "", c.name), ` ${c.value.toFixed(3)}${ci}`);
      return li;
    }),
  );
}

// renderEmpty says what to do next while nothing is rated: run the models
// when there are no battles, vote when battles wait for votes.
function renderEmpty(overall: Board): void {
  const box = byId("empty");
  box.hidden = overall.battles > 0;
  if (!box.hidden) {
    box.textContent =
      (overall.flagged ?? []).length > 0
        ? "No votes yet, so nothing is rated. Vote on the judge page (/judge), or let the rule-based judge vote: " +
          "`ringside judge --judge rules`. This page updates as votes arrive."
        : "No battles yet. Run the models on your prompts with `ringside run` (or bring judged battles with " +
          "`ringside import battles FILE`), then vote on /judge. This page updates as votes arrive.";
  }
}

function renderNotes(b: Board): void {
  byId("notes").replaceChildren(...(b.notes ?? []).map((n) => el("p", "note", n)));
}

bySelect.value = by;
bySelect.addEventListener("change", async () => {
  by = bySelect.value;
  value = "";
  if (!reports.has(by)) {
    status.textContent = "Loading…";
    await load(by).catch((err) => (status.textContent = `Could not load: ${(err as Error).message}`));
    status.textContent = "";
  }
  render();
});
if ([...controlSelect.options].some((o) => o.value === control)) controlSelect.value = control;
// refetchOn: a selector whose choice changes every board fetches them anew.
function refetchOn(select: HTMLSelectElement, choose: (v: string) => void): void {
  select.addEventListener("change", async () => {
    choose(select.value);
    reports.clear();
    status.textContent = "Loading…";
    await refresh();
  });
}
refetchOn(controlSelect, (v) => (control = v));
weightingSelect.value = weighting;
refetchOn(weightingSelect, (v) => (weighting = v));
judgesSelect.value = judges;
refetchOn(judgesSelect, (v) => (judges = v));
valueSelect.addEventListener("change", () => {
  value = valueSelect.value;
  render();
});

// Re-draw the charts at the new width after a resize (a phone turned).
let resizeTimer = 0;
window.addEventListener("resize", () => {
  clearTimeout(resizeTimer);
  resizeTimer = window.setTimeout(render, 200);
});

// A burst of votes sends a burst of events; one refresh at a time.
let busy = false;
let again = false;
async function onChange(): Promise<void> {
  if (busy) {
    again = true;
    return;
  }
  busy = true;
  do {
    again = false;
    await refresh();
  } while (again);
  busy = false;
  live.dataset.updated = new Date().toLocaleTimeString();
  live.textContent = `live · updated ${live.dataset.updated}`;
}

subscribeChanges(onChange, (s) => {
  live.className = `live ${s === "live" ? "on" : s}`;
  if (s === "reconnecting") live.textContent = "reconnecting…";
  else if (!live.dataset.updated) live.textContent = "live";
});
void onChange();
