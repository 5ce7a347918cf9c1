// Live updates for the leaderboard and admin pages: the server's event
// stream (/api/events) says when votes or generations changed. EventSource
// reconnects by itself; the callback is told of every change, and once more
// after a reconnection, since changes may have been missed meanwhile.

export type LiveState = "live" | "reconnecting";

export function subscribeChanges(onChange: () => void, onState: (s: LiveState) => void): () => void {
  const es = new EventSource("/api/events");
  let lost = false;
  es.addEventListener("hello", () => {
    onState("live");
    if (lost) onChange();
    lost = false;
  });
  es.addEventListener("votes", () => onChange());
  es.onerror = () => {
    lost = true;
    onState("reconnecting");
  };
  return () => es.close();
}

// cspViolations counts what the Content-Security-Policy blocked on this
// page, in document.body.dataset.csp, so that browser tests can assert that
// nothing was (a chart library that injects a <style> would show here).
export function watchCSP(): void {
  let n = 0;
  document.body.dataset.csp = "0";
  document.addEventListener("securitypolicyviolation", (e) => {
    n++;
    document.body.dataset.csp = String(n);
    console.warn("CSP blocked", e.violatedDirective, e.blockedURI);
  });
}

// el creates an element with a class and text; the pages build their DOM
// with it rather than innerHTML, so data never becomes markup.
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  cls?: string,
  text?: string,
): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const e = document.getElementById(id);
  if (!e) throw new Error(`#${id} missing`);
  return e as T;
}

export function fmt(x: number | null | undefined, digits = 0): string {
  return x == null || !Number.isFinite(x) ? "–" : x.toFixed(digits);
}

export function pct(x: number | null | undefined, digits = 1): string {
  return x == null ? "–" : `${(100 * x).toFixed(digits)}%`;
}

export function ms(x: number | null | undefined): string {
  if (x == null) return "–";
  return x >= 1000 ? `${(x / 1000).toFixed(2)} s` : `${Math.round(x)} ms`;
}

export function usd(x: number | null | undefined): string {
  if (x == null) return "–";
  return x >= 10 ? `$${x.toFixed(0)}` : x >= 0.1 ? `$${x.toFixed(2)}` : `$${x.toPrecision(2)}`;
}
