// Compiled by tools/ts/page.sh from jobhttp/static/jobpage.mts with the pinned tsc. DO NOT EDIT.
// A job's page: what its history says of it, opened by a click (or Enter)
// on its timeline bar: its name, label, owner and labels, its absolute
// start and end, how it settled and why (the cause), and its facts from the
// journal in order (GET api/history/jobs/{id}).
import { decodeJobHistory } from "./wire.mjs";
import { duration, h } from "./logview.mjs";
const api = new URL("api/", document.baseURI);
/** A JobPage is the job page's dialog. */
export class JobPage {
    dialog;
    title;
    body;
    constructor(timeline) {
        this.title = h("h2", { id: "job-page-title" }, "Job");
        this.body = h("div", { class: "job-page-body" });
        const close = h("button", { type: "button", id: "job-page-close" }, "Close");
        close.addEventListener("click", () => this.dialog.close());
        this.dialog = h("dialog", { id: "job-page", class: "job-page", "aria-labelledby": "job-page-title" }, this.title, this.body, h("div", { class: "actions" }, close));
        document.body.append(this.dialog);
        const open = (e) => {
            // The timeline captures the pointer for its zoom band, which retargets
            // a click to itself: find the bar under the pointer instead.
            const under = e instanceof MouseEvent ? document.elementFromPoint(e.clientX, e.clientY) : null;
            const bar = (under ?? e.target).closest("[data-job]");
            if (bar !== null && timeline.contains(bar))
                void this.open(bar.getAttribute("data-job") ?? "");
        };
        timeline.addEventListener("click", open);
        timeline.addEventListener("keydown", (e) => { if (e.key === "Enter")
            open(e); });
    }
    /** open shows the page of job id. */
    async open(id) {
        this.title.textContent = "Loading the job…";
        this.body.replaceChildren();
        if (!this.dialog.open)
            this.dialog.showModal();
        try {
            const res = await fetch(new URL(`history/jobs/${encodeURIComponent(id)}`, api));
            if (!res.ok)
                throw new Error(res.status === 404 ? "no such job in this history" : `${res.status} ${res.statusText}`);
            this.show(decodeJobHistory(await res.json()));
        }
        catch (err) {
            this.title.textContent = "Job";
            this.body.replaceChildren(h("p", {}, `The job's page could not be read: ${err instanceof Error ? err.message : String(err)}`));
        }
    }
    show(page) {
        const iv = page.interval;
        this.title.textContent = `${iv.kind}-${iv.ordinal} ${iv.label}`;
        const when = (ms) => new Date(ms).toISOString().replace("T", " ").replace("Z", " UTC");
        const labels = Object.entries(iv.labels ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, v]) => `${k}=${v}`).join(" ");
        const status = iv.complete ? (iv.status ?? "") : "incomplete";
        const rows = [
            ["Owner", iv.owner === "" ? "(unowned)" : iv.owner],
            ["Labels", labels === "" ? "none" : labels],
            ["Started", when(iv.registeredAt)],
            ["Ended", iv.complete && iv.settledAt !== undefined ? `${when(iv.settledAt)} (after ${duration(iv.settledAt - iv.registeredAt)})` : "not settled in this history"],
            ["Status", status],
            ["Cause", iv.cause ?? ""],
            ["Detail", iv.detail ?? ""],
        ];
        if (iv.toolCall !== undefined && iv.toolCall !== "")
            rows.push(["Tool call", iv.toolCall]);
        const dl = h("dl", { class: "job-facts-summary" }, ...rows.flatMap(([k, v]) => [h("dt", {}, k), h("dd", {}, v)]));
        const facts = h("ol", { class: "job-facts", "aria-label": "Facts, oldest first" }, ...page.facts.map((f) => h("li", {}, h("span", { class: "fact-type" }, `${f.type} v${f.version}`), " ", h("time", { datetime: new Date(f.at).toISOString() }, when(f.at)), h("pre", { class: "fact-data" }, f.data))));
        this.body.replaceChildren(dl, h("h3", {}, "Facts"), facts);
    }
}
