// Compiled by tools/ts/page.sh from jobhttp/static/waiting.mts with the pinned tsc. DO NOT EDIT.
// Waiting work: the starts queued for an admission slot (StartWait), which
// have no id and so no row in the roster, listed with their place in line
// from GET api/jobs/waiting. The list is asked for again every two seconds
// while the page is visible, and hidden while nothing waits.
import { decodeWaitingStart } from "./wire.mjs";
import { duration, h } from "./logview.mjs";
const api = new URL("api/", document.baseURI);
/** A Waiting is the waiting list's section of the page. */
export class Waiting {
    onError;
    root;
    list;
    constructor(onError) {
        this.onError = onError;
        this.list = h("ol", { id: "waiting-list", class: "waiting-list" });
        this.root = h("section", { id: "waiting", class: "waiting", "aria-labelledby": "waiting-title" }, h("h3", { id: "waiting-title" }, "Waiting for a slot"), this.list);
        this.root.hidden = true;
        void this.poll();
    }
    async poll() {
        for (;;) {
            if (document.visibilityState === "visible")
                await this.load();
            await new Promise((r) => setTimeout(r, 2000));
        }
    }
    /** load asks for the waiting starts and shows them. */
    async load() {
        try {
            const res = await fetch(new URL("jobs/waiting", api));
            if (res.status === 404)
                return; // a fleet view: each host shows its own
            if (!res.ok)
                throw new Error(`${res.status} ${res.statusText}`);
            const body = await res.json();
            if (!Array.isArray(body))
                throw new Error("not a list");
            this.show(body.map((w, i) => decodeWaitingStart(w, `[${i}]`)));
        }
        catch (err) {
            this.onError(`The waiting list could not be read: ${err instanceof Error ? err.message : String(err)}`);
        }
    }
    show(ws) {
        const now = Date.now();
        this.list.replaceChildren(...ws.map((w) => h("li", { class: "waiting-start" }, h("span", { class: "place" }, `#${w.place}`), h("span", { class: "name" }, w.kind), h("span", { class: "label" }, w.label), h("span", { class: "status status-waiting" }, "waiting"), h("span", { class: "dur", title: "Waiting for" }, duration(now - w.since)))));
        this.root.hidden = ws.length === 0;
    }
}
