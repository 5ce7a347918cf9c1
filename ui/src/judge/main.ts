// The judge page: one battle at a time from /ws/judge, two panes streaming,
// a vote by button or key. The server decides everything that matters
// (what is dealt, when voting opens, what is revealed); the page shows it
// and reconnects by itself, and the server resumes the battle.
import "./judge.css";
import type { Battle, Done, ServerFrame, Side, Voted, Winner } from "./protocol";
import { CLOSE_REPLACED, CLOSE_UNAUTHORIZED } from "./protocol";
import { JudgeSocket, judgeSocketURL } from "./socket";
import { closeChat, initChat, offer, opened, paneText, startChat, suggestion, turn } from "./chat";
import {
  chosenDimensions,
  dom,
  enableVoting,
  markChoice,
  type PageState,
  renderPane,
  resetBattle,
  setPaneState,
  setState,
  setStatus,
  showDimensions,
  showDone,
  showProgress,
  showPrompt,
  showReveal,
} from "./view";

let state: PageState = "connecting";
let battleId = "";
// correcting: the vote being chosen replaces the judge's last one.
let correcting = false;
const text: Record<Side, string> = { a: "", b: "" };
const dirty = new Set<Side>();
let frame = 0;

function go(s: PageState): void {
  state = s;
  setState(s);
}

const socket = new JudgeSocket(judgeSocketURL(window.location), {
  onOpen() {
    setStatus("Connected.");
    // After a vote the judge may be reading the reveal, and after `done`
    // there is nothing to ask for; otherwise ask for the battle, which
    // resumes the one being shown.
    if (state !== "voted" && state !== "done") ask();
  },
  onFrame: handle,
  onClose(code, reason, stopped) {
    if (code === CLOSE_UNAUTHORIZED) {
      go("stopped");
      setStatus("This page needs a valid invite link. Ask the organiser for one.", true);
    } else if (code === CLOSE_REPLACED) {
      go("stopped");
      setStatus("This judge opened the page somewhere else. Reload to judge here.", true);
    } else if (!stopped) {
      setStatus(`Connection lost${reason ? ` (${reason})` : ""}; reconnecting…`, true);
    }
  },
});

function ask(): void {
  if (socket.send({ type: "next" })) setStatus("Waiting for a battle…");
}

function handle(f: ServerFrame): void {
  switch (f.type) {
    case "hello":
      dom.who.textContent = f.anonymous ? "anonymous judge" : `judging as ${f.judge}`;
      showProgress(f.progress);
      showDimensions(f.dimensions);
      if (state === "connecting") go("idle");
      break;
    case "battle":
      startBattle(f);
      break;
    case "chat":
      offer(f);
      battleId = "";
      go("asking");
      break;
    case "suggestion":
      suggestion(f.text);
      break;
    case "turn":
      if (f.battle_id !== battleId) return;
      turn(f, text);
      text.a = "";
      text.b = "";
      enableVoting(false);
      for (const s of ["a", "b"] as Side[]) setPaneState(s, "waiting…");
      go("streaming");
      setStatus("Read both answers to your follow-up as they arrive.");
      break;
    case "delta":
      if (f.battle_id !== battleId) return;
      text[f.side] += f.text;
      setPaneState(f.side, "writing…");
      schedule(f.side);
      break;
    case "end":
      if (f.battle_id !== battleId) return;
      if (f.void) {
        setPaneState(f.side, "failed", true);
        setStatus(f.error ?? "This battle is void.", true);
        enableVoting(false);
        return;
      }
      setPaneState(f.side, "done");
      break;
    case "open":
      if (f.battle_id !== battleId || state !== "streaming") return;
      go("open");
      enableVoting(true);
      opened();
      setStatus("Which response is better? Vote with the buttons or keys 1–4.");
      break;
    case "voted":
      voted(f);
      break;
    case "done":
      done(f);
      break;
    case "error":
      if (state === "voting" && correcting) {
        // The change was refused (the window closed): the vote stands.
        correcting = false;
        go("voted");
        dom.change.hidden = true;
        dom.next.hidden = false;
      } else if (state === "voting") {
        // The vote was refused: the judge may vote again.
        go("open");
        markChoice(null);
        enableVoting(true);
      }
      setStatus(f.message, true);
      break;
  }
}

function startBattle(b: Battle): void {
  battleId = b.battle_id;
  text.a = "";
  text.b = "";
  resetBattle();
  showPrompt(b.messages);
  startChat(b);
  schedule("a");
  schedule("b");
  showProgress(b.progress);
  go("streaming");
  setStatus(b.resumed ? "Resumed where you were." : "Read both responses as they arrive.");
}

// Markdown is re-rendered at most once a frame, however fast deltas come.
function schedule(side: Side): void {
  dirty.add(side);
  if (frame) return;
  frame = requestAnimationFrame(() => {
    frame = 0;
    for (const s of dirty) renderPane(s, paneText(s, text[s]));
    dirty.clear();
  });
}

function vote(w: Winner): void {
  if (state !== "open") return;
  const reason = dom.reason.value.trim();
  const sent = socket.send({
    type: "vote",
    battle_id: battleId,
    winner: w,
    dimensions: chosenDimensions(),
    reason: reason || undefined,
    correction: correcting || undefined,
  });
  if (!sent) {
    setStatus("Not connected; your vote was not sent. It will be possible again in a moment.", true);
    return;
  }
  markChoice(w);
  enableVoting(false);
  go("voting");
  setStatus("Saving your vote…");
}

function voted(v: Voted): void {
  if (v.battle_id !== battleId) return;
  closeChat();
  showProgress(v.progress);
  markChoice(v.winner);
  enableVoting(false);
  go("voted");
  correcting = false;
  if (v.duplicate) {
    setStatus("You had already voted on this battle; that vote stands.");
  } else if (v.changeable) {
    setStatus(`${v.corrected ? "Vote changed" : "Vote saved"}. You can change it until you go on to the next battle.`);
  } else {
    setStatus("Vote saved.");
  }
  if (v.reveal || v.changeable) {
    showReveal(v.reveal, v.winner, v.changeable);
  } else {
    // Nothing to read: straight on to the next battle.
    ask();
  }
}

function done(d: Done): void {
  showProgress(d.progress);
  go("done");
  const titles = {
    quota: "Thank you! You have judged every battle you were asked for.",
    empty: "There are no battles left to judge right now. Thank you!",
    finished: "Session ended. Thank you!",
  };
  showDone(titles[d.reason], d.reveals, d.reason !== "quota");
  setStatus("");
}

function skip(): void {
  if ((state === "streaming" || state === "open") && socket.send({ type: "skip", battle_id: battleId })) {
    setStatus("Skipped.");
  }
}

// change reopens voting on the battle just voted; the new vote is sent as
// a correction and replaces the old one once saved.
function change(): void {
  if (state !== "voted" || dom.change.hidden) return;
  correcting = true;
  dom.change.hidden = true;
  go("open");
  markChoice(null);
  enableVoting(true);
  setStatus("Choose again. Your earlier vote stands until the new one is saved.");
}

function next(): void {
  if (state === "voted" || (state === "open" && correcting)) {
    // Going on without changing: the vote stands.
    correcting = false;
    ask();
  }
}

for (const b of dom.voteButtons) {
  b.addEventListener("click", () => vote(b.dataset.winner as Winner));
}
dom.skip.addEventListener("click", skip);
dom.next.addEventListener("click", next);
dom.change.addEventListener("click", change);
dom.finish.addEventListener("click", () => socket.send({ type: "finish" }));
dom.again.addEventListener("click", () => {
  go("idle");
  ask();
});

const keys: Record<string, Winner> = { "1": "a", a: "a", "2": "b", b: "b", "3": "tie", t: "tie", "4": "bothbad", x: "bothbad" };

document.addEventListener("keydown", (ev) => {
  if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
  const t = ev.target as HTMLElement | null;
  if (t && (t.tagName === "TEXTAREA" || t.tagName === "INPUT" || t.isContentEditable)) return;
  const k = ev.key.toLowerCase();
  if (keys[k]) {
    vote(keys[k]);
  } else if (k === "s") {
    skip();
  } else if (k === "c") {
    change();
  } else if (k === "n" || k === "enter") {
    next();
  } else {
    return;
  }
  ev.preventDefault();
});

initChat((f) => socket.send(f));
socket.connect();
