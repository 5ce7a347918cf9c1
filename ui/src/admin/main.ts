// The admin page: runs with their progress, judges and invites, models and
// their failures, agreement between judges, and the battles download. The admin token is kept in
// sessionStorage — gone when the tab closes — and sent as a Bearer header.
import "../shared/dashboard.css";
import { getJSON, HTTPError } from "../shared/api";
import { byId, el, fmt, pct, subscribeChanges, watchCSP } from "../shared/dashboard";
import { type Plan, renderPlan } from "./plan";
import { loadChatAdmin } from "./chat";
import { loadTrust } from "./trust";

watchCSP();

const TOKEN_KEY = "ringside.admin_token";

interface RunProgress {
  id: string;
  name: string;
  models: string[];
  prompts: number;
  samples: number;
  expected_generations: number;
  generations: number;
  failed: number;
  battles: number;
  votes: number;
  judged: number;
  created_at: string;
}

interface JudgeActivity {
  judge_id: string;
  kind: string;
  name: string;
  quota?: number;
  revoked?: boolean;
  anonymous?: boolean;
  votes: number;
  median_ms_per_vote?: number;
  last_vote_at?: string;
}

interface ModelRow {
  model: string;
  provider?: string;
  configured: boolean;
  generations: number;
  errors: number;
  error_rate: number;
  by_kind?: Record<string, number>;
}

interface Agreement {
  judge_a: string;
  judge_b: string;
  battles: number;
  agreement: number;
  kappa: number | null;
  decisive: number;
  decisive_agreement: number;
}

interface Invite {
  judge: { id: string; name: string };
  token: string;
  url: string;
}

const status = byId("status");
const tokenInput = byId<HTMLInputElement>("token");
let token = sessionStorage.getItem(TOKEN_KEY) ?? "";

function api<T>(path: string, init: RequestInit = {}): Promise<T> {
  const headers = new Headers(init.headers);
  headers.set("Authorization", `Bearer ${token}`);
  if (init.body) headers.set("Content-Type", "application/json");
  return getJSON<T>(path, { ...init, headers });
}

function say(msg: string, warn = false): void {
  status.textContent = msg;
  status.classList.toggle("warn", warn);
}

function table(
  id: string,
  head: string[],
  rows: Node[][],
  numeric: Set<number> = new Set(),
  none = "nothing yet",
): void {
  const t = byId<HTMLTableElement>(id);
  const thead = el("thead");
  const tr = el("tr");
  head.forEach((h, i) => tr.append(el("th", numeric.has(i) ? "num" : "", h)));
  thead.append(tr);
  const tbody = el("tbody");
  for (const r of rows) {
    const row = el("tr");
    r.forEach((cell, i) => {
      const td = el("td", numeric.has(i) ? "num" : "");
      td.append(cell);
      row.append(td);
    });
    tbody.append(row);
  }
  if (rows.length === 0) {
    const row = el("tr");
    const td = el("td", "empty", none);
    td.colSpan = head.length;
    row.append(td);
    tbody.append(row);
  }
  t.replaceChildren(thead, tbody);
}

const text = (s: string) => document.createTextNode(s);

function progress(done: number, of: number): Node {
  const span = el("span");
  const p = el("progress");
  p.max = Math.max(of, 1);
  p.value = Math.min(done, p.max);
  span.append(p, ` ${done} / ${of}`);
  return span;
}

async function loadRuns(): Promise<void> {
  const { runs } = await api<{ runs: RunProgress[] }>("/api/admin/runs");
  table(
    "runs",
    ["Run", "Models", "Generations", "Failed", "Battles", "Judged", "Votes"],
    runs.map((r) => [
      text(r.name),
      text(r.models.join(", ")),
      progress(r.generations, r.expected_generations),
      text(String(r.failed)),
      text(String(r.battles)),
      progress(r.judged, r.battles),
      text(String(r.votes)),
    ]),
    new Set([3, 4, 6]),
    "No runs yet. Start one with `ringside run` (the demo needs no keys); then `ringside judge --judge rules` " +
      "votes on its battles and people vote on /judge. Judged battles from elsewhere: `ringside import battles FILE`.",
  );
}

function seconds(ms?: number): string {
  return ms == null ? "–" : `${(ms / 1000).toFixed(1)} s`;
}

async function loadJudges(): Promise<void> {
  const { judges, connected } = await api<{ judges: JudgeActivity[]; connected: number }>("/api/admin/activity");
  byId("live").dataset.connected = String(connected);
  const rows = judges.map((j) => {
    const quota = el("input", "quota");
    quota.type = "number";
    quota.min = "0";
    quota.value = String(j.quota ?? 0);
    quota.setAttribute("aria-label", `quota of ${j.name}`);
    quota.disabled = j.kind !== "human" || !!j.revoked;
    quota.addEventListener("change", () => void setQuota(j, Number(quota.value)));
    const actions = el("span");
    if (j.kind === "human" && !j.revoked && !j.anonymous) {
      const revoke = el("button", "", "Revoke");
      revoke.type = "button";
      revoke.dataset.judge = j.name;
      revoke.addEventListener("click", () => void revokeJudge(j));
      actions.append(revoke);
    } else if (j.revoked) {
      actions.append("revoked");
    }
    return [
      text(j.name + (j.anonymous ? " (anonymous)" : "")),
      text(j.kind),
      text(String(j.votes)),
      text(seconds(j.median_ms_per_vote)),
      quota,
      text(j.last_vote_at ? new Date(j.last_vote_at).toLocaleString() : "–"),
      actions,
    ];
  });
  table("judges", ["Judge", "Kind", "Votes", "Time per vote (median)", "Quota", "Last vote", ""], rows, new Set([2, 3]));
  // Mark revoked rows after the table is built.
  const trs = byId("judges").querySelectorAll("tbody tr");
  judges.forEach((j, i) => {
    trs[i]?.classList.toggle("revoked", !!j.revoked);
    trs[i]?.setAttribute("data-judge", j.name);
  });
}

async function loadModels(): Promise<void> {
  const { models } = await api<{ models: ModelRow[] }>("/api/admin/models");
  table(
    "models",
    ["Model", "Provider", "Generations", "Errors", "Error rate", "By kind"],
    models.map((m) => [
      text(m.model + (m.configured ? "" : " (not configured)")),
      text(m.provider ?? "–"),
      text(String(m.generations)),
      text(String(m.errors)),
      text(pct(m.error_rate)),
      text(
        Object.entries(m.by_kind ?? {})
          .map(([k, n]) => `${k} ${n}`)
          .join(", ") || "–",
      ),
    ]),
    new Set([2, 3, 4]),
  );
}

async function loadAgreement(): Promise<void> {
  const { agreement } = await api<{ agreement: Agreement[] }>("/api/admin/agreement");
  table(
    "agreement",
    ["Judge", "Judge", "Shared battles", "Agreement", "Kappa", "Both picked a side", "Agreement there"],
    agreement.map((a) => [
      text(a.judge_a),
      text(a.judge_b),
      text(String(a.battles)),
      text(pct(a.agreement)),
      text(fmt(a.kappa, 2)),
      text(String(a.decisive)),
      text(pct(a.decisive_agreement)),
    ]),
    new Set([2, 3, 4, 5, 6]),
  );
}

async function loadPlan(): Promise<void> {
  renderPlan(await api<Plan>("/api/admin/plan"));
}

async function loadAll(): Promise<void> {
  try {
    await Promise.all([loadRuns(), loadJudges(), loadModels(), loadAgreement(), loadPlan(), loadChatAdmin(api), loadTrust(api, say, () => void loadAll())]);
    document.body.dataset.state = "ready";
    byId("live").textContent = `updated ${new Date().toLocaleTimeString()}`;
  } catch (err) {
    if (err instanceof HTTPError && err.status === 401) {
      lock("That admin token was not accepted.");
      return;
    }
    say(`Could not load: ${(err as Error).message}`, true);
  }
}

async function setQuota(j: JudgeActivity, quota: number): Promise<void> {
  try {
    await api(`/api/admin/judges/${encodeURIComponent(j.judge_id)}`, { method: "PATCH", body: JSON.stringify({ quota }) });
    say(`Quota of ${j.name} set to ${quota || "no limit"}.`);
  } catch (err) {
    say(`Could not set the quota: ${(err as Error).message}`, true);
  }
}

async function revokeJudge(j: JudgeActivity): Promise<void> {
  if (!confirm(`Revoke ${j.name}'s invite? Their votes stay.`)) return;
  try {
    await api(`/api/admin/judges/${encodeURIComponent(j.judge_id)}`, { method: "DELETE" });
    say(`${j.name}'s invite is revoked.`);
    await loadJudges();
  } catch (err) {
    say(`Could not revoke: ${(err as Error).message}`, true);
  }
}

byId<HTMLFormElement>("invite-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  const name = byId<HTMLInputElement>("invite-name").value.trim();
  const quota = Number(byId<HTMLInputElement>("invite-quota").value || 0);
  try {
    const inv = await api<Invite>("/api/admin/judges", { method: "POST", body: JSON.stringify({ name, quota }) });
    byId("new-invite-name").textContent = inv.judge.name;
    byId<HTMLInputElement>("new-invite-url").value = inv.url;
    byId("new-invite").hidden = false;
    byId<HTMLInputElement>("invite-name").value = "";
    say(`Invite for ${inv.judge.name} created.`);
    await loadJudges();
  } catch (err) {
    say(`Could not create the invite: ${(err as Error).message}`, true);
  }
});

byId("copy").addEventListener("click", async () => {
  const input = byId<HTMLInputElement>("new-invite-url");
  input.select();
  try {
    await navigator.clipboard.writeText(input.value);
    say("Link copied.");
  } catch {
    say("Select the link and copy it.");
  }
});

// The battles download needs the token, which a plain link cannot send: it
// is fetched, then saved from memory.
byId("dl-battles").addEventListener("click", async () => {
  const button = byId<HTMLButtonElement>("dl-battles");
  button.disabled = true;
  try {
    const resp = await fetch("/api/admin/battles.jsonl", { cache: "no-store", headers: { Authorization: `Bearer ${token}` } });
    if (!resp.ok) throw new HTTPError(resp.status, resp.statusText);
    const blob = await resp.blob();
    const a = el("a");
    a.href = URL.createObjectURL(blob);
    a.download = "battles.jsonl";
    a.click();
    window.setTimeout(() => URL.revokeObjectURL(a.href), 60_000);
    button.dataset.bytes = String(blob.size);
    say(`battles.jsonl downloaded (${blob.size} bytes).`);
  } catch (err) {
    if (err instanceof HTTPError && err.status === 401) lock("That admin token was not accepted.");
    else say(`Could not download the battles: ${(err as Error).message}`, true);
  } finally {
    button.disabled = false;
  }
});

let unsubscribe: (() => void) | undefined;
let poll = 0;

function unlock(): void {
  byId("panels").hidden = false;
  byId("forget").hidden = false;
  tokenInput.value = "";
  say("");
  void loadAll();
  // Votes arrive as events; a run's generations are polled, since a
  // `ringside run` in another process sends none.
  unsubscribe ??= subscribeChanges(
    () => void loadAll(),
    (s) => (byId("live").className = `live ${s === "live" ? "on" : s}`),
  );
  poll ||= window.setInterval(() => {
    if (!document.hidden) void loadRuns().catch(() => {});
  }, 3000);
}

function lock(msg: string): void {
  token = "";
  sessionStorage.removeItem(TOKEN_KEY);
  byId("panels").hidden = true;
  byId("forget").hidden = true;
  document.body.dataset.state = "locked";
  unsubscribe?.();
  unsubscribe = undefined;
  byId("live").className = "live";
  clearInterval(poll);
  poll = 0;
  say(msg, msg !== "");
}

byId<HTMLFormElement>("token-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  token = tokenInput.value.trim();
  try {
    await api("/api/admin/whoami");
    sessionStorage.setItem(TOKEN_KEY, token);
    unlock();
  } catch (err) {
    lock(err instanceof HTTPError && err.status === 401 ? "That admin token was not accepted." : (err as Error).message);
  }
});
byId("forget").addEventListener("click", () => lock(""));

if (token) unlock();
