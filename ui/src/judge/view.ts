// The judge page's DOM: every write to the page goes through here. Model
// output is only ever inserted through renderMarkdown; everything else the
// server sends is inserted as text.
import { renderMarkdown } from "../shared/markdown";
import type { Message, Progress, Revealed, Side, Winner } from "./protocol";

function el<T extends HTMLElement>(id: string): T {
  const e = document.getElementById(id);
  if (!e) throw new Error(`judge page: no #${id}`);
  return e as T;
}

export const dom = {
  who: el("who"),
  progressBox: el("progress-box"),
  progress: el<HTMLProgressElement>("progress"),
  progressLabel: el("progress-label"),
  status: el("status"),
  arena: el("arena"),
  turns: el("turns"),
  content: { a: el("content-a"), b: el("content-b") } as Record<Side, HTMLElement>,
  paneState: { a: el("state-a"), b: el("state-b") } as Record<Side, HTMLElement>,
  pane: { a: el("pane-a"), b: el("pane-b") } as Record<Side, HTMLElement>,
  voteButtons: Array.from(document.querySelectorAll<HTMLButtonElement>("button[data-winner]")),
  more: el<HTMLDetailsElement>("more"),
  dims: el<HTMLTableElement>("dims"),
  reason: el<HTMLTextAreaElement>("reason"),
  skip: el<HTMLButtonElement>("skip"),
  next: el<HTMLButtonElement>("next"),
  change: el<HTMLButtonElement>("change"),
  finish: el<HTMLButtonElement>("finish"),
  reveal: el("reveal"),
  done: el("done"),
  doneTitle: el("done-title"),
  reveals: el<HTMLTableElement>("reveals"),
  again: el<HTMLButtonElement>("again"),
};

export type PageState = "connecting" | "idle" | "asking" | "streaming" | "open" | "voting" | "voted" | "done" | "stopped";

/** setState records the page state on <body> (styles and tests read it). */
export function setState(s: PageState): void {
  document.body.dataset.state = s;
}

export function setStatus(text: string, warn = false): void {
  dom.status.textContent = text;
  dom.status.classList.toggle("warn", warn);
}

export function showProgress(p: Progress): void {
  dom.progressBox.hidden = false;
  if (p.quota > 0) {
    dom.progress.hidden = false;
    dom.progress.max = p.quota;
    dom.progress.value = Math.min(p.done, p.quota);
    dom.progressLabel.textContent = `${p.done} / ${p.quota}`;
  } else {
    dom.progress.hidden = true;
    dom.progressLabel.textContent = `${p.done} voted`;
  }
}

/** showPrompt lists the turns; a system prompt starts folded. */
export function showPrompt(messages: Message[]): void {
  dom.turns.replaceChildren(
    ...messages.map((m) => {
      const li = document.createElement("li");
      li.className = m.role;
      const role = document.createElement("span");
      role.className = "role";
      role.textContent = m.role;
      if (m.role === "system") {
        const d = document.createElement("details");
        const s = document.createElement("summary");
        s.append(role);
        d.append(s, document.createTextNode(m.content));
        li.append(d);
      } else {
        li.append(role, document.createTextNode(m.content));
      }
      return li;
    }),
  );
}

/** showDimensions builds one row of choices per configured dimension. */
export function showDimensions(dims: string[]): void {
  const choices: [Winner, string][] = [["a", "A"], ["b", "B"], ["tie", "tie"], ["bothbad", "both bad"]];
  dom.more.hidden = dims.length === 0;
  dom.dims.replaceChildren(
    ...dims.map((dim) => {
      const tr = document.createElement("tr");
      const name = document.createElement("td");
      name.textContent = dim.replace(/_/g, " ");
      tr.append(name);
      for (const [value, label] of choices) {
        const td = document.createElement("td");
        const l = document.createElement("label");
        const input = document.createElement("input");
        input.type = "radio";
        input.name = `dim-${dim}`;
        input.value = value;
        input.dataset.dim = dim;
        l.append(input, ` ${label}`);
        td.append(l);
        tr.append(td);
      }
      return tr;
    }),
  );
}

/** chosenDimensions returns the dimensions the judge picked a winner for. */
export function chosenDimensions(): Record<string, Winner> | undefined {
  const out: Record<string, Winner> = {};
  let any = false;
  dom.dims.querySelectorAll<HTMLInputElement>("input:checked").forEach((i) => {
    if (i.dataset.dim) {
      out[i.dataset.dim] = i.value as Winner;
      any = true;
    }
  });
  return any ? out : undefined;
}

/** renderPane shows a side's text so far, as sanitized Markdown. */
export function renderPane(side: Side, text: string): void {
  dom.content[side].innerHTML = renderMarkdown(text);
}

export function setPaneState(side: Side, text: string, failed = false): void {
  dom.paneState[side].textContent = text;
  dom.pane[side].classList.toggle("failed", failed);
}

export function enableVoting(on: boolean): void {
  for (const b of dom.voteButtons) b.disabled = !on;
}

export function markChoice(w: Winner | null): void {
  for (const b of dom.voteButtons) b.classList.toggle("chosen", b.dataset.winner === w);
}

/** resetBattle clears the panes and the vote for a new battle. */
export function resetBattle(): void {
  for (const side of ["a", "b"] as Side[]) {
    dom.content[side].replaceChildren();
    setPaneState(side, "waiting…");
  }
  markChoice(null);
  enableVoting(false);
  dom.reason.value = "";
  dom.dims.querySelectorAll<HTMLInputElement>("input").forEach((i) => (i.checked = false));
  dom.more.open = false;
  dom.reveal.hidden = true;
  dom.next.hidden = true;
  dom.change.hidden = true;
  dom.skip.hidden = false;
  dom.arena.hidden = false;
  dom.done.hidden = true;
}

/** showReveal shows the recorded vote (with the models under after_vote);
 * changeable offers to change it, which the server allows only while the
 * models have not been shown. */
export function showReveal(reveal: { a: string; b: string } | undefined, winner: Winner, changeable = false): void {
  const words: Record<Winner, string> = { a: "A is better", b: "B is better", tie: "a tie", bothbad: "both bad" };
  dom.reveal.hidden = false;
  dom.reveal.textContent = reveal
    ? `Recorded: ${words[winner]}. A was ${reveal.a}; B was ${reveal.b}.`
    : `Recorded: ${words[winner]}.`;
  dom.next.hidden = false;
  dom.change.hidden = !changeable;
  dom.skip.hidden = true;
}

export function showDone(title: string, reveals: Revealed[] | undefined, canContinue: boolean): void {
  dom.arena.hidden = true;
  dom.done.hidden = false;
  dom.doneTitle.textContent = title;
  const body = dom.reveals.tBodies[0];
  body.replaceChildren();
  dom.reveals.hidden = !reveals || reveals.length === 0;
  reveals?.forEach((r, i) => {
    const tr = document.createElement("tr");
    for (const cell of [`#${reveals.length - i}`, r.a, r.b, r.winner]) {
      const td = document.createElement("td");
      td.textContent = cell;
      tr.append(td);
    }
    body.append(tr);
  });
  dom.again.hidden = !canContinue;
}
