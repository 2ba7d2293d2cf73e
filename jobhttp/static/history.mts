// The history beyond the live session: the journal's execution intervals a
// page at a time, newest first, filtered by kind, status and label, and,
// for an operator the runtime allows, every session's (GET
// api/history/search, Handler.SearchHistory). In a fleet view it filters
// by host too, and searches the caller's own jobs (Fleet.SearchHistory). A
// server that keeps no history answers 404, and the section stays hidden.
import { decodeHistoryPage, type HistoryPage, type Interval } from "./wire.mjs";
import { duration, h } from "./logview.mjs";

const api = new URL("api/", document.baseURI);
const pageSize = 50;

/** A HistoryView is the history section of the page. */
export class HistoryView {
  readonly root: HTMLElement;
  private readonly kind: HTMLInputElement;
  private readonly status: HTMLSelectElement;
  private readonly label: HTMLInputElement;
  private readonly all: HTMLInputElement;
  private readonly host: HTMLSelectElement;
  private readonly hostLabel: HTMLLabelElement;
  private readonly allLabel: HTMLLabelElement;
  private readonly body: HTMLTableSectionElement;
  private readonly note: HTMLElement;
  private readonly newer: HTMLButtonElement;
  private readonly older: HTMLButtonElement;
  private cursor = 0;
  private next = 0;
  /** onOpen is called with a job's id when its row's name is chosen: the page opens the job's page. */
  onOpen: (id: string) => void = () => {};
  /** painted is called after each page is drawn, with how long it took from the request. */
  onPaint: (ms: number) => void = () => {};

  constructor() {
    this.kind = h("input", { id: "history-kind", type: "search", autocomplete: "off" });
    this.status = h("select", { id: "history-status" },
      ...["", "running", "completed", "failed", "killed"].map((s) => h("option", { value: s }, s === "" ? "every status" : s)));
    this.label = h("input", { id: "history-label", type: "search", placeholder: "key=value", autocomplete: "off" });
    this.all = h("input", { id: "history-all", type: "checkbox" });
    this.host = h("select", { id: "history-host" }, h("option", { value: "" }, "every host"));
    this.hostLabel = h("label", { hidden: "" }, "Host ", this.host);
    this.allLabel = h("label", {}, this.all, " every session");
    this.note = h("p", { id: "history-note", class: "muted" }, "Loading the history…");
    this.body = h("tbody", {});
    this.newer = h("button", { type: "button", id: "history-newer" }, "Newer");
    this.older = h("button", { type: "button", id: "history-older" }, "Older");
    const table = h("table", { class: "history-table", "aria-labelledby": "history-title" },
      h("thead", {}, h("tr", {}, ...["Job", "Owner", "Label", "Labels", "Status", "Registered", "Took"].map((c) => h("th", { scope: "col" }, c)))),
      this.body);
    this.root = h("section", { id: "history", class: "history-section", "aria-labelledby": "history-title" },
      h("h2", { id: "history-title" }, "History"),
      h("div", { class: "filters" },
        h("label", {}, "Kind ", this.kind),
        h("label", {}, "Status ", this.status),
        h("label", {}, "Label ", this.label),
        this.hostLabel,
        this.allLabel),
      this.note, h("div", { class: "history-scroll" }, table),
      h("div", { class: "actions" }, this.newer, this.older));
    for (const e of [this.kind, this.label]) e.addEventListener("change", () => void this.load(0));
    for (const e of [this.status, this.all, this.host]) e.addEventListener("change", () => void this.load(0));
    this.newer.addEventListener("click", () => void this.load(Math.max(0, this.cursor - pageSize)));
    this.older.addEventListener("click", () => void this.load(this.next));
  }

  /** load shows the page of the history that starts at cursor. */
  async load(cursor: number): Promise<void> {
    const started = performance.now();
    const q = new URLSearchParams({ limit: String(pageSize) });
    if (cursor > 0) q.set("cursor", String(cursor));
    if (this.kind.value !== "") q.set("kind", this.kind.value);
    if (this.status.value !== "") q.set("status", this.status.value);
    if (this.label.value !== "") q.set("label", this.label.value);
    if (this.all.checked) q.set("all", "true");
    if (this.host.value !== "") q.set("host", this.host.value);
    this.note.textContent = "Loading the history…";
    try {
      const res = await fetch(new URL("history/search?" + q.toString(), api));
      if (res.status === 404) {
        this.root.hidden = true;
        return;
      }
      if (!res.ok) {
        const body = (await res.json().catch(() => ({}))) as { error?: string };
        throw new Error(body.error ?? `${res.status} ${res.statusText}`);
      }
      this.show(decodeHistoryPage(await res.json()), cursor);
      this.root.hidden = false;
      requestAnimationFrame(() => this.onPaint(performance.now() - started));
    } catch (err) {
      this.note.textContent = `History unavailable: ${err instanceof Error ? err.message : String(err)}`;
    }
  }

  /**
   * fleetMode makes the section a fleet view's: a Host filter, and no
   * "every session" (a fleet searches the caller's own jobs).
   */
  fleetMode(): void {
    this.hostLabel.hidden = false;
    this.allLabel.remove();
  }

  /** setHosts offers hosts in the Host filter, keeping the one chosen. */
  setHosts(hosts: Set<string>): void {
    const chosen = this.host.value;
    const want = ["", ...[...hosts].filter((n) => n !== "").sort()];
    if (chosen !== "" && !want.includes(chosen)) want.push(chosen);
    if ([...this.host.options].map((o) => o.value).join("\n") === want.join("\n")) return;
    this.host.replaceChildren(...want.map((v) => h("option", { value: v }, v === "" ? "every host" : v)));
    this.host.value = chosen;
  }

  private show(page: HistoryPage, cursor: number): void {
    this.cursor = cursor;
    this.next = page.next ?? 0;
    this.body.replaceChildren(...page.intervals.map((iv) => row(iv, this.onOpen)));
    const first = page.intervals.length === 0 ? 0 : cursor + 1;
    this.note.textContent = page.total === 0 ? "No jobs match." : `Jobs ${first}–${cursor + page.intervals.length} of ${page.total}, newest first`;
    this.newer.disabled = cursor === 0;
    this.older.disabled = this.next === 0;
  }
}

function row(iv: Interval, open: (id: string) => void): HTMLTableRowElement {
  const status = iv.complete ? (iv.status ?? "") : "incomplete";
  const labels = Object.entries(iv.labels ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, v]) => `${k}=${v}`).join(" ");
  const took = iv.complete && iv.settledAt !== undefined ? duration(iv.settledAt - iv.registeredAt) : "";
  return h("tr", { "data-job": iv.jobId },
    h("td", { class: "name" }, openButton(iv, open)),
    h("td", {}, iv.owner),
    h("td", {}, iv.label),
    h("td", { class: "labels" }, labels),
    h("td", {}, h("span", { class: `status status-${status}` }, status)),
    h("td", {}, new Date(iv.registeredAt).toISOString().replace("T", " ").slice(0, 19)),
    h("td", { class: "dur" }, took));
}

/** openButton is a row's job name, a button that opens the job's page. */
function openButton(iv: Interval, open: (id: string) => void): HTMLButtonElement {
  const b = h("button", { type: "button", class: "link open-job", title: "Open the job's page" }, `${iv.kind}-${iv.ordinal}`);
  b.addEventListener("click", () => open(iv.jobId));
  return b;
}
