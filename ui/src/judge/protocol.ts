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

export type ServerFrame = Hello | Battle | Delta | End | Open | Voted | Done | ErrorFrame;

export type JudgeFrame =
  | { type: "next" }
  | { type: "finish" }
  | { type: "skip"; battle_id: string }
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
