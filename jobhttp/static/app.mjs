// Compiled by tools/ts/page.sh from jobhttp/static/app.mts with the pinned tsc. DO NOT EDIT.
// The jobs console: the roster of the caller's session with filters, counts
// and live durations; each recording job's output in a log viewer, with a
// one-line input box under a terminal job's; kill with a confirmation and a
// reason; the intervals timeline; and the
// continuable subagents beside the jobs. It talks to the server only
// through the client jobgen generates from spec/wire.yaml (wire.mjs), which decodes every body with
// the decoders generated from the specs, so the page refuses exactly what
// the Go side refuses. Output reaches the document as text, never as markup.
// Served by a fleet view (jobhttp.Fleet), it shows every host's jobs of the
// session with a host column and a lost status for the jobs of a host whose
// lease ended, and no subagents.
import { WireError } from "./runtime.mjs";
import { Client } from "./wire.mjs";
import { Watcher } from "./watch.mjs";
import { LogView, duration, h } from "./logview.mjs";
import { Timeline } from "./timeline.mjs";
import { SubagentTree } from "./tree.mjs";
import { Bulk } from "./bulk.mjs";
import { Waiting } from "./waiting.mjs";
import { HistoryView } from "./history.mjs";
import { JobPage } from "./jobpage.mjs";
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
// One streaming connection for the whole tab: every live view is a view of
// the watcher's one Watch stream (watch.mts).
const watcher = new Watcher(client, (state) => {
    connEl.textContent = state;
    connEl.dataset["state"] = state;
});
const announceEl = byId("announce");
const tabsEl = byId("status-tabs");
const kindSel = byId("filter-kind");
const ownerSel = byId("filter-owner");
const hostSel = byId("filter-host");
const textFilter = byId("filter-text");
const shownEl = byId("roster-shown");
/** announce says a status change in the page's one live region. */
function announce(text) {
    announceEl.textContent = text;
}
const bulk = new Bulk(rosterEl, announce);
shownEl.after(bulk.bar);
rosterEl.after(new Waiting(announce).root);
/** labelText spells a job's labels as key=value pairs, sorted. */
function labelText(job) {
    return Object.entries(job.labels ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, v]) => `${k}=${v}`).join(" ");
}
// ---- theme ---------------------------------------------------------------
const themes = ["auto", "dark", "light"];
const themeBtn = byId("theme");
function applyTheme(t) {
    if (t === "auto")
        delete document.documentElement.dataset["theme"];
    else
        document.documentElement.dataset["theme"] = t;
    themeBtn.textContent = `Theme: ${t}`;
    themeBtn.setAttribute("aria-label", `Colour theme: ${t} (change)`);
}
function storedTheme() {
    try {
        const t = localStorage.getItem("jobs-theme");
        return t === "dark" || t === "light" ? t : "auto";
    }
    catch {
        return "auto";
    }
}
applyTheme(storedTheme());
themeBtn.addEventListener("click", () => {
    const next = themes[(themes.indexOf(storedTheme()) + 1) % themes.length];
    try {
        if (next === "auto")
            localStorage.removeItem("jobs-theme");
        else
            localStorage.setItem("jobs-theme", next);
    }
    catch {
        // storage refused: the choice lasts for this page only
    }
    applyTheme(next);
});
const rows = new Map(); // by job id, in roster order
/** message is what an error says, for the page. */
function message(err) {
    if (err instanceof WireError)
        return err.reason;
    return err instanceof Error ? err.message : String(err);
}
let view = { status: "", kind: "", owner: "", host: "", q: "", job: "", line: 0 };
/**
 * fleet is set when the server is a fleet view of many hosts: it serves its
 * page marked so (data-view="fleet"), so one host's page never asks
 * api/fleet, which only a fleet answers.
 */
const fleet = document.body.dataset["view"] === "fleet";
/** shownStatus is the status the page shows for a job: lost, in a fleet view, when its host's lease ended before it settled. */
function shownStatus(job, place) {
    return place.lost === true ? "lost" : job.status;
}
function readHash() {
    const p = new URLSearchParams(location.hash.slice(1));
    return {
        status: p.get("status") ?? "",
        kind: p.get("kind") ?? "",
        owner: p.get("owner") ?? "",
        host: p.get("host") ?? "",
        q: p.get("q") ?? "",
        job: p.get("job") ?? "",
        line: Number(p.get("line") ?? "0") || 0,
    };
}
function writeHash(v, push) {
    const p = new URLSearchParams();
    for (const k of ["status", "kind", "owner", "host", "q", "job"])
        if (v[k] !== "")
            p.set(k, v[k]);
    if (v.line > 0)
        p.set("line", String(v.line));
    const hash = p.toString();
    if (hash === location.hash.slice(1))
        return;
    const url = hash === "" ? location.pathname + location.search : "#" + hash;
    if (push)
        history.pushState(null, "", url);
    else
        history.replaceState(null, "", url);
}
const statuses = ["running", "stopping", "completed", "failed", "killed"];
const tabs = new Map();
/** addTab adds the filter tab of status s. */
function addTab(s) {
    const b = h("button", { type: "button", class: "tab", "data-status": s, "aria-pressed": "false" });
    b.addEventListener("click", () => setView({ ...view, status: s }, false));
    tabs.set(s, b);
    tabsEl.append(b);
}
for (const s of ["", ...statuses])
    addTab(s);
kindSel.addEventListener("change", () => setView({ ...view, kind: kindSel.value }, false));
ownerSel.addEventListener("change", () => setView({ ...view, owner: ownerSel.value }, false));
hostSel.addEventListener("change", () => setView({ ...view, host: hostSel.value }, false));
textFilter.addEventListener("input", () => setView({ ...view, q: textFilter.value }, false));
/** setView applies v to the page and records it in the URL (a new history entry when push). */
function setView(v, push) {
    const old = view;
    view = v;
    writeHash(v, push);
    applyFilters();
    if (v.job !== old.job || v.line !== old.line)
        openFromView();
}
function matches(job, place, v) {
    if (v.status !== "" && shownStatus(job, place) !== v.status)
        return false;
    if (v.kind !== "" && job.kind !== v.kind)
        return false;
    if (v.owner !== "" && (job.owner ?? "") !== v.owner)
        return false;
    if (v.host !== "" && (place.host?.name ?? "") !== v.host)
        return false;
    if (v.q !== "") {
        const q = v.q.toLowerCase();
        if (!job.name.toLowerCase().includes(q) && !job.label.toLowerCase().includes(q) && !labelText(job).toLowerCase().includes(q))
            return false;
    }
    return true;
}
/** applyFilters shows the rows the filters let through and counts each status. */
function applyFilters() {
    const counts = new Map([["", 0]]);
    const kinds = new Set(), owners = new Set(), hosts = new Set();
    let shown = 0;
    for (const row of rows.values()) {
        const j = row.job;
        kinds.add(j.kind);
        owners.add(j.owner ?? "");
        hosts.add(row.place.host?.name ?? "");
        const vis = matches(j, row.place, view);
        if (row.li.hidden === vis)
            row.li.hidden = !vis;
        if (vis)
            shown++;
        // counts follow the other filters, so a tab says what choosing it shows
        if (matches(j, row.place, { ...view, status: "" })) {
            const st = shownStatus(j, row.place);
            counts.set("", (counts.get("") ?? 0) + 1);
            counts.set(st, (counts.get(st) ?? 0) + 1);
        }
    }
    for (const [s, b] of tabs) {
        const label = `${s === "" ? "All" : s} ${counts.get(s) ?? 0}`;
        if (b.textContent !== label)
            b.textContent = label;
        b.setAttribute("aria-pressed", String(view.status === s));
    }
    fillSelect(kindSel, kinds, view.kind, "every kind");
    fillSelect(ownerSel, owners, view.owner, "every owner");
    if (fleet) {
        fillSelect(hostSel, hosts, view.host, "every host");
        historyView.setHosts(hosts);
    }
    if (textFilter.value !== view.q)
        textFilter.value = view.q;
    shownEl.textContent = `${shown} of ${rows.size} jobs shown`;
    emptyEl.hidden = rows.size > 0;
}
function fillSelect(sel, values, chosen, all) {
    const want = ["", ...[...values].sort()];
    if (chosen !== "" && !values.has(chosen))
        want.push(chosen);
    const have = [...sel.options].map((o) => o.value);
    if (have.length !== want.length || have.join("\n") !== want.join("\n")) {
        sel.replaceChildren(...want.map((v) => h("option", { value: v }, v === "" ? all : v)));
    }
    sel.value = chosen;
}
function renderRoster(entries) {
    const seen = new Set();
    const frag = document.createDocumentFragment();
    for (const { job, place } of entries) {
        seen.add(job.id);
        let row = rows.get(job.id);
        if (row === undefined) {
            row = makeRow(job, place);
            rows.set(job.id, row);
            frag.append(row.li);
            updateRow(row, job, false, place);
        }
        else
            updateRow(row, job, true, place);
    }
    rosterEl.append(frag);
    for (const [id, row] of rows) {
        if (!seen.has(id)) {
            closeFollow(row);
            row.li.remove();
            rows.delete(id);
        }
    }
    applyFilters();
    if (rosterEl.querySelector('[tabindex="0"]') === null)
        rosterEl.querySelector(".job-head")?.setAttribute("tabindex", "0");
}
function makeRow(job, place) {
    const name = h("span", { class: "name" }, job.name);
    const host = h("span", { class: "host", title: "Host" }, place.host?.name ?? "");
    host.hidden = !fleet;
    const label = h("span", { class: "label" });
    const labels = h("span", { class: "labels", title: "Labels" }, labelText(job));
    labels.hidden = labels.textContent === "";
    const status = h("span", { class: "status" });
    const dur = h("span", { class: "dur", title: "Duration" });
    const kill = h("button", { type: "button", class: "kill", "aria-label": `Kill ${job.name}` }, "Kill");
    const head = h("div", { class: "job-head", tabindex: "-1", "data-job": job.id }, name, host, label, labels, status, dur, kill);
    const detail = h("p", { class: "detail" });
    const li = h("li", { class: "job", "data-job": job.id }, head, detail);
    const row = { li, head, label, status, dur, kill, detail, host, job, place, toggle: null, log: null, follow: null, input: null };
    if (job.record) {
        const toggle = h("button", { type: "button", class: "toggle", "aria-expanded": "false", "aria-label": `Output of ${job.name}` }, "Output");
        head.insertBefore(toggle, kill);
        row.toggle = toggle;
        toggle.addEventListener("click", () => {
            const open = row.log === null || row.log.root.hidden;
            setView({ ...view, job: open ? job.id : "", line: 0 }, true);
        });
    }
    kill.addEventListener("click", () => confirmKill(row));
    return row;
}
// A job's status only moves forward; snapshots can arrive out of order (a
// kill's answer after the roster event of the settlement it caused), so an
// older one never overwrites a newer one.
const statusRank = { running: 0, stopping: 1, completed: 2, killed: 2, failed: 2 };
function updateRow(row, job, speak, place = row.place) {
    if (statusRank[job.status] < statusRank[row.job.status])
        return;
    const changed = shownStatus(job, place) !== shownStatus(row.job, row.place);
    row.job = job;
    row.place = place;
    const shown = shownStatus(job, place);
    if (row.label.textContent !== job.label)
        row.label.textContent = job.label;
    if (row.status.textContent !== shown) {
        row.status.textContent = shown;
        row.status.className = `status status-${shown}`;
        if (shown === "lost")
            row.status.title = `${place.host?.name ?? "its host"} stopped: its lease ended before the job settled`;
        else
            row.status.removeAttribute("title");
    }
    const detail = job.detail ?? "";
    if (row.detail.textContent !== detail)
        row.detail.textContent = detail;
    row.detail.hidden = detail === "";
    row.kill.disabled = shown !== "running";
    if (row.input !== null)
        setInputOpen(row.input, statusRank[job.status] < 2 && shown !== "lost");
    row.li.dataset["status"] = shown;
    updateDuration(row);
    if (changed && speak)
        announce(`${job.name} ${job.label}: ${shown}`);
}
function updateDuration(row) {
    const j = row.job;
    const end = j.finishedAt !== undefined && j.finishedAt > 0 ? j.finishedAt : Date.now();
    row.dur.textContent = duration(end - j.startedAt);
}
// Running jobs' durations tick once a second.
setInterval(() => {
    for (const row of rows.values())
        if ((row.job.status === "running" || row.job.status === "stopping") && row.place.lost !== true)
            updateDuration(row);
}, 1000);
/** openFromView opens the job the URL names (and shows its line), and closes any other. */
function openFromView() {
    for (const row of rows.values()) {
        if (row.job.id !== view.job && row.log !== null && !row.log.root.hidden)
            setOpen(row, false);
    }
    const row = rows.get(view.job);
    if (row === undefined || row.toggle === null)
        return;
    if (row.li.hidden)
        row.li.hidden = false; // a link shows its job whatever the filters
    setOpen(row, true);
    row.li.scrollIntoView({ block: "nearest" });
    if (view.line > 0)
        pendingLine = view.line;
    showPendingLine(row);
}
let pendingLine = 0;
function showPendingLine(row) {
    if (pendingLine > 0 && row.log !== null && row.log.scrollToLine(pendingLine))
        pendingLine = 0;
}
function setOpen(row, open) {
    if (row.toggle === null)
        return;
    if (open && row.log === null) {
        row.log = new LogView({ job: row.job.id, name: row.job.name, startedAt: row.job.startedAt, rawHref: client.downloadRecordURL(row.job.id).href });
        row.log.root.id = `out-${row.job.id}`;
        row.toggle.setAttribute("aria-controls", row.log.root.id);
        row.li.append(row.log.root);
        if (row.job.terminal === true && !fleet) {
            row.input = makeInput(row);
            row.li.append(row.input.form);
        }
    }
    if (row.log === null)
        return;
    if (open)
        row.log.show();
    else
        row.log.hide();
    if (row.input !== null)
        row.input.form.hidden = !open;
    row.toggle.setAttribute("aria-expanded", String(open));
    row.toggle.textContent = open ? "Hide output" : "Output";
    row.toggle.setAttribute("aria-label", `${open ? "Hide output" : "Output"} of ${row.job.name}`);
    if (open && row.follow === null)
        void follow(row, row.log);
}
// follow reads the job's follow stream until its status frame. The client
// resumes by itself after a drop, from the byte offset the last output frame
// ended at; the server resumes there, lossy if the bytes were evicted.
async function follow(row, log) {
    const abort = new AbortController();
    row.follow = abort;
    try {
        for await (const frame of watcher.follow(row.job.id, abort.signal)) {
            const arrived = performance.now();
            switch (frame.frame) {
                case "opened":
                    if (frame.from > 0 && log.model.lines.length === 0)
                        log.note(`[output before byte ${frame.from} is no longer kept]`);
                    updateRow(row, frame.job, true);
                    break;
                case "output":
                    if (frame.lossy === true)
                        log.model.note("[output was dropped here]", Date.now());
                    for (const chunk of frame.chunks) {
                        if (chunk.gapBefore === true && frame.lossy !== true)
                            log.model.note("[output was dropped here]", chunk.at);
                        log.append(chunk.text, chunk.at, chunk.channel ?? "");
                    }
                    log.flush(arrived);
                    showPendingLine(row);
                    break;
                case "status":
                    updateRow(row, frame.job, true);
                    break;
            }
        }
    }
    catch (err) {
        log.note(`[follow failed: ${message(err)}]`);
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
/** setInputOpen enables the box while the job runs, and disables it for good once it has settled. */
function setInputOpen(input, open) {
    input.field.disabled = !open;
    input.send.disabled = !open;
}
/**
 * makeInput makes a terminal job's input box: a line entered there is typed
 * into the job's terminal with its newline, as at a terminal's prompt. The
 * terminal echoes it into the output, as a terminal does.
 */
function makeInput(row) {
    const field = h("input", { type: "text", class: "term-line", autocomplete: "off", spellcheck: "false",
        "aria-label": `Input to ${row.job.name}`, placeholder: "type a line, Enter sends it" });
    const send = h("button", { type: "submit" }, "Send");
    const note = h("span", { class: "term-note muted", role: "status" });
    const form = h("form", { class: "term-input", "aria-label": `Input to ${row.job.name}'s terminal` }, field, send, note);
    const input = { form, field, send, note };
    setInputOpen(input, statusRank[row.job.status] < 2);
    form.addEventListener("submit", (e) => {
        e.preventDefault();
        if (!field.disabled)
            void sendLine(row, input);
    });
    return input;
}
async function sendLine(row, input) {
    const line = input.field.value;
    input.field.value = "";
    try {
        const res = await client.sendInput(row.job.id, { text: line + "\n" });
        input.note.textContent = "";
        updateRow(row, res.job, true);
    }
    catch (err) {
        input.field.value = line; // nothing was typed: give the line back
        input.note.textContent = `input refused: ${message(err)}`;
    }
}
// ---- kill ----------------------------------------------------------------
const killDialog = byId("kill-dialog");
const killReason = byId("kill-reason");
const killWhat = byId("kill-what");
let killing = null;
function confirmKill(row) {
    killing = row;
    killWhat.textContent = `${row.job.name} (${row.job.label})`;
    killReason.value = "killed from the jobs page";
    killDialog.showModal();
    killReason.select();
}
byId("kill-cancel").addEventListener("click", () => killDialog.close("cancel"));
killDialog.addEventListener("close", () => {
    const row = killing;
    killing = null;
    if (row === null || killDialog.returnValue !== "kill") {
        row?.kill.focus();
        return;
    }
    void killJob(row, killReason.value.trim());
});
async function killJob(row, reason) {
    row.kill.disabled = true;
    try {
        const res = await client.killJob(row.job.id, reason === "" ? undefined : { reason });
        updateRow(row, res.job, true);
    }
    catch (err) {
        row.detail.hidden = false;
        row.detail.textContent = `kill failed: ${message(err)}`;
        row.kill.disabled = row.job.status !== "running";
    }
    row.head.focus();
}
// ---- keyboard ------------------------------------------------------------
/** visibleHeads are the heads of the rows the filters show, in order. */
function visibleHeads() {
    return [...rosterEl.querySelectorAll("li.job:not([hidden]) > .job-head")];
}
function focusHead(head) {
    if (head === undefined)
        return;
    for (const e of rosterEl.querySelectorAll('.job-head[tabindex="0"]'))
        e.setAttribute("tabindex", "-1");
    head.setAttribute("tabindex", "0");
    head.focus();
}
rosterEl.addEventListener("keydown", (e) => {
    const head = e.target.closest(".job-head");
    if (head === null || e.target !== head)
        return;
    const heads = visibleHeads();
    const i = heads.indexOf(head);
    const row = rows.get(head.dataset["job"] ?? "");
    switch (e.key) {
        case "ArrowDown":
        case "j":
            focusHead(heads[i + 1]);
            break;
        case "ArrowUp":
        case "k":
            focusHead(heads[i - 1]);
            break;
        case "Home":
            focusHead(heads[0]);
            break;
        case "End":
            focusHead(heads[heads.length - 1]);
            break;
        case "Enter":
        case " ":
        case "o":
            row?.toggle?.click();
            if (row?.log !== null && row?.log.root.hidden === false)
                row.log.pane.focus();
            break;
        default:
            return;
    }
    e.preventDefault();
});
rosterEl.addEventListener("focusin", (e) => {
    const head = e.target.closest(".job-head");
    if (head !== null && head.getAttribute("tabindex") !== "0") {
        for (const x of rosterEl.querySelectorAll('.job-head[tabindex="0"]'))
            x.setAttribute("tabindex", "-1");
        head.setAttribute("tabindex", "0");
    }
});
document.addEventListener("keydown", (e) => {
    const t = e.target;
    const typing = t.tagName === "INPUT" || t.tagName === "SELECT" || t.tagName === "TEXTAREA";
    if (e.key === "/" && !typing) {
        e.preventDefault();
        const pane = t.closest(".log");
        (pane?.querySelector(".log-search") ?? textFilter).focus();
    }
    else if (e.key === "Escape" && t.closest(".output") !== null) {
        rows.get(t.closest("li.job")?.getAttribute("data-job") ?? "")?.head.focus();
    }
});
// ---- streams -------------------------------------------------------------
// watchRoster keeps the roster stream open. The client reconnects a dropped
// stream by itself; a refusal (such as a 429 when the session holds too many
// streams) ends it, and then the page shows the server's reason and tries
// again after the Retry-After it was given.
async function watchRoster() {
    let first = true;
    for (;;) {
        try {
            const stream = mapStream(watcher.roster(new AbortController().signal), (list) => list.map((p) => ({ job: p.item, place: p.with })));
            for await (const entries of stream) {
                const t0 = performance.now();
                renderRoster(entries);
                const ms = performance.now() - t0;
                rosterEl.dataset["renderMs"] = ms.toFixed(1);
                rosterEl.dataset["maxRenderMs"] = Math.max(ms, Number(rosterEl.dataset["maxRenderMs"] ?? "0")).toFixed(1);
                if (first) {
                    first = false;
                    openFromView();
                }
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
/** mapStream yields f of each value of a stream. */
async function* mapStream(stream, f) {
    for await (const v of stream)
        yield f(v);
}
const timeline = new Timeline(byId("timeline"));
const jobPage = new JobPage(byId("timeline"));
const historyView = new HistoryView();
historyView.root.hidden = true;
historyView.onOpen = (id) => void jobPage.open(id);
byId("timeline").closest("section")?.after(historyView.root);
window.jobsHistory = historyView;
window.jobsTimeline = timeline;
let timelineDue = null;
let timelineLoaded = false;
let timelineFailed = false;
/** loadTimeline reads the history again: at once the first time, then at most once per quarter second. */
function loadTimeline() {
    if (timelineDue !== null)
        return;
    const delay = timelineLoaded ? 250 : 0;
    timelineLoaded = true;
    timelineDue = setTimeout(async () => {
        timelineDue = null;
        const note = byId("timeline-note");
        const started = performance.now();
        try {
            if (fleet) {
                const placed = await client.listHistory();
                timeline.draw(placed.map((p) => p.item), Date.now(), new Set(placed.filter((p) => p.with.lost === true).map((p) => p.item.jobId)));
            }
            else {
                const history = await client.archivedHistory();
                timeline.draw(history.intervals);
                note.textContent = archivedNote(history.archived);
            }
            timeline.root.hidden = false;
            timelineFailed = false;
            timeline.root.dataset["loadMs"] = (performance.now() - started).toFixed(1);
        }
        catch (err) {
            timelineFailed = true;
            const none = err instanceof WireError && err.status === 404;
            timeline.root.hidden = none;
            note.textContent = none ? "This server keeps no history." : `history unavailable: ${message(err)}`;
        }
    }, delay);
}
/** archivedNote says which runs of the session's history retention archived, and where, above the timeline. */
function archivedNote(runs) {
    if (runs.length === 0)
        return "Execution intervals from the journal.";
    const where = runs.map((r) => `seqs ${r.first}–${r.through} ${r.archive === undefined || r.archive === "" ? "(archive not named)" : `in ${r.archive}`}`);
    return `Execution intervals from the journal. Older history was archived (jobgen journal archive): ${where.join("; ")}. Jobs of those seqs are not shown; read them with jobgen journal cat.`;
}
// Incomplete intervals grow with the clock (and a fleet's host may be lost
// under them): read the history again every 5 s while some are drawn, or
// while the last read failed. A settled history changes only with the roster,
// whose every change reads it again; reading 10,000 settled intervals every
// 5 s for nothing would cost the page a long task each time.
setInterval(() => { if (timeline.range === null && (timelineFailed || timeline.open > 0))
    loadTimeline(); }, 5000);
window.addEventListener("popstate", () => setView(readHash(), false));
window.addEventListener("hashchange", () => setView(readHash(), false));
view = readHash();
applyFilters();
if (fleet) {
    document.body.dataset["fleet"] = "true";
    document.title = "Fleet jobs";
    byId("title").textContent = "Fleet jobs";
    byId("subagents").hidden = true;
    hostSel.closest("label")?.removeAttribute("hidden");
    bulk.bar.hidden = true; // a bulk stop is each host's own
    bulk.refresh();
    addTab("lost");
    historyView.fleetMode();
    byId("empty").textContent = "No jobs of this session on any host yet.";
}
else {
    const tree = new SubagentTree(byId("subagents"), client, watcher);
    tree.onStatus = announce;
    jobPage.subagentOf = (session) => {
        const n = tree.node(session);
        return n === undefined ? undefined : { id: n.id, label: n.label ?? n.id };
    };
    jobPage.showSubagent = (id) => tree.show(id);
    void tree.watch();
}
applyFilters();
void watchRoster();
void historyView.load(0);
