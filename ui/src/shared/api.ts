// The JSON the leaderboard API returns (server/leaderboard.go), which is
// the leaderboard JSON of docs/formats.md with its optional parts.

export interface Perf {
  ttft_p50_ms?: number;
  ttft_p95_ms?: number;
  latency_p50_ms?: number;
  latency_p95_ms?: number;
  output_tokens_per_s?: number;
  cost_per_battle_usd?: number;
  cost_per_1k_responses_usd?: number;
  error_rate?: number;
  responses?: number;
}

export interface Counts {
  battles: number;
  wins: number;
  losses: number;
  ties: number;
  win_rate: number;
}

export interface ModelRating extends Counts, Perf {
  model: string;
  rating: number;
  ci_low: number | null;
  ci_high: number | null;
  rank: number;
  ci_unbounded?: "low" | "high" | "both";
  // A controlled board's plain fit (see docs/style-control.md).
  uncontrolled_rating?: number;
  uncontrolled_rank?: number;
}

export interface Coefficient {
  name: string;
  value: number;
  ci_low: number | null;
  ci_high: number | null;
}

export interface FlaggedModel extends Counts, Perf {
  model: string;
  reason: string;
  detail: string;
}

export interface Matrix {
  models: string[];
  win_rate: (number | null)[][];
  battles: number[][];
}

export interface Board {
  method: { bootstrap_rounds: number; interval: string; ci: number; controls?: string[]; judges?: string; weighting?: string };
  coefficients?: Coefficient[];
  battles: number;
  // Whose votes count (docs/api.md): the votes behind the battles, and
  // those of flagged or excluded judges left out.
  counted_votes?: number;
  excluded_votes?: number;
  excluded_judge_count?: number;
  models: ModelRating[];
  flagged?: FlaggedModel[];
  matrix?: Matrix;
  notes?: string[];
  by?: string;
  slices?: Record<string, Board>;
}

export interface PassStats {
  model: string;
  prompts: number;
  samples: number;
  k: number;
  pass_rate: number;
  pass_all_k: number;
  pass_at_k: number;
}

export interface Report extends Board {
  pass?: Record<string, PassStats[]>;
  votes: number;
  dimensions: string[];
}

export class HTTPError extends Error {
  constructor(
    readonly status: number,
    message: string,
    // retryAfter is the Retry-After of a 429, in seconds.
    readonly retryAfter?: number,
  ) {
    super(message);
  }
}

// getJSON fetches a JSON answer; the server's errors carry {error: {message}}.
export async function getJSON<T>(url: string, init?: RequestInit): Promise<T> {
  const resp = await fetch(url, { cache: "no-store", ...init });
  if (!resp.ok) {
    let msg = resp.statusText;
    try {
      msg = (await resp.json()).error.message ?? msg;
    } catch {
      // not JSON: keep the status text
    }
    const retry = Number(resp.headers.get("Retry-After") ?? "");
    throw new HTTPError(resp.status, msg, retry > 0 ? retry : undefined);
  }
  if (resp.status === 204) return undefined as T;
  return (await resp.json()) as T;
}
