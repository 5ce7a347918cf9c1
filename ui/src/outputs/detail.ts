// One answer in full: the prompt's conversation, the answer, its checks,
// and the battles it was in with every vote. Everything a model or a prompt
// file wrote goes through renderMarkdown; names and reasons are text.
import { byId, el, ms, usd } from "../shared/dashboard";
import { renderMarkdown } from "../shared/markdown";
import { checksView, type CheckResult } from "./checks";

interface Message {
  role: string;
  content: string;
}

interface Vote {
  judge_name: string;
  judge_kind: string;
  winner: string;
  dimensions?: Record<string, string>;
  reason?: string;
  created_at: string;
}

export interface Detail {
  run: string;
  generation: {
    id: string;
    model: string;
    sample: number;
    output: string;
    latency_ms: number;
    ttft_ms: number;
    tokens_in: number;
    tokens_out: number;
    cost_usd: number;
    error_kind?: string;
    error?: string;
  };
  prompt: { id: string; messages: Message[]; reference?: string } | null;
  checks: (CheckResult & { judge_name: string })[];
  battles: { battle_id: string; side: string; opponent: string; votes: Vote[] }[];
}

function turn(role: string, markdown: string, cls = "turn"): HTMLElement {
  const t = el("div", cls);
  const body = el("div", "md");
  body.innerHTML = renderMarkdown(markdown); // sanitized: see markdown.ts
  t.append(el("div", "role", role), body);
  return t;
}

// verdict says a vote's winner from the answer's side of the battle.
function verdict(v: Vote, side: string): string {
  if (v.winner === "tie" || v.winner === "bothbad") return v.winner === "tie" ? "tie" : "both bad";
  return v.winner === side ? "this answer won" : "the other answer won";
}

export function renderDetail(d: Detail): void {
  const g = d.generation;
  byId("detail-h").textContent = `${g.model} on ${d.prompt?.id ?? "(prompt gone)"}${g.sample ? `, sample ${g.sample}` : ""}`;
  const body = byId("detail-body");
  const parts: HTMLElement[] = [];
  parts.push(
    el(
      "p",
      "meta",
      `run ${d.run || "–"} · first token ${ms(g.ttft_ms)} · total ${ms(g.latency_ms)} · ${g.tokens_in} tokens in, ${g.tokens_out} out · ${usd(g.cost_usd)}`,
    ),
  );
  for (const m of d.prompt?.messages ?? []) parts.push(turn(m.role, m.content));
  if (g.error_kind) parts.push(el("p", "error", `The generation failed (${g.error_kind}): ${g.error ?? ""}`));
  else parts.push(turn(`${g.model} (this answer)`, g.output, "turn answer-turn"));
  if (d.prompt?.reference) parts.push(turn("reference", d.prompt.reference));
  parts.push(el("h3", "", "Checks"));
  parts.push(d.checks.length ? checksView(d.checks) : el("p", "meta", "No check results: `ringside judge` runs the checks."));
  parts.push(el("h3", "", "Battles and votes"));
  if (d.battles.length === 0) parts.push(el("p", "meta", "This answer was in no battle."));
  for (const b of d.battles) {
    const div = el("div", "battle");
    div.dataset.battle = b.battle_id;
    div.append(el("div", "", `against ${b.opponent} (this answer was side ${b.side})`));
    if (b.votes.length === 0) div.append(el("div", "meta", "no votes yet"));
    const ul = el("ul");
    for (const v of b.votes) {
      const dims = Object.entries(v.dimensions ?? {})
        .map(([k, w]) => `${k}: ${w}`)
        .join(", ");
      const reason = v.reason ? ` — ${v.reason}` : "";
      ul.append(el("li", "vote", `${v.judge_name} (${v.judge_kind}): ${verdict(v, b.side)}${dims ? ` [${dims}]` : ""}${reason}`));
    }
    div.append(ul);
    parts.push(div);
  }
  body.replaceChildren(...parts);
}
