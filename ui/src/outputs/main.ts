// The outputs browser (/outputs, admin only): a run's answers as a matrix
// of prompts × models, paged from the server, with filters; a click shows
// the whole conversation and the battles and votes on the answer. Model
// output is untrusted: it is shown only through renderMarkdown (markdown-it
// with raw HTML off, then DOMPurify), under the page's CSP.
import "../shared/dashboard.css";
import "./outputs.css";
import { getJSON, HTTPError } from "../shared/api";
import { byId, el, ms, usd, watchCSP } from "../shared/dashboard";
import { renderMarkdown } from "../shared/markdown";
import { checksView, type CheckResult } from "./checks";
import { renderDetail, type Detail } from "./detail";

watchCSP();

// The admin page keeps the token under the same key, so one unlock serves both.
const TOKEN_KEY = "ringside.admin_token";


interface Cell {
  generation_id: string;
  model: string;
  sample: number;
  output: string;
  truncated?: boolean;
  latency_ms: number;
  cost_usd: number;
  error_kind?: string;
  error?: string;
  checks: CheckResult[];
}

interface Row {
  prompt_id: string;
  set: string;
  category: string;
  kind: string;
  tags: string[] | null;
  question: string;
  cells: Cell[];
}

interface Page {
  run: string;
  runs: string[];
  models: string[] | null;
  rows: Row[];
  next: string;
  facets: { sets: string[]; categories: string[]; tags: string[] };
}

const status = byId("status");
let token = sessionStorage.getItem(TOKEN_KEY) ?? "";
let models: string[] = [];
let next = "";

function api<T>(path: string): Promise<T> {
  return getJSON<T>(path, { headers: { Authorization: `Bearer ${token}` } });
}

function say(msg: string, warn = false): void {
  status.textContent = msg;
  status.classList.toggle("warn", warn);
}

const filters = ["run", "set", "category", "kind", "tag", "model"] as const;
type FilterName = (typeof filters)[number];

function select(name: FilterName): HTMLSelectElement {
  return byId<HTMLSelectElement>(`f-${name}`);
}

// fill sets a filter's options, keeping the current choice when it is still offered.
function fill(name: FilterName, values: string[], all = "all"): void {
  const s = select(name);
  const keep = s.value;
  const opts = all ? [el("option", "", all)] : [];
  if (all) opts[0].value = "";
  for (const v of values) {
    const o = el("option", "", v);
    o.value = v;
    opts.push(o);
  }
  s.replaceChildren(...opts);
  if (values.includes(keep)) s.value = keep;
}

function query(after: string): string {
  const q = new URLSearchParams();
  for (const f of filters) {
    const v = select(f).value;
    if (v) q.set(f, v);
  }
  if (byId<HTMLInputElement>("f-failed").checked) q.set("failed", "1");
  if (after) q.set("after", after);
  return q.toString();
}

function cellView(c: Cell): HTMLElement {
  const box = el("div", c.error_kind ? "cell failed" : "cell");
  box.tabIndex = 0;
  box.dataset.gen = c.generation_id;
  box.setAttribute("role", "button");
  box.setAttribute("aria-label", `${c.model}: open the conversation`);
  if (c.error_kind) {
    box.append(el("div", "error", `failed (${c.error_kind}): ${c.error ?? ""}`));
  } else {
    const answer = el("div", "answer md");
    answer.innerHTML = renderMarkdown(c.output); // sanitized: see markdown.ts
    box.append(answer);
    if (c.truncated) box.append(el("div", "meta", "… cut here; click for the whole answer"));
  }
  const sample = c.sample > 0 ? ` · sample ${c.sample}` : "";
  box.append(el("div", "meta", `${ms(c.latency_ms)} · ${usd(c.cost_usd)}${sample}`));
  box.append(checksView(c.checks));
  const open = () => void showDetail(c.generation_id);
  box.addEventListener("click", open);
  box.addEventListener("keydown", (e) => {
    if (e.key === "Enter" || e.key === " ") {
      e.preventDefault();
      open();
    }
  });
  return box;
}


function rowView(r: Row): HTMLTableRowElement {
  const tr = el("tr");
  tr.dataset.prompt = r.prompt_id;
  const head = el("td", "prompt");
  head.append(el("div", "qid", r.prompt_id));
  const badges = el("div", "badges");
  for (const b of [r.kind, r.category, r.set, ...(r.tags ?? [])]) if (b) badges.append(el("span", "badge", b));
  head.append(badges, el("div", "question", r.question));
  tr.append(head);
  for (const m of models) {
    const td = el("td");
    td.dataset.model = m;
    const cells = r.cells.filter((c) => c.model === m);
    if (cells.length === 0) td.append(el("span", "meta", "no answer"));
    for (const c of cells) td.append(cellView(c));
    tr.append(td);
  }
  return tr;
}

async function load(append: boolean): Promise<void> {
  say("loading…");
  const page = await api<Page>(`/api/admin/outputs?${query(append ? next : "")}`);
  fill("run", page.runs, "");
  if (page.run) select("run").value = page.run;
  fill("set", page.facets.sets);
  fill("category", page.facets.categories);
  fill("tag", page.facets.tags);
  const table = byId<HTMLTableElement>("matrix");
  if (!append) {
    models = page.models ?? [];
    if (!select("model").value) fill("model", models);
    const tr = el("tr");
    tr.append(el("th", "", "Prompt"));
    for (const m of models) tr.append(el("th", "", m));
    const thead = el("thead");
    thead.append(tr);
    table.replaceChildren(thead, el("tbody"));
  }
  const tbody = table.tBodies[0];
  for (const r of page.rows) tbody.append(rowView(r));
  next = page.next;
  byId("more").hidden = !next;
  const shown = tbody.rows.length;
  if (page.runs.length === 0) say("No runs yet: `ringside run` generates the answers this page shows.");
  else say(shown === 0 ? "No prompt matches the filters." : `${shown} prompts shown${next ? "; more below" : ""}.`);
}

async function showDetail(id: string): Promise<void> {
  const d = await api<Detail>(`/api/admin/outputs/${encodeURIComponent(id)}`);
  renderDetail(d);
  byId("detail").hidden = false;
  byId("detail-close").focus();
}

async function unlock(): Promise<void> {
  try {
    await load(false);
    document.body.dataset.state = "unlocked";
    byId("token-form").hidden = true;
    byId("browser").hidden = false;
  } catch (e) {
    if (e instanceof HTTPError && e.status === 401) {
      sessionStorage.removeItem(TOKEN_KEY);
      say("That token is not the admin token.", true);
    } else {
      say(`Could not load the outputs: ${(e as Error).message}`, true);
    }
  }
}

function fillKinds(): void {
  fill("kind", ["typical", "edge", "adversarial"]);
}

byId("token-form").addEventListener("submit", (e) => {
  e.preventDefault();
  token = byId<HTMLInputElement>("token").value.trim();
  sessionStorage.setItem(TOKEN_KEY, token);
  void unlock();
});
byId("filters").addEventListener("change", (e) => {
  // Another run has other models: start its model filter afresh.
  if ((e.target as HTMLElement).id === "f-run") select("model").value = "";
  void load(false).catch((err: Error) => say(err.message, true));
});
byId("more").addEventListener("click", () => void load(true).catch((err: Error) => say(err.message, true)));
byId("detail-close").addEventListener("click", () => {
  byId("detail").hidden = true;
});
fillKinds();
if (token) void unlock();
