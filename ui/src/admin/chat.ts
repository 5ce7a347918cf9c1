// The admin page's chat judging sections: the candidate pool dealt to
// people, and the harvest of judges' questions, each of which the admin
// may pick for `ringside export prompts --picked`.
import { byId, el } from "../shared/dashboard";

type Api = <T>(path: string, init?: RequestInit) => Promise<T>;

interface Pool {
  pool: { model: string; weight: number }[];
  sources: Record<string, number>;
  chat_set: string;
}

interface HarvestRow {
  id: string;
  text: string;
  category: string;
  kind: string;
  judges: number;
  picked: boolean;
}

function cell(row: HTMLTableRowElement, content: Node | string, cls = ""): void {
  const td = el("td", cls);
  td.append(content);
  row.append(td);
}

function head(t: HTMLTableElement, cols: string[]): void {
  const tr = el("tr");
  for (const c of cols) tr.append(el("th", "", c));
  const thead = el("thead");
  thead.append(tr);
  t.replaceChildren(thead);
}

/** loadChatAdmin fills the pool and harvest sections. */
export async function loadChatAdmin(api: Api): Promise<void> {
  const [pool, harvest] = await Promise.all([
    api<Pool>("/api/admin/pool"),
    api<{ set: string; prompts: HarvestRow[] }>("/api/admin/harvest"),
  ]);
  byId("pool-sources").textContent = Object.entries(pool.sources)
    .map(([s, w]) => `${s} ×${w}`)
    .join(", ");
  const pt = byId<HTMLTableElement>("pool");
  head(pt, ["Candidate", "Weight"]);
  const pb = el("tbody");
  for (const m of pool.pool) {
    const tr = el("tr");
    cell(tr, m.model);
    cell(tr, String(m.weight), "num");
    pb.append(tr);
  }
  pt.append(pb);

  byId("harvest-set").textContent = harvest.set;
  const ht = byId<HTMLTableElement>("harvest");
  head(ht, ["Pick", "Question", "Category", "Judges"]);
  const hb = el("tbody");
  for (const p of harvest.prompts) {
    const tr = el("tr");
    const box = el("input");
    box.type = "checkbox";
    box.checked = p.picked;
    box.setAttribute("aria-label", `pick ${p.id}`);
    box.addEventListener("change", () => {
      void api(`/api/admin/harvest/${encodeURIComponent(p.id)}/pick`, {
        method: "PUT",
        body: JSON.stringify({ picked: box.checked }),
      }).catch(() => (box.checked = !box.checked));
    });
    cell(tr, box);
    cell(tr, p.text);
    cell(tr, p.category || "—");
    cell(tr, String(p.judges), "num");
    hb.append(tr);
  }
  if (harvest.prompts.length === 0) {
    const tr = el("tr");
    const td = el("td", "", "no questions yet");
    td.colSpan = 4;
    tr.append(td);
    hb.append(tr);
  }
  ht.append(hb);
}
