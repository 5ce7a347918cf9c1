// A generation's check results as a list: pass or fail, which check, why.
import { el, usd } from "../shared/dashboard";

export interface CheckResult {
  judge_id: string;
  source: string;
  index: number;
  type: string;
  dimension?: string;
  pass: boolean;
  detail: string;
  cost_usd?: number;
}

export function checksView(checks: CheckResult[]): HTMLElement {
  const ul = el("ul", "checks");
  for (const r of checks) {
    const name = `${r.source === "default" ? "defaults" : "checks"}[${r.index}] ${r.type}`;
    const cost = r.cost_usd ? ` (${usd(r.cost_usd)})` : "";
    ul.append(el("li", r.pass ? "pass" : "fail", `${name}: ${r.detail}${cost}`));
  }
  return ul;
}
