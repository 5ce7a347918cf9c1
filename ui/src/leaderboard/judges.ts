// The line that says whose votes a board counts and what it left out.
import type { Board } from "../shared/api";

const names: Record<string, string> = { human: "people", auto: "automatic judges", all: "all judges" };

export function judgesLine(b: Board): string {
  const who = b.method.judges ?? "";
  if (!who) return "";
  let s = `Counts ${b.counted_votes ?? 0} votes of ${names[who] ?? who}`;
  const left = b.excluded_votes ?? 0;
  if (left > 0) {
    const n = b.excluded_judge_count ?? 0;
    s += `; ${left} votes of ${n} flagged or excluded judge${n === 1 ? "" : "s"} left out`;
  }
  return s + ".";
}
