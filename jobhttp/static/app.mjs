// Compiled by tools/ts/page.sh from jobhttp/static/app.mts with the pinned tsc. DO NOT EDIT.
// The live jobs page: the roster of the caller's session, live output of
// recording jobs, kill, and the intervals timeline. It talks to the server
// only through the package's client (client.mts), which decodes every body
// with the decoders generated from spec/jobs.yaml and spec/wire.yaml, so the
// page refuses exactly what the Go side refuses.
import { Client, WireError } from "./client.mjs";
const client = new Client({ base: document.baseURI });
/** byId is the page's element with that id, which index.html always has. */
function byId(id) {
    const e = document.getElementById(id);
    if (e === null)
        throw new Error(`the page has no #${id}`);
    return e;
}
const rosterEl = byId("roster");
const emptyEl = byId("empty");
const connEl = byId("connection");
const rows = new Map(); // by job id
function el(tag, attrs = {}, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) {
        if (k === "class")
            e.className = v;
        else
            e.setAttribute(k, v);
    }
    e.append(...children);
    return e;
}
/** message is what an error says, for the page. */
function message(err) {
    if (err instanceof WireError)
        return err.reason;
    return err instanceof Error ? err.message : String(err);
}
function renderRoster(jobs) {
    const seen = new Set();
    for (const job of jobs) {
        seen.add(job.id);
        let row = rows.get(job.id);
        if (row === undefined) {
            row = makeRow(job);
            rows.set(job.id, row);
            rosterEl.append(row.li);
        }
        updateRow(row, job);
    }
    for (const [id, row] of rows) {
        if (!seen.has(id)) {
            closeFollow(row);
            row.li.remove();
            rows.delete(id);
        }
    }
    emptyEl.hidden = rows.size > 0;
}
function makeRow(job) {
    const name = el("span", { class: "name" }, job.name);
    const label = el("span", { class: "label" });
    const status = el("span", { class: "status", role: "status" });
    const kill = el("button", { type: "button", class: "kill" }, "Kill");
    kill.setAttribute("aria-label", `Kill ${job.name}`);
    const head = el("div", { class: "job-head" }, name, label, status, kill);
    const detail = el("p", { class: "detail" });
    const li = el("li", { class: "job", "data-job": job.id }, head, detail);
    const row = { li, label, status, kill, detail, job, toggle: null, output: null, follow: null };
    if (job.record) {
        const outId = `out-${job.id}`;
        const toggle = el("button", { type: "button", class: "toggle", "aria-expanded": "false", "aria-controls": outId }, "Output");
        toggle.setAttribute("aria-label", `Show output of ${job.name}`);
        head.insertBefore(toggle, kill);
        const output = el("pre", { class: "output", id: outId, tabindex: "0", "aria-live": "polite" });
        output.hidden = true;
        li.append(output);
        row.toggle = toggle;
        row.output = output;
        toggle.addEventListener("click", () => toggleOutput(row));
    }
    kill.addEventListener("click", () => void killJob(row));
    return row;
}
// A job's status only moves forward; snapshots can arrive out of order (a
// kill's answer after the roster event of the settlement it caused), so an
// older one never overwrites a newer one.
const statusRank = { running: 0, stopping: 1, completed: 2, killed: 2, failed: 2 };
function updateRow(row, job) {
    if (statusRank[job.status] < statusRank[row.job.status])
        return;
    row.job = job;
    row.label.textContent = job.label;
    row.status.textContent = job.status;
    row.status.className = `status status-${job.status}`;
    row.detail.textContent = job.detail ?? "";
    row.detail.hidden = job.detail === undefined;
    row.kill.disabled = job.status !== "running";
}
function toggleOutput(row) {
    if (row.output === null || row.toggle === null)
        return;
    const open = row.output.hidden;
    row.output.hidden = !open;
    row.toggle.setAttribute("aria-expanded", String(open));
    if (open && row.follow === null)
        void follow(row);
}
// follow reads the job's follow stream until its status frame. The client
// resumes by itself after a drop, from the byte offset the last output frame
// ended at; the server resumes there, lossy if the bytes were evicted.
async function follow(row) {
    const abort = new AbortController();
    row.follow = abort;
    try {
        for await (const frame of client.follow(row.job.id, { signal: abort.signal })) {
            switch (frame.frame) {
                case "opened":
                    if (frame.from > frame.earliest && frame.from > 0 && row.output?.childElementCount === 0) {
                        appendLine(row, "gap", `[resumed at byte ${frame.from}]`);
                    }
                    updateRow(row, frame.job);
                    break;
                case "output":
                    if (frame.lossy === true)
                        appendLine(row, "gap", "[output was dropped here]");
                    for (const chunk of frame.chunks) {
                        if (chunk.gapBefore === true && frame.lossy !== true)
                            appendLine(row, "gap", "[output was dropped here]");
                        appendChunk(row, chunk);
                    }
                    break;
                case "status":
                    updateRow(row, frame.job);
                    break;
            }
        }
    }
    catch (err) {
        appendLine(row, "gap", `[follow failed: ${message(err)}]`);
    }
    finally {
        if (row.follow === abort)
            row.follow = null;
    }
}
function closeFollow(row) {
    row.follow?.abort();
    row.follow = null;
}
function appendChunk(row, chunk) {
    if (row.output === null)
        return;
    const chan = chunk.channel ?? "";
    const span = el("span", { class: chan === "stderr" ? "stderr" : "text", "data-channel": chan });
    if (chan !== "")
        span.append(el("span", { class: "chan", "aria-hidden": "true" }, `[${chan}] `));
    span.append(chunk.text);
    row.output.append(span);
    row.output.scrollTop = row.output.scrollHeight;
}
function appendLine(row, cls, text) {
    row.output?.append(el("span", { class: cls }, text + "\n"));
}
async function killJob(row) {
    row.kill.disabled = true;
    try {
        const res = await client.kill(row.job.id, "killed from the jobs page");
        updateRow(row, res.job);
    }
    catch (err) {
        row.detail.hidden = false;
        row.detail.textContent = `kill failed: ${message(err)}`;
        row.kill.disabled = row.job.status !== "running";
    }
}
// watchRoster keeps the roster stream open. The client reconnects a dropped
// stream by itself; a refusal (such as a 429 when the session holds too many
// streams) ends it, and then the page shows the server's reason and tries
// again after the Retry-After it was given.
async function watchRoster() {
    for (;;) {
        try {
            const stream = client.rosterEvents({
                onConnect: () => { connEl.textContent = "live"; },
                onDrop: () => { connEl.textContent = "reconnecting…"; },
            });
            for await (const jobs of stream) {
                renderRoster(jobs);
                loadTimeline();
            }
            connEl.textContent = "server closed";
            return;
        }
        catch (err) {
            connEl.textContent = `not connected: ${message(err)}`;
            const wait = err instanceof WireError && err.retryAfter !== undefined ? err.retryAfter : 5;
            await new Promise((resolve) => setTimeout(resolve, Math.min(60, Math.max(1, wait)) * 1000));
        }
    }
}
// The timeline draws each job's interval, registered to settled (or to now
// while incomplete), from the journal's history of the session.
let timelineDue = null;
function loadTimeline() {
    if (timelineDue !== null)
        return;
    timelineDue = setTimeout(async () => {
        timelineDue = null;
        const note = byId("timeline-note");
        try {
            drawTimeline(byId("timeline"), await client.history());
        }
        catch (err) {
            note.textContent = err instanceof WireError && err.status === 404 ? "This server keeps no history." : `history unavailable: ${message(err)}`;
        }
    }, 250);
}
function drawTimeline(box, intervals) {
    const ns = "http://www.w3.org/2000/svg";
    const now = Date.now();
    const items = intervals.filter((iv) => iv.registeredAt > 0);
    box.replaceChildren();
    if (items.length === 0) {
        box.append(el("p", {}, "No intervals yet."));
        return;
    }
    const t0 = Math.min(...items.map((iv) => iv.registeredAt));
    const t1 = Math.max(...items.map((iv) => iv.settledAt ?? now), t0 + 1);
    const rowH = 22, labelW = 110, width = 600;
    const svg = document.createElementNS(ns, "svg");
    svg.setAttribute("viewBox", `0 0 ${width} ${items.length * rowH + 4}`);
    svg.setAttribute("role", "img");
    svg.setAttribute("aria-label", `Timeline of ${items.length} jobs`);
    items.forEach((iv, i) => {
        const end = iv.settledAt ?? now;
        const x = labelW + ((iv.registeredAt - t0) / (t1 - t0)) * (width - labelW - 4);
        const w = Math.max(2, ((end - iv.registeredAt) / (t1 - t0)) * (width - labelW - 4));
        const status = iv.complete ? iv.status ?? "" : "incomplete";
        const label = document.createElementNS(ns, "text");
        label.setAttribute("x", "2");
        label.setAttribute("y", String(i * rowH + 15));
        label.textContent = `${iv.kind}-${iv.ordinal}`;
        const bar = document.createElementNS(ns, "rect");
        bar.setAttribute("x", String(x));
        bar.setAttribute("y", String(i * rowH + 4));
        bar.setAttribute("width", String(w));
        bar.setAttribute("height", String(rowH - 8));
        bar.setAttribute("class", `bar-${status}`);
        const title = document.createElementNS(ns, "title");
        title.textContent = `${iv.kind}-${iv.ordinal} ${iv.label}: ${status}, ${end - iv.registeredAt} ms`;
        bar.append(title);
        svg.append(label, bar);
    });
    box.append(svg);
}
void watchRoster();
