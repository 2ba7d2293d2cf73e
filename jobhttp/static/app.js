// The live jobs page: the roster of the caller's session, live output of
// recording jobs, kill, and the intervals timeline. Every document from the
// server goes through the decoders generated from spec/jobs.yaml (jobs.js is
// compiled from generated/ts/jobs.ts), so the page refuses exactly what the Go
// side refuses.
import { decodeFollowFrame, decodeJobSnapshot } from "./jobs.js";

const api = new URL("api/", document.baseURI);
const rosterEl = document.getElementById("roster");
const emptyEl = document.getElementById("empty");
const connEl = document.getElementById("connection");
const rows = new Map(); // job id -> row state

function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") e.className = v; else e.setAttribute(k, v);
  }
  for (const c of children) e.append(c);
  return e;
}

function renderRoster(jobs) {
  const seen = new Set();
  for (const job of jobs) {
    seen.add(job.id);
    let row = rows.get(job.id);
    if (!row) {
      row = makeRow(job);
      rows.set(job.id, row);
      rosterEl.append(row.li);
    }
    updateRow(row, job);
  }
  for (const [id, row] of rows) {
    if (!seen.has(id)) { closeFollow(row); row.li.remove(); rows.delete(id); }
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
  const row = { li, name, label, status, kill, detail, job, toggle: null, output: null, source: null };
  if (job.record) {
    const outId = `out-${job.id}`;
    row.toggle = el("button", { type: "button", class: "toggle", "aria-expanded": "false", "aria-controls": outId }, "Output");
    row.toggle.setAttribute("aria-label", `Show output of ${job.name}`);
    head.insertBefore(row.toggle, kill);
    row.output = el("pre", { class: "output", id: outId, tabindex: "0", "aria-live": "polite" });
    row.output.hidden = true;
    li.append(row.output);
    row.toggle.addEventListener("click", () => toggleOutput(row));
  }
  kill.addEventListener("click", () => killJob(row));
  return row;
}

// A job's status only moves forward; snapshots can arrive out of order (a
// kill's answer after the roster event of the settlement it caused), so an
// older one never overwrites a newer one.
const statusRank = { running: 0, stopping: 1, completed: 2, killed: 2, failed: 2 };

function updateRow(row, job) {
  if (row.job && statusRank[job.status] < statusRank[row.job.status]) return;
  row.job = job;
  row.label.textContent = job.label;
  row.status.textContent = job.status;
  row.status.className = `status status-${job.status}`;
  row.detail.textContent = job.detail ?? "";
  row.detail.hidden = !job.detail;
  row.kill.disabled = job.status !== "running";
}

function toggleOutput(row) {
  const open = row.output.hidden;
  row.output.hidden = !open;
  row.toggle.setAttribute("aria-expanded", String(open));
  if (open && !row.source) follow(row);
}

// follow opens the job's follow stream. EventSource resumes by itself after a
// drop, sending the last output frame's id (the next byte offset) as
// Last-Event-ID; the server resumes there, lossy if the bytes were evicted.
function follow(row) {
  const src = new EventSource(new URL(`jobs/${row.job.id}/follow`, api));
  row.source = src;
  const onFrame = (ev) => {
    let frame;
    try { frame = decodeFollowFrame(JSON.parse(ev.data)); } catch (err) {
      appendLine(row, "gap", `[bad frame: ${err.message}]`); return;
    }
    if (frame.frame === "opened") {
      if (frame.from > frame.earliest && row.output.childElementCount === 0 && frame.from > 0) {
        appendLine(row, "gap", `[resumed at byte ${frame.from}]`);
      }
      updateRow(row, frame.job);
    } else if (frame.frame === "output") {
      if (frame.lossy) appendLine(row, "gap", "[output was dropped here]");
      for (const chunk of frame.chunks) {
        if (chunk.gapBefore && !frame.lossy) appendLine(row, "gap", "[output was dropped here]");
        appendChunk(row, chunk);
      }
    } else if (frame.frame === "status") {
      updateRow(row, frame.job);
      closeFollow(row);
    }
  };
  for (const name of ["opened", "output", "status"]) src.addEventListener(name, onFrame);
  src.addEventListener("bye", () => closeFollow(row));
}

function closeFollow(row) {
  if (row.source) { row.source.close(); row.source = null; }
}

function appendChunk(row, chunk) {
  const chan = chunk.channel || "";
  const span = el("span", { class: chan === "stderr" ? "stderr" : "text", "data-channel": chan });
  if (chan) span.append(el("span", { class: "chan", "aria-hidden": "true" }, `[${chan}] `));
  span.append(chunk.text);
  row.output.append(span);
  row.output.scrollTop = row.output.scrollHeight;
}

function appendLine(row, cls, text) {
  row.output.append(el("span", { class: cls }, text + "\n"));
}

async function killJob(row) {
  row.kill.disabled = true;
  try {
    const res = await fetch(new URL(`jobs/${row.job.id}/kill`, api), {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ reason: "killed from the jobs page" }),
    });
    if (!res.ok) throw new Error((await res.json()).error ?? res.statusText);
    const body = await res.json();
    updateRow(row, decodeJobSnapshot(body.job));
  } catch (err) {
    row.detail.hidden = false;
    row.detail.textContent = `kill failed: ${err.message}`;
    row.kill.disabled = row.job.status !== "running";
  }
}

// watchRoster keeps the roster stream open. EventSource retries a dropped
// stream by itself but gives up on a refusal (such as a 429 when the session
// holds too many streams); then the page asks the server why, shows its
// answer, and tries again after the Retry-After it was given.
function watchRoster() {
  const url = new URL("jobs/events", api);
  const src = new EventSource(url);
  src.addEventListener("open", () => { connEl.textContent = "live"; });
  src.addEventListener("error", () => {
    if (src.readyState !== EventSource.CLOSED) { connEl.textContent = "reconnecting…"; return; }
    explainRefusal(url).then((retryAfter) => setTimeout(watchRoster, retryAfter * 1000));
  });
  src.addEventListener("roster", (ev) => {
    try {
      const list = JSON.parse(ev.data);
      if (!Array.isArray(list)) throw new Error("roster is not a list");
      renderRoster(list.map(decodeJobSnapshot));
    } catch (err) {
      connEl.textContent = `bad roster: ${err.message}`;
    }
    loadTimeline();
  });
  src.addEventListener("bye", () => { connEl.textContent = "server closed"; src.close(); });
}

// explainRefusal shows why the server refused a stream and resolves to the
// seconds to wait before trying again. A probe that gets a stream after all
// is cancelled at once.
async function explainRefusal(url) {
  const probe = new AbortController();
  try {
    const res = await fetch(url, { signal: probe.signal });
    if (res.ok) { probe.abort(); return 1; }
    const body = await res.json().catch(() => ({}));
    connEl.textContent = `not connected: ${body.error ?? res.statusText}`;
    return Math.min(60, Math.max(1, Number(res.headers.get("Retry-After")) || 5));
  } catch (err) {
    connEl.textContent = "not connected: the server cannot be reached";
    return 5;
  }
}

// The timeline draws each job's interval, registered to settled (or to now
// while incomplete), from the journal's history of the session.
let timelineDue = null;
function loadTimeline() {
  if (timelineDue) return;
  timelineDue = setTimeout(async () => {
    timelineDue = null;
    const box = document.getElementById("timeline");
    const note = document.getElementById("timeline-note");
    try {
      const res = await fetch(new URL("history", api));
      if (res.status === 404) { note.textContent = "This server keeps no history."; return; }
      if (!res.ok) throw new Error(res.statusText);
      drawTimeline(box, await res.json());
    } catch (err) {
      note.textContent = `history unavailable: ${err.message}`;
    }
  }, 250);
}

function drawTimeline(box, intervals) {
  const ns = "http://www.w3.org/2000/svg";
  const now = Date.now();
  const items = intervals.filter((iv) => iv.registeredAt > 0);
  box.replaceChildren();
  if (items.length === 0) { box.append(el("p", {}, "No intervals yet.")); return; }
  const t0 = Math.min(...items.map((iv) => iv.registeredAt));
  const t1 = Math.max(...items.map((iv) => iv.settledAt || now), t0 + 1);
  const rowH = 22, labelW = 110, width = 600;
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", `0 0 ${width} ${items.length * rowH + 4}`);
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", `Timeline of ${items.length} jobs`);
  items.forEach((iv, i) => {
    const end = iv.settledAt || now;
    const x = labelW + ((iv.registeredAt - t0) / (t1 - t0)) * (width - labelW - 4);
    const w = Math.max(2, ((end - iv.registeredAt) / (t1 - t0)) * (width - labelW - 4));
    const status = iv.complete ? iv.status : "incomplete";
    const label = document.createElementNS(ns, "text");
    label.setAttribute("x", "2"); label.setAttribute("y", String(i * rowH + 15));
    label.textContent = `${iv.kind}-${iv.ordinal}`;
    const bar = document.createElementNS(ns, "rect");
    bar.setAttribute("x", String(x)); bar.setAttribute("y", String(i * rowH + 4));
    bar.setAttribute("width", String(w)); bar.setAttribute("height", String(rowH - 8));
    bar.setAttribute("class", `bar-${status}`);
    const title = document.createElementNS(ns, "title");
    title.textContent = `${iv.kind}-${iv.ordinal} ${iv.label}: ${status}, ${end - iv.registeredAt} ms`;
    bar.append(title);
    svg.append(label, bar);
  });
  box.append(svg);
}

watchRoster();
