// A websocket to /ws/judge that reconnects by itself, with a growing,
// jittered delay, except when the server says reconnecting is pointless
// (no valid invite, or the judge opened the page elsewhere).
import { CLOSE_REPLACED, CLOSE_UNAUTHORIZED, type JudgeFrame, type ServerFrame } from "./protocol";

export interface SocketEvents {
  onOpen(): void;
  onFrame(f: ServerFrame): void;
  /** stopped is set when the socket will not reconnect by itself. */
  onClose(code: number, reason: string, stopped: boolean): void;
}

export class JudgeSocket {
  private ws: WebSocket | null = null;
  private attempt = 0;
  private timer: number | undefined;
  private stopped = false;

  constructor(
    private readonly url: string,
    private readonly events: SocketEvents,
  ) {}

  connect(): void {
    this.stopped = false;
    window.clearTimeout(this.timer);
    const ws = new WebSocket(this.url);
    this.ws = ws;
    ws.onopen = () => {
      this.attempt = 0;
      this.events.onOpen();
    };
    ws.onmessage = (ev) => {
      if (typeof ev.data !== "string") return;
      let frame: ServerFrame;
      try {
        frame = JSON.parse(ev.data) as ServerFrame;
      } catch {
        return;
      }
      this.events.onFrame(frame);
    };
    ws.onclose = (ev) => {
      if (this.ws !== ws) return;
      this.ws = null;
      const final = this.stopped || ev.code === CLOSE_UNAUTHORIZED || ev.code === CLOSE_REPLACED;
      this.events.onClose(ev.code, ev.reason, final);
      if (!final) this.retry();
    };
  }

  send(frame: JudgeFrame): boolean {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return false;
    this.ws.send(JSON.stringify(frame));
    return true;
  }

  private retry(): void {
    const base = Math.min(10_000, 500 * 2 ** this.attempt);
    this.attempt++;
    this.timer = window.setTimeout(() => this.connect(), base / 2 + Math.random() * (base / 2));
  }
}

/** judgeSocketURL is /ws/judge on this page's host; the cookie names the judge. */
export function judgeSocketURL(loc: Location): string {
  const scheme = loc.protocol === "https:" ? "wss:" : "ws:";
  return `${scheme}//${loc.host}/ws/judge`;
}
