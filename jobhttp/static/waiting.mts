// Waiting work: the starts queued for an admission slot (StartWait), which
// have no id and so no row in the roster, listed with their place in line
// from GET api/jobs/waiting. The list is asked for again every two seconds
// while the page is visible, and hidden while nothing waits.
import { decodeWaitingStart, type WaitingStart } from "./wire.mjs";
import { duration, h } from "./logview.mjs";

const api = new URL("api/", document.baseURI);

/** A Waiting is the waiting list's section of the page. */
export class Waiting {
  readonly root: HTMLElement;
  private readonly list: HTMLOListElement;

  constructor(private readonly onError: (text: string) => void) {
    this.list = h("ol", { id: "waiting-list", class: "waiting-list" });
    this.root = h("section", { id: "waiting", class: "waiting", "aria-labelledby": "waiting-title" },
      h("h3", { id: "waiting-title" }, "Waiting for a slot"), this.list);
    this.root.hidden = true;
    void this.poll();
  }

  private async poll(): Promise<void> {
    for (;;) {
      if (document.visibilityState === "visible") await this.load();
      await new Promise((r) => setTimeout(r, 2000));
    }
  }

  /** load asks for the waiting starts and shows them. */
  async load(): Promise<void> {
    try {
      const res = await fetch(new URL("jobs/waiting", api));
      if (res.status === 404) return; // a fleet view: each host shows its own
      if (!res.ok) throw new Error(`${res.status} ${res.statusText}`);
      const body: unknown = await res.json();
      if (!Array.isArray(body)) throw new Error("not a list");
      this.show(body.map((w, i) => decodeWaitingStart(w, `[${i}]`)));
    } catch (err) {
      this.onError(`The waiting list could not be read: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  private show(ws: WaitingStart[]): void {
    const now = Date.now();
    this.list.replaceChildren(...ws.map((w) =>
      h("li", { class: "waiting-start" },
        h("span", { class: "place" }, `#${w.place}`),
        h("span", { class: "name" }, w.kind),
        h("span", { class: "label" }, w.label),
        h("span", { class: "status status-waiting" }, "waiting"),
        h("span", { class: "dur", title: "Waiting for" }, duration(now - w.since)))));
    this.root.hidden = ws.length === 0;
  }
}
