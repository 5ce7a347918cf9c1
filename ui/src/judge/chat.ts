// Chat battles on the judge page: the judge writes the question (or asks
// for one), both answers stream as in any battle, and the judge may follow
// up until voting. Earlier turns stay in the panes above the current
// answers; the questions are listed as the prompt.
import type { Battle, ChatOffer, JudgeFrame, Message, Side, Turn } from "./protocol";
import { dom, resetBattle, setStatus, showPrompt, showProgress } from "./view";

function el<T extends HTMLElement>(id: string): T {
  const e = document.getElementById(id);
  if (!e) throw new Error(`judge page: no #${id}`);
  return e as T;
}

const form = el<HTMLFormElement>("ask-form");
const input = el<HTMLTextAreaElement>("ask-text");
const label = el("ask-label");
const count = el("ask-count");
const suggest = el<HTMLButtonElement>("ask-suggest");

/** The chat battle being shown, if any. */
const chat = {
  active: false,
  battleId: "",
  turn: 0,
  maxTurns: 0,
  maxChars: 0,
  questions: [] as string[],
  earlier: { a: [] as string[], b: [] as string[] },
};

let send: (f: JudgeFrame) => boolean = () => false;

/** initChat wires the question box to the socket. */
export function initChat(sender: (f: JudgeFrame) => boolean): void {
  send = sender;
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    submit();
  });
  input.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter" && (ev.ctrlKey || ev.metaKey)) {
      ev.preventDefault();
      submit();
    }
  });
  input.addEventListener("input", showCount);
  suggest.addEventListener("click", () => send({ type: "suggest" }));
}

function showCount(): void {
  count.textContent = chat.maxChars ? `${[...input.value].length} / ${chat.maxChars}` : "";
}

function submit(): void {
  const text = input.value.trim();
  if (!text) {
    setStatus("Write a question first.", true);
    return;
  }
  // The text stays in the box until the server takes it (a battle or a
  // turn), so a refusal or a void loses nothing.
  const sent = chat.active
    ? send({ type: "follow_up", battle_id: chat.battleId, text })
    : send({ type: "ask", text });
  if (sent) setStatus(chat.active ? "Asking both again…" : "Asking both…");
}

/** offer shows the question box for a new conversation. */
export function offer(o: ChatOffer): void {
  resetBattle();
  chat.active = false;
  chat.questions = [];
  chat.earlier = { a: [], b: [] };
  chat.maxChars = o.max_prompt_chars;
  chat.maxTurns = o.max_turns;
  showPrompt([]);
  showProgress(o.progress);
  dom.skip.hidden = true;
  label.textContent = "Your question";
  suggest.hidden = false;
  form.hidden = false;
  if (o.draft) input.value = o.draft;
  showCount();
  input.focus();
  setStatus(o.draft ? "That conversation failed; your question is still here to try again." : "Ask a question; two anonymous models answer side by side.", !!o.draft);
}

export function suggestion(text: string): void {
  input.value = text;
  showCount();
  input.focus();
}

/** startChat takes a chat battle: the turns so far and the current one. */
export function startChat(b: Battle): void {
  const v = b.chat;
  chat.active = !!v;
  form.hidden = true;
  if (!v) return;
  chat.battleId = b.battle_id;
  chat.turn = v.turn;
  chat.maxTurns = v.max_turns;
  chat.questions = [...v.earlier.map((e) => e.question), b.messages[b.messages.length - 1]?.content ?? ""];
  chat.earlier = { a: v.earlier.map((e) => e.a), b: v.earlier.map((e) => e.b) };
  input.value = "";
  showCount();
  showQuestions();
}

/** turn starts a follow-up: the answers so far move up in the panes. */
export function turn(t: Turn, shown: Record<Side, string>): void {
  if (!chat.active || t.battle_id !== chat.battleId) return;
  chat.earlier.a.push(shown.a);
  chat.earlier.b.push(shown.b);
  chat.turn = t.turn;
  chat.questions.push(t.question);
  input.value = "";
  showCount();
  form.hidden = true;
  showQuestions();
}

function showQuestions(): void {
  const msgs: Message[] = chat.questions.map((q) => ({ role: "user", content: q }));
  showPrompt(msgs);
}

/** paneText is what a pane shows: the earlier answers, then this turn's. */
export function paneText(side: Side, text: string): string {
  if (!chat.active || chat.earlier[side].length === 0) return text;
  return [...chat.earlier[side], text].join("\n\n---\n\n");
}

/** opened offers a follow-up once the answers are in, turns permitting. */
export function opened(): void {
  if (!chat.active) return;
  const more = chat.turn < chat.maxTurns;
  form.hidden = !more;
  suggest.hidden = true;
  label.textContent = `Follow up (turn ${chat.turn + 1} of ${chat.maxTurns}) — or vote`;
}

/** closeChat hides the box once the conversation is voted on. */
export function closeChat(): void {
  form.hidden = true;
  chat.active = false;
}

export function isChat(): boolean {
  return chat.active;
}
