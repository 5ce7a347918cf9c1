// The frames of /ws/judge, as docs/protocol.md describes them.

export type Side = "a" | "b";
export type Winner = "a" | "b" | "tie" | "bothbad";

export interface Progress {
  done: number;
  quota: number; // 0: no quota
}

export interface Message {
  role: "system" | "user" | "assistant";
  content: string;
}

export interface Hello {
  type: "hello";
  judge: string;
  anonymous?: boolean;
  progress: Progress;
  dimensions: string[];
  reveal_policy: "after_vote" | "after_session" | "never";
}

export interface Battle {
  type: "battle";
  battle_id: string;
  messages: Message[];
  dimensions: string[];
  progress: Progress;
  resumed?: boolean;
  chat?: ChatView; // chat battles only
}

/** A chat battle's turns: the current one, and the finished ones before it. */
export interface ChatView {
  turn: number;
  max_turns: number;
  earlier: { question: string; a: string; b: string }[];
}

/** Chat: the judge writes the question (draft: one to try again). */
export interface ChatOffer {
  type: "chat";
  dimensions: string[];
  progress: Progress;
  max_prompt_chars: number;
  max_turns: number;
  draft?: string;
}

/** Turn: a follow-up turn starts; the deltas that follow are its answers. */
export interface Turn {
  type: "turn";
  battle_id: string;
  turn: number;
  question: string;
}

export interface Suggestion {
  type: "suggestion";
  text: string;
}

export interface Delta {
  type: "delta";
  battle_id: string;
  side: Side;
  text: string;
}

export interface End {
  type: "end";
  battle_id: string;
  side: Side;
  error?: string;
  void?: boolean;
}

export interface Open {
  type: "open";
  battle_id: string;
}

export interface Voted {
  type: "voted";
  battle_id: string;
  winner: Winner;
  dimensions?: Record<string, Winner>;
  duplicate?: boolean;
  reveal?: { a: string; b: string };
  progress: Progress;
  changeable?: boolean; // the vote may still be changed (never after a reveal)
  corrected?: boolean; // this acknowledges a change
  turn?: number; // chat battles: the turn voted at
}

export interface Revealed {
  battle_id: string;
  a: string;
  b: string;
  winner: Winner;
}

export interface Done {
  type: "done";
  reason: "quota" | "empty" | "finished";
  progress: Progress;
  reveals?: Revealed[];
}

export interface ErrorFrame {
  type: "error";
  code: string;
  message: string;
  battle_id?: string;
}

export type ServerFrame = Hello | Battle | Delta | End | Open | Voted | Done | ErrorFrame | ChatOffer | Turn | Suggestion;

export type JudgeFrame =
  | { type: "next" }
  | { type: "finish" }
  | { type: "skip"; battle_id: string }
  | { type: "ask"; text: string }
  | { type: "follow_up"; battle_id: string; text: string }
  | { type: "suggest" }

  | {
      type: "vote";
      battle_id: string;
      winner: Winner;
      dimensions?: Record<string, Winner>;
      reason?: string;
      correction?: boolean;
    };

// Close codes the page acts on (the others mean: reconnect).
export const CLOSE_UNAUTHORIZED = 4001;
export const CLOSE_REPLACED = 4002;
