// The admin page's plan panel: how many more votes the decision needs
// (GET /api/admin/plan, `ringside plan`), and the boundaries still open.
import { byId, el, fmt } from "../shared/dashboard";

export interface Boundary {
  upper: string;
  lower: string;
  margin: number;
}

export interface Plan {
  votes: number;
  from_prior: boolean;
  models: number;
  focus_top: number;
  pairing: string;
  separated: boolean;
  likely: number;
  median: number;
  low: number;
  high: number;
  sims: number;
  undecided: Boundary[] | null;
}

const votes = (n: number) => (n < 0 ? "more than simulated" : fmt(n));

// renderPlan fills the #plan panel.
export function renderPlan(p: Plan): void {
  const focus = p.focus_top > 0 ? `the top ${p.focus_top}` : "the whole ranking";
  const head = el("p", "plan-head");
  if (p.separated) {
    head.textContent = `Decided: ${focus} are separated after ${fmt(p.votes)} votes.`;
  } else {
    const from = p.from_prior ? "from a prior (no votes yet)" : `from ${fmt(p.votes)} votes`;
    head.textContent =
      `About ${votes(p.likely)} more votes to separate ${focus} ` +
      `(median ${votes(p.median)}, 80% interval ${votes(p.low)} to ${votes(p.high)}), ${from}, ${p.pairing} pairing.`;
  }
  const list = el("ul", "plan-undecided");
  for (const b of p.undecided ?? []) {
    list.append(el("li", "", `${b.upper} vs ${b.lower}: intervals overlap by ${fmt(-b.margin)} points`));
  }
  byId("plan").replaceChildren(head, list);
  byId("plan").dataset.likely = String(p.likely);
  byId("plan").dataset.median = String(p.median);
}
