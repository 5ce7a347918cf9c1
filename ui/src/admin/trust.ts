// The judges' report on the admin page (GET /api/admin/trust): per judge
// its agreement with the others, position bias, vote time, gold accuracy,
// flags with their reasons, and whether boards leave its votes out, with
// buttons to exclude or include a judge by hand (a reason is required, and
// the choice is stored and logged) or to let the flags decide again.
import { el, fmt, pct } from "../shared/dashboard";

interface Gold {
  battles: number;
  correct: number;
  accuracy: number;
  ci_low: number;
  ci_high: number;
}

interface TrustJudge {
  judge: string;
  votes: number;
  shared: number;
  majority_agreement: number | null;
  ab_votes: number;
  left_share: number | null;
  left_p: number | null;
  median_vote_seconds: number | null;
  gold: Gold | null;
  flagged: boolean;
  reasons: string[];
  excluded: boolean;
  override?: "excluded" | "included";
}

interface Pair {
  a: string;
  b: string;
  shared: number;
  agreement: number;
  kappa: number | null;
}

interface Report {
  judges: TrustJudge[];
  pairs: Pair[];
  alpha: number | null;
  alpha_battles: number;
}

type API = <T>(path: string, init?: RequestInit) => Promise<T>;

// loadTrust fetches the report and fills #trust, #trust-pairs and
// #trust-alpha; reload is called after an admin's choice.
export async function loadTrust(api: API, say: (msg: string, warn?: boolean) => void, reload: () => void): Promise<void> {
  const rep = await api<Report>("/api/admin/trust");
  const reason = document.getElementById("trust-reason") as HTMLInputElement;
  const choose = async (j: TrustJudge, excluded: boolean | null) => {
    if (excluded !== null && reason.value.trim() === "") {
      say(`Give a reason to ${excluded ? "exclude" : "include"} ${j.judge}: it is stored with the choice.`, true);
      reason.focus();
      return;
    }
    try {
      await api("/api/admin/trust/exclusions", {
        method: "POST",
        body: JSON.stringify({ judge: j.judge, excluded, reason: reason.value.trim() }),
      });
      reason.value = "";
      say(excluded === null ? `${j.judge}: the flags decide again.` : `${j.judge} ${excluded ? "excluded" : "included"}.`);
      reload();
    } catch (err) {
      say(`Could not change ${j.judge}: ${(err as Error).message}`, true);
    }
  };
  const head = ["judge", "votes", "shared", "with majority", "side a (p)", "median s", "gold", "flags", "counted", ""];
  const rows = rep.judges.map((j) => {
    const gold = j.gold ? `${j.gold.correct}/${j.gold.battles} [${pct(j.gold.ci_low, 0)}, ${pct(j.gold.ci_high, 0)}]` : "–";
    const left = j.left_share == null ? "–" : `${pct(j.left_share, 0)} (${j.left_p == null ? "–" : j.left_p.toPrecision(2)})`;
    const flags = el("span", j.flagged ? "warn" : "", j.reasons.length ? j.reasons.join("; ") : "–");
    const counted = `${j.excluded ? "excluded" : "counted"}${j.override ? " (by hand)" : ""}`;
    const actions = el("span");
    const button = (label: string, v: boolean | null) => {
      const b = el("button", "quiet", label);
      b.type = "button";
      b.dataset.action = label;
      b.addEventListener("click", () => void choose(j, v));
      actions.append(b, " ");
    };
    if (!j.excluded) button("Exclude", true);
    if (j.excluded) button("Include", false);
    if (j.override) button("Auto", null);
    return [j.judge, String(j.votes), String(j.shared), pct(j.majority_agreement, 0), left, fmt(j.median_vote_seconds, 1), gold, flags, counted, actions];
  });
  fill("trust", head, rows, (r, i) => {
    r.dataset.judge = rep.judges[i].judge;
    r.dataset.excluded = String(rep.judges[i].excluded);
    r.dataset.flagged = String(rep.judges[i].flagged);
  });
  fill(
    "trust-pairs",
    ["judge", "judge", "shared", "agreement", "kappa"],
    rep.pairs.map((p) => [p.a, p.b, String(p.shared), pct(p.agreement, 0), fmt(p.kappa, 2)]),
  );
  document.getElementById("trust-alpha")!.textContent =
    `Krippendorff's alpha (nominal) over ${rep.alpha_battles} battles with two or more votes: ${fmt(rep.alpha, 3)}`;
}

function fill(id: string, head: string[], rows: (string | Node)[][], mark?: (r: HTMLTableRowElement, i: number) => void): void {
  const t = document.getElementById(id) as HTMLTableElement;
  const tr = el("tr");
  head.forEach((h) => tr.append(el("th", "", h)));
  const thead = el("thead");
  thead.append(tr);
  const tbody = el("tbody");
  rows.forEach((r, i) => {
    const row = el("tr");
    for (const cell of r) {
      const td = el("td");
      td.append(cell);
      row.append(td);
    }
    mark?.(row, i);
    tbody.append(row);
  });
  if (rows.length === 0) {
    const row = el("tr");
    const td = el("td", "", "nothing yet");
    td.colSpan = head.length;
    row.append(td);
    tbody.append(row);
  }
  t.replaceChildren(thead, tbody);
}
