// Compiled by tools/ts/page.sh from jobhttp/static/tree.mts with the pinned tsc. DO NOT EDIT.
// The page's subagent tree: the continuable children under the caller's
// roots, live from the server's tree stream, as nested lists (each child
// under its parent) with state, provider, depth and last activity; choosing
// one shows its history from its stream: the messages its inbox accepted
// (prompts, follow-ups, reports, notices), claimed and discarded, and its
// residencies.
import { WireError } from "./runtime.mjs";
import { SGRReader } from "./ansi.mjs";
import { clock, duration, h, styled } from "./logview.mjs";
/** A SubagentTree shows the tree in its section and one child's history beside it. */
export class SubagentTree {
    section;
    list;
    detail;
    note;
    client;
    watcher;
    nodes = new Map();
    selected = "";
    shownActivity = -1;
    /** OnStatus hears a child's state change, for the page's one live region. */
    onStatus = () => undefined;
    constructor(section, client, watcher) {
        this.section = section;
        this.client = client;
        this.watcher = watcher;
        this.note = h("p", { class: "tree-note" }, "Loading subagents…");
        this.list = h("ul", { class: "tree", "aria-label": "Subagents" });
        this.detail = h("div", { class: "tree-detail", "aria-label": "Subagent history" });
        section.append(this.note, this.list, this.detail);
    }
    /** Watch follows the tree stream until the server says it serves no subagents. */
    async watch() {
        for (;;) {
            try {
                for await (const nodes of this.watcher.subagents(new AbortController().signal))
                    this.render(nodes);
                return;
            }
            catch (err) {
                if (err instanceof WireError && err.status === 404) {
                    this.section.hidden = true;
                    return;
                }
                this.note.textContent = `subagents unavailable: ${err instanceof Error ? err.message : String(err)}`;
                const wait = err instanceof WireError && err.retryAfter !== undefined ? err.retryAfter : 5;
                await new Promise((resolve) => setTimeout(resolve, Math.min(60, Math.max(1, wait)) * 1000));
            }
        }
    }
    /** Select shows the history of child id. */
    select(id) {
        this.selected = id;
        this.shownActivity = -1;
        for (const b of this.list.querySelectorAll("button.node")) {
            if (b.dataset["child"] === id)
                b.setAttribute("aria-current", "true");
            else
                b.removeAttribute("aria-current");
        }
        void this.loadHistory();
    }
    /** Node returns child id as the tree last drew it, or undefined when the tree holds no such child. */
    node(id) {
        return this.nodes.get(id);
    }
    /** Show selects child id and brings its entry into view, focused (a job page's link to its subagent). */
    show(id) {
        this.select(id);
        const b = [...this.list.querySelectorAll("button.node")].find((e) => e.dataset["child"] === id);
        b?.scrollIntoView({ block: "nearest" });
        b?.focus();
    }
    render(nodes) {
        const old = this.nodes;
        this.nodes = new Map(nodes.map((n) => [n.id, n]));
        for (const n of nodes) {
            const was = old.get(n.id);
            if (was !== undefined && was.state !== n.state)
                this.onStatus(`subagent ${n.label ?? n.id} is ${n.state}`);
        }
        this.note.textContent = nodes.length === 0 ? "No subagents in this session yet." : `${nodes.length} subagents: ${count(nodes, "running")} running, ${count(nodes, "waiting")} waiting, ${count(nodes, "settled")} settled.`;
        const lists = new Map();
        const top = document.createDocumentFragment();
        for (const n of nodes) {
            const li = h("li", { class: `node-item state-${n.state}` }, this.nodeButton(n));
            const parent = lists.get(n.parent);
            if (parent !== undefined)
                parent.append(li);
            else
                top.append(li);
            const sub = h("ul", {});
            li.append(sub);
            lists.set(n.id, sub);
        }
        for (const ul of lists.values())
            if (ul.childElementCount === 0)
                ul.remove();
        this.list.replaceChildren(top);
        const sel = this.nodes.get(this.selected);
        if (sel === undefined && nodes.length > 0 && this.selected === "")
            this.select(nodes[0].id);
        else if (sel !== undefined && sel.lastActivity !== this.shownActivity)
            this.select(sel.id);
    }
    nodeButton(n) {
        const b = h("button", { type: "button", class: "node", "data-child": n.id }, h("span", { class: "node-label" }, n.label ?? n.id), h("span", { class: `state state-${n.state}` }, n.state), h("span", { class: "node-meta" }, `${n.provider} · depth ${n.depth} · ${n.messages} ${n.messages === 1 ? "msg" : "msgs"} · ${ago(n.lastActivity)}`));
        b.title = `${n.id}: created ${clock(new Date(n.createdAt))}, last activity ${clock(new Date(n.lastActivity))}${n.stopReason !== undefined ? `, last stop ${n.stopReason}` : ""}`;
        if (n.id === this.selected)
            b.setAttribute("aria-current", "true");
        b.addEventListener("click", () => this.select(n.id));
        b.addEventListener("keydown", (e) => {
            if (e.key !== "ArrowDown" && e.key !== "ArrowUp")
                return;
            e.preventDefault();
            const all = [...this.list.querySelectorAll("button.node")];
            const next = all[all.indexOf(b) + (e.key === "ArrowDown" ? 1 : -1)];
            next?.focus();
        });
        return b;
    }
    async loadHistory() {
        const id = this.selected;
        const n = this.nodes.get(id);
        if (n === undefined)
            return;
        try {
            const events = await this.client.subagentHistory(id);
            if (id !== this.selected)
                return;
            this.shownActivity = n.lastActivity;
            this.showHistory(n, events);
        }
        catch (err) {
            this.detail.replaceChildren(h("p", {}, `history unavailable: ${err instanceof Error ? err.message : String(err)}`));
        }
    }
    showHistory(n, events) {
        const head = h("h3", {}, `${n.label ?? n.id} `, h("span", { class: `state state-${n.state}` }, n.state));
        const meta = h("p", { class: "node-meta" }, `${n.id} · ${n.provider}${n.agentModel !== undefined ? ` · ${n.agentModel}` : ""} · parent ${n.parent} · depth ${n.depth}`);
        const ol = h("ol", { class: "events" });
        for (const e of events) {
            const li = h("li", { class: `ev ev-${e.kind}` }, h("span", { class: "ts", title: new Date(e.at).toISOString() }, "+" + duration(e.at - n.createdAt)), h("span", { class: "ev-kind" }, kindLabel(e)));
            if (e.text !== undefined && e.text !== "") {
                const body = h("span", { class: "ev-text" });
                for (const s of new SGRReader().feed(e.text))
                    body.append(styled(s.text, s.style));
                li.append(body);
            }
            if (e.why !== undefined)
                li.append(h("span", { class: "ev-text" }, e.why));
            ol.append(li);
        }
        this.detail.replaceChildren(head, meta, ol);
    }
}
function count(nodes, state) {
    return nodes.filter((n) => n.state === state).length;
}
/** kindLabel says what an event is, with who sent an accepted message. */
function kindLabel(e) {
    switch (e.kind) {
        case "accepted": {
            const from = e.source === "subagentReport" ? `report from ${e.sender ?? "?"}` : e.source === "subagentSettled" ? `notice: ${e.sender ?? "?"} settled` : e.source === "coordinator" ? `relayed by ${e.sender ?? "?"}` : "prompt";
            return `accepted ${from}${e.wake === true ? "" : " (quiet)"}`;
        }
        case "residencyStarted":
            return e.resumed === true ? "resumed cold" : "residency started";
        case "residencyEnded":
            return `residency ended: ${e.stopReason ?? ""}`;
        default:
            return e.kind;
    }
}
/** ago writes how long ago t was: 3s ago, 2m ago. */
export function ago(t) {
    return `${duration(Math.max(0, Date.now() - t))} ago`;
}
