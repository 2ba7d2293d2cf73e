// Compiled by tools/ts/page.sh from jobhttp/static/logview.mts with the pinned tsc. DO NOT EDIT.
// The page's log viewer: a job's output as numbered, timestamped lines with
// their terminal colours, in collapsible groups, searchable, following the
// end until the reader scrolls away. The lines live in a model; the document
// holds only the rows in view (and a few around them), so a job of a hundred
// thousand lines costs the page what a screenful does.
import { PLAIN, SGRReader, stripControls } from "./ansi.mjs";
/** Expanded says whether a group's lines are shown: the reader's choice, else while it runs. */
export function expanded(g) {
    return g.opened ?? g.running;
}
/** maxLines bounds the lines a model keeps; past it the oldest go, and numbering goes on. */
export const maxLines = 200_000;
// The GitHub Actions workflow commands that open and close a group, in
// their current form and the older ##[…] one the runner still honours.
const groupOpen = /^(?:::group::|##\[group\])(.*)$/;
const groupClose = /^(?:::endgroup::|##\[endgroup\])\s*$/;
/**
 * A LogModel turns a job's chunks into lines: newlines end a line, a
 * carriage return makes the next text overwrite the line in place (a
 * progress bar), each channel keeps its own terminal style, and text of
 * another channel starts a line of its own. Lines of the log channel are
 * the producer's narration for the people watching (never the model's
 * output): the viewer styles them apart.
 *
 * It also gathers lines into groups. A line `::group::NAME` opens one and
 * `::endgroup::` closes it; both marker lines are taken out of the output,
 * as GitHub Actions takes them (they get no line number). OSC 133 marks
 * make each command a group: its output starts at C, it ends at D (which
 * carries the exit code), and its name is the command's text, what the
 * output held between B and C. Groups do not nest, as Actions' do not: an
 * opening while a group is open closes that group first, and so does a
 * prompt (A) or a command start (B) after a command that never said D.
 */
export class LogModel {
    lines = [];
    segments = [];
    /** Base is the number of lines dropped from the front: line i is number base+i+1. */
    base = 0;
    /**
     * Version changes whenever the segments change in other ways than the
     * last one growing or shrinking (one added or dropped, a group opened or
     * collapsed), so a view rebuilds its row index only then.
     */
    version = 0;
    readers = new Map();
    open = null;
    cr = false;
    current = null; // the running group
    groups = 0;
    command = null; // a command's text, between B and C
    /** Append adds a chunk's text, appended at `at` on channel. */
    append(text, at, channel) {
        let reader = this.readers.get(channel);
        if (reader === undefined) {
            reader = new SGRReader();
            this.readers.set(channel, reader);
        }
        const parts = text.split(/(\r\n|\n|\r)/);
        for (let i = 0; i < parts.length; i++) {
            const part = parts[i] ?? "";
            if (i % 2 === 1) {
                if (part === "\r")
                    this.cr = true;
                else {
                    if (this.open === null || this.open.channel !== channel)
                        this.startLine(at, channel);
                    this.endLine();
                    if (this.command !== null)
                        this.command += " ";
                }
                continue;
            }
            if (part === "")
                continue;
            for (const s of reader.read(part)) {
                if ("mark" in s)
                    this.mark(s, at);
                else
                    this.addSpan(s, at, channel);
            }
        }
    }
    /** Note adds a line of the page's own (a gap, a failure), set apart from the output. */
    note(text, at) {
        this.open = null;
        this.push({ spans: [{ text, style: PLAIN }], text, at, channel: "", note: true, group: this.current });
    }
    /** Toggle opens a collapsed group or collapses an expanded one, as the reader asked. */
    toggle(g) {
        this.setOpened(g, !expanded(g));
    }
    /** SetOpened records the reader's choice for g. */
    setOpened(g, opened) {
        if (g.opened === opened)
            return;
        g.opened = opened;
        this.version++;
    }
    addSpan(s, at, channel) {
        const t = stripControls(s.text);
        if (t === "")
            return;
        if (this.command !== null)
            this.command += t;
        if (this.open !== null && this.open.channel !== channel)
            this.open = null;
        if (this.open === null)
            this.startLine(at, channel);
        const line = this.open;
        if (this.cr) {
            line.spans = [];
            line.text = "";
            this.cr = false;
        }
        const last = line.spans[line.spans.length - 1];
        if (last !== undefined && last.style === s.style)
            line.spans[line.spans.length - 1] = { text: last.text + t, style: s.style };
        else
            line.spans.push({ text: t, style: s.style });
        line.text += t;
    }
    /** endLine ends the open line, taking it out again when it is a group marker. */
    endLine() {
        const line = this.open;
        this.open = null;
        this.cr = false;
        if (line === null || line.note)
            return;
        const opened = groupOpen.exec(line.text);
        if (opened === null && !groupClose.test(line.text))
            return;
        this.unpush(line);
        this.closeGroup(null);
        if (opened !== null)
            this.openGroup("actions", (opened[1] ?? "").trim(), line.at);
    }
    /** mark applies one OSC 133 mark. */
    mark(m, at) {
        if (m.mark === "A" || m.mark === "B") {
            if (this.current?.kind === "command")
                this.closeGroup(null);
            this.command = m.mark === "B" ? "" : null;
        }
        else if (m.mark === "C") {
            const name = (this.command ?? "").trim();
            this.command = null;
            this.open = null; // the output starts on a line of its own
            this.closeGroup(null);
            this.openGroup("command", name === "" ? "command" : name, at);
        }
        else if (this.current?.kind === "command") {
            this.open = null;
            this.closeGroup(m.exit ?? null);
        }
    }
    openGroup(kind, name, at) {
        const seg = { first: this.base + this.lines.length + 1, count: 0, group: null };
        const g = { id: ++this.groups, kind, name, seg, startAt: at, endAt: at, exit: null, running: true, opened: null };
        seg.group = g;
        this.segments.push(seg);
        this.current = g;
        this.version++;
    }
    closeGroup(exit) {
        const g = this.current;
        if (g === null)
            return;
        this.current = null;
        g.running = false;
        g.exit = exit;
        if (g.opened === null)
            this.version++; // it collapses
    }
    startLine(at, channel) {
        this.open = { spans: [], text: "", at, channel, note: false, group: this.current };
        this.push(this.open);
    }
    push(line) {
        this.lines.push(line);
        const last = this.segments[this.segments.length - 1];
        if (last !== undefined && last.group === line.group)
            last.count++;
        else {
            this.segments.push({ first: this.base + this.lines.length, count: 1, group: null });
            this.version++;
        }
        const g = line.group;
        if (g !== null) {
            if (g.seg.count === 1)
                g.startAt = line.at;
            g.endAt = line.at;
        }
        if (this.lines.length > maxLines)
            this.drop(this.lines.length - maxLines);
    }
    /** unpush takes back the last line, a marker the output turned out to hold. */
    unpush(line) {
        if (this.lines[this.lines.length - 1] !== line)
            return;
        this.lines.pop();
        const last = this.segments[this.segments.length - 1];
        if (last === undefined)
            return;
        last.count--;
        const g = last.group;
        if (g !== null && g.seg.count > 0)
            g.endAt = this.lines[this.lines.length - 1].at;
        if (last.count === 0 && g === null) {
            this.segments.pop();
            this.version++;
        }
    }
    /** drop drops the n oldest lines, and the segments they emptied. */
    drop(n) {
        this.lines.splice(0, n);
        this.base += n;
        let gone = 0;
        for (const seg of this.segments) {
            if (seg.first > this.base)
                break; // it starts at a line still kept
            const cut = Math.min(seg.count, this.base + 1 - seg.first);
            seg.first += cut;
            seg.count -= cut;
            if (seg.count === 0 && seg.group !== this.current)
                gone++;
            else
                break;
        }
        this.segments.splice(0, gone);
        this.version++;
    }
}
/**
 * A RowIndex maps the rows a view shows to the model's lines and groups:
 * each group is a header row, followed by its lines when it is expanded.
 * It keeps the rows before each segment, rebuilt (over the segments, not
 * the lines) only when the model's version changes, so finding the rows in
 * view costs a binary search and the rows themselves, however long the
 * output.
 */
export class RowIndex {
    model;
    before = [];
    version = -1;
    constructor(model) {
        this.model = model;
    }
    /** Total is the number of rows. */
    get total() {
        this.sync();
        const segs = this.model.segments;
        const k = segs.length - 1;
        return k < 0 ? 0 : (this.before[k] ?? 0) + shown(segs[k]);
    }
    /** Rows returns rows first up to (not including) last. */
    rows(first, last) {
        this.sync();
        const out = [];
        const segs = this.model.segments;
        last = Math.min(last, this.total);
        let k = this.segmentAt(first);
        let r = first;
        while (r < last && k < segs.length) {
            const seg = segs[k];
            let at = r - (this.before[k] ?? 0); // row within the segment
            const end = Math.min(last - r + at, shown(seg));
            for (; at < end; at++, r++) {
                if (seg.group !== null && at === 0)
                    out.push({ header: seg.group });
                else
                    out.push({ line: seg.first - this.model.base - 1 + at - (seg.group !== null ? 1 : 0) });
            }
            k++;
        }
        return out;
    }
    /** RowOfLine is the row that shows the line at index i, or -1 when its group is collapsed. */
    rowOfLine(i) {
        this.sync();
        const n = this.model.base + i + 1;
        const segs = this.model.segments;
        let lo = 0, hi = segs.length - 1;
        while (lo <= hi) {
            const mid = (lo + hi) >> 1;
            const seg = segs[mid];
            if (n < seg.first)
                hi = mid - 1;
            else if (n >= seg.first + seg.count)
                lo = mid + 1;
            else {
                if (seg.group !== null && !expanded(seg.group))
                    return -1;
                return (this.before[mid] ?? 0) + (seg.group !== null ? 1 : 0) + (n - seg.first);
            }
        }
        return -1;
    }
    /** Reveal opens the group the line at index i is in when it is collapsed, and returns the row that shows the line. */
    reveal(i) {
        const g = this.model.lines[i]?.group ?? null;
        if (g !== null && !expanded(g))
            this.model.setOpened(g, true);
        return this.rowOfLine(i);
    }
    /** segmentAt is the index of the segment row r falls in. */
    segmentAt(r) {
        let lo = 0, hi = this.before.length - 1, found = 0;
        while (lo <= hi) {
            const mid = (lo + hi) >> 1;
            if ((this.before[mid] ?? 0) <= r) {
                found = mid;
                lo = mid + 1;
            }
            else
                hi = mid - 1;
        }
        return found;
    }
    sync() {
        if (this.version === this.model.version)
            return;
        this.version = this.model.version;
        const segs = this.model.segments;
        this.before = new Array(segs.length);
        let sum = 0;
        for (let k = 0; k < segs.length; k++) {
            this.before[k] = sum;
            sum += shown(segs[k]);
        }
    }
}
/** shown is the rows a segment takes: its lines, and a header for a group, whose lines show only when it is expanded. */
function shown(seg) {
    if (seg.group === null)
        return seg.count;
    return 1 + (expanded(seg.group) ? seg.count : 0);
}
/** rowHeight is a row's height in CSS pixels; style.css sets the same. */
const rowHeight = 18;
/** overscan is how many rows are kept beyond the visible ones on each side. */
const overscan = 20;
let views = 0;
/**
 * A LogView shows a LogModel: a toolbar (search, time mode, follow,
 * download) over a scrolling pane of rows. Only the rows in view are in the
 * document. A group's header row is a button (aria-expanded) that opens or
 * collapses it; a search match or a linked line inside a collapsed group
 * opens that group.
 */
export class LogView {
    root;
    model = new LogModel();
    index = new RowIndex(this.model);
    pane;
    headers = new Map(); // the groups whose headers are in the document, by id
    spacer;
    rows;
    counter;
    followBtn;
    timeBtn;
    search;
    opts;
    following = true;
    absolute = false;
    query = "";
    matches = [];
    scanned = 0; // lines searched for the query so far
    current = -1; // index into matches
    target = -1; // line number to mark, from a link
    due = 0;
    savedTop = 0;
    /** The slowest render so far, and the last, in milliseconds from the frame's arrival. */
    maxRenderMs = 0;
    lastRenderMs = 0;
    constructor(opts) {
        this.opts = opts;
        const id = `log${++views}`;
        this.search = h("input", { type: "search", class: "log-search", placeholder: "Search output", "aria-label": `Search the output of ${opts.name}` });
        const prev = h("button", { type: "button", class: "log-prev", "aria-label": "Previous match" }, "↑");
        const next = h("button", { type: "button", class: "log-next", "aria-label": "Next match" }, "↓");
        this.counter = h("span", { class: "log-count", "aria-live": "off" });
        this.timeBtn = h("button", { type: "button", class: "log-time", "aria-pressed": "false" }, "Absolute time");
        this.followBtn = h("button", { type: "button", class: "log-follow", "aria-pressed": "true" }, "Follow");
        const raw = h("a", { class: "log-raw button", href: opts.rawHref, download: `${opts.name}.log` }, "Raw");
        raw.setAttribute("aria-label", `Download the raw output of ${opts.name}`);
        const bar = h("div", { class: "log-bar", role: "toolbar", "aria-label": `Output of ${opts.name}` }, this.search, prev, next, this.counter, this.timeBtn, this.followBtn, raw);
        this.spacer = h("div", { class: "log-spacer" });
        this.rows = h("div", { class: "log-rows" });
        this.pane = h("div", { class: "output", id, tabindex: "0", role: "log", "aria-live": "off", "aria-label": `Output of ${opts.name}` }, this.spacer, this.rows);
        // The place of a one-line terminal input, for jobs that take one; the
        // page does not offer it yet.
        const input = h("div", { class: "log-input", "data-slot": "input" });
        input.hidden = true;
        this.root = h("div", { class: "log" }, bar, this.pane, input);
        this.pane.addEventListener("scroll", () => {
            const atEnd = this.pane.scrollTop + this.pane.clientHeight >= this.pane.scrollHeight - rowHeight / 2;
            if (atEnd !== this.following)
                this.setFollowing(atEnd, false);
            this.schedule();
        });
        this.followBtn.addEventListener("click", () => this.setFollowing(!this.following, true));
        this.timeBtn.addEventListener("click", () => {
            this.absolute = !this.absolute;
            this.timeBtn.setAttribute("aria-pressed", String(this.absolute));
            this.timeBtn.textContent = this.absolute ? "Relative time" : "Absolute time";
            this.render();
        });
        this.search.addEventListener("input", () => this.setQuery(this.search.value));
        this.search.addEventListener("keydown", (e) => {
            if (e.key === "Enter") {
                e.preventDefault();
                this.step(e.shiftKey ? -1 : 1);
            }
            else if (e.key === "Escape") {
                this.search.value = "";
                this.setQuery("");
            }
        });
        prev.addEventListener("click", () => this.step(-1));
        next.addEventListener("click", () => this.step(1));
        this.rows.addEventListener("click", (e) => {
            const btn = e.target.closest("button.log-group");
            const g = btn instanceof HTMLElement ? this.headers.get(Number(btn.dataset["group"])) : undefined;
            if (g === undefined)
                return;
            this.model.toggle(g);
            this.setFollowing(false, false);
            this.layout();
        });
    }
    /** layout sizes the pane for the rows the groups now show, and renders. */
    layout() {
        this.spacer.style.height = `${this.index.total * rowHeight}px`;
        if (this.following)
            this.pane.scrollTop = this.pane.scrollHeight;
        this.render();
    }
    /** Append adds a chunk; call Flush once a frame's chunks are in. */
    append(text, at, channel) {
        this.model.append(text, at, channel);
    }
    /** Note adds a line of the page's own. */
    note(text) {
        this.model.note(text, Date.now());
        this.flush();
    }
    /** Flush renders what was appended, now, and notes how long it took since arrived (performance.now()). */
    flush(arrived = performance.now()) {
        this.scan();
        this.layout();
        this.lastRenderMs = performance.now() - arrived;
        this.maxRenderMs = Math.max(this.maxRenderMs, this.lastRenderMs);
        this.pane.dataset["renderMs"] = this.lastRenderMs.toFixed(1);
        this.pane.dataset["maxRenderMs"] = this.maxRenderMs.toFixed(1);
        this.pane.dataset["lines"] = String(this.model.lines.length);
        this.pane.dataset["groups"] = String(this.model.segments.filter((s) => s.group !== null).length);
    }
    /** Hide hides the view, keeping its scroll position: a hidden pane loses it. */
    hide() {
        if (!this.root.hidden)
            this.savedTop = this.pane.scrollTop;
        this.root.hidden = true;
    }
    /** Show shows the view where it was, or at the end when following. */
    show() {
        this.root.hidden = false;
        this.pane.scrollTop = this.following ? this.pane.scrollHeight : this.savedTop;
        this.render();
    }
    /** ScrollToLine brings line number n (1-based, as the rows number it) into view and marks it. */
    scrollToLine(n) {
        const i = n - this.model.base - 1;
        if (i < 0 || i >= this.model.lines.length)
            return false;
        this.target = n;
        this.setFollowing(false, false);
        this.reveal(i);
        return true;
    }
    /** reveal opens the group line i is in, when it is collapsed, and scrolls the line into view unless it is in view. */
    reveal(i) {
        const top = this.index.reveal(i) * rowHeight;
        this.spacer.style.height = `${this.index.total * rowHeight}px`;
        if (top < this.pane.scrollTop || top > this.pane.scrollTop + this.pane.clientHeight - rowHeight) {
            this.pane.scrollTop = Math.max(0, top - this.pane.clientHeight / 3);
        }
        this.render();
    }
    setFollowing(on, jump) {
        this.following = on;
        this.followBtn.setAttribute("aria-pressed", String(on));
        this.followBtn.textContent = on ? "Follow" : "Paused";
        if (on && jump) {
            this.pane.scrollTop = this.pane.scrollHeight;
            this.render();
        }
    }
    schedule() {
        if (this.due !== 0)
            return;
        this.due = requestAnimationFrame(() => {
            this.due = 0;
            this.render();
        });
    }
    setQuery(q) {
        this.query = q.toLowerCase();
        this.matches = [];
        this.scanned = 0;
        this.current = -1;
        this.scan();
        if (this.matches.length > 0)
            this.step(1);
        else
            this.render();
    }
    /** scan searches the lines not searched yet. */
    scan() {
        const q = this.query;
        const lines = this.model.lines;
        if (this.scanned > lines.length)
            this.scanned = 0; // lines were dropped
        if (q === "") {
            this.counter.textContent = "";
            return;
        }
        // the last line may still grow: search it again each time
        this.matches = this.matches.filter((m) => m.line < this.scanned - 1);
        for (let i = Math.max(0, this.scanned - 1); i < lines.length; i++) {
            const text = lines[i].text.toLowerCase();
            for (let at = text.indexOf(q); at >= 0; at = text.indexOf(q, at + q.length)) {
                this.matches.push({ line: i, start: at, end: at + q.length });
            }
        }
        this.scanned = lines.length;
        this.count();
    }
    count() {
        const n = this.matches.length;
        this.counter.textContent = n === 0 ? "no matches" : `${this.current + 1} of ${n}`;
    }
    /** step moves to the next (1) or previous (-1) match and scrolls to it. */
    step(dir) {
        const n = this.matches.length;
        if (n === 0)
            return;
        this.current = (this.current + dir + n) % n;
        const m = this.matches[this.current];
        this.setFollowing(false, false);
        this.count();
        this.reveal(m.line);
    }
    /** render puts the rows in view into the document, and no others. */
    render() {
        const lines = this.model.lines;
        const first = Math.max(0, Math.floor(this.pane.scrollTop / rowHeight) - overscan);
        const last = Math.min(this.index.total, Math.ceil((this.pane.scrollTop + Math.max(this.pane.clientHeight, 400)) / rowHeight) + overscan);
        const rows = this.index.rows(first, last);
        let lo = Infinity, hi = -1; // the line indices in view
        for (const r of rows) {
            if ("line" in r) {
                lo = Math.min(lo, r.line);
                hi = Math.max(hi, r.line);
            }
        }
        // The matches are in line order: find those in view by a binary search,
        // so a query that matches every line costs a scroll no more than one that
        // matches a few.
        const byLine = new Map();
        let a = 0, b = this.matches.length;
        while (a < b) {
            const mid = (a + b) >> 1;
            if (this.matches[mid].line < lo)
                a = mid + 1;
            else
                b = mid;
        }
        for (let k = a; k < this.matches.length; k++) {
            const m = this.matches[k];
            if (m.line > hi)
                break;
            const list = byLine.get(m.line);
            if (list === undefined)
                byLine.set(m.line, [m]);
            else
                list.push(m);
        }
        const cur = this.current >= 0 ? this.matches[this.current] : undefined;
        // A header re-rendered under the keyboard's focus keeps it.
        const active = document.activeElement;
        const focused = active instanceof HTMLElement && this.rows.contains(active) ? active.dataset["group"] : undefined;
        this.headers = new Map();
        const frag = document.createDocumentFragment();
        for (const r of rows) {
            if ("line" in r)
                frag.append(this.row(lines[r.line], r.line, byLine.get(r.line) ?? [], cur));
            else {
                this.headers.set(r.header.id, r.header);
                frag.append(this.header(r.header));
            }
        }
        this.rows.style.transform = `translateY(${first * rowHeight}px)`;
        this.rows.replaceChildren(frag);
        if (focused !== undefined)
            this.rows.querySelector(`button.log-group[data-group="${focused}"]`)?.focus({ preventScroll: true });
    }
    /** header is a group's header row: a button with its name, line count, duration and, for a command, its exit. */
    header(g) {
        const open = expanded(g);
        const lines = g.seg.count === 1 ? "1 line" : `${g.seg.count} lines`;
        const meta = [lines, g.running ? `running ${duration(g.endAt - g.startAt)}` : duration(g.endAt - g.startAt)];
        const failed = g.exit !== null && g.exit !== 0;
        if (g.exit !== null)
            meta.push(failed ? `✗ exit ${g.exit}` : `✓ exit 0`);
        const btn = h("button", { type: "button", class: "log-group", "aria-expanded": String(open), "data-group": String(g.id) }, h("span", { class: "caret", "aria-hidden": "true" }, open ? "▾" : "▸"), h("span", { class: "name" }, g.name === "" ? "(unnamed group)" : g.name), h("span", { class: "meta" }, meta.join(" · ")));
        const ts = h("span", { class: "ts", title: new Date(g.startAt).toISOString() }, this.absolute ? clock(new Date(g.startAt)) : relative(g.startAt - this.opts.startedAt));
        const cls = "ln group-head" + (g.running ? " running" : "") + (failed ? " failed" : "");
        return h("div", { class: cls, "data-group": String(g.id), "data-kind": g.kind }, h("span", { class: "num" }), ts, btn);
    }
    row(line, i, matches, cur) {
        const n = this.model.base + i + 1;
        const num = h("a", { class: "num", href: `#job=${this.opts.job}&line=${n}`, tabindex: "-1", "aria-label": `Line ${n}` }, String(n));
        const when = new Date(line.at);
        const ts = h("span", { class: "ts", title: when.toISOString() }, this.absolute ? clock(when) : relative(line.at - this.opts.startedAt));
        const txt = h("span", { class: "txt" });
        let start = 0;
        for (const s of line.spans) {
            const end = start + s.text.length;
            appendMarked(txt, s, start, matches, cur);
            start = end;
        }
        let cls = line.note ? "ln note" : line.channel === "stderr" || line.channel === "log" ? "ln " + line.channel : "ln";
        if (line.group !== null)
            cls += " in-group";
        const row = h("div", { class: n === this.target ? cls + " target" : cls, "data-line": String(n) }, num, ts, txt);
        if (line.channel !== "")
            row.dataset["channel"] = line.channel;
        return row;
    }
}
/** appendMarked appends span s (at offset start of its line) to parent, with the matches in it marked. */
function appendMarked(parent, s, start, matches, cur) {
    const end = start + s.text.length;
    let at = start;
    for (const m of matches) {
        if (m.end <= at || m.start >= end)
            continue;
        const a = Math.max(m.start, at), b = Math.min(m.end, end);
        if (a > at)
            parent.append(styled(s.text.slice(at - start, a - start), s.style));
        const mark = h("mark", m === cur ? { class: "current" } : {});
        mark.append(styled(s.text.slice(a - start, b - start), s.style));
        parent.append(mark);
        at = b;
    }
    if (at < end)
        parent.append(styled(s.text.slice(at - start), s.style));
}
/** styled is text in a style: a text node when plain, else a span whose classes and colours say the style. */
export function styled(text, st) {
    if (st === PLAIN)
        return document.createTextNode(text);
    const span = document.createElement("span");
    span.textContent = text;
    const cls = [];
    let fg = st.fg, bg = st.bg;
    if (st.inverse) {
        [fg, bg] = [bg, fg];
        if (fg === undefined)
            cls.push("inv-fg");
        if (bg === undefined)
            cls.push("inv-bg");
    }
    if (typeof fg === "number")
        cls.push(`f${fg}`);
    else if (fg !== undefined)
        span.style.color = fg;
    if (typeof bg === "number")
        cls.push(`b${bg}`);
    else if (bg !== undefined)
        span.style.backgroundColor = bg;
    if (st.bold)
        cls.push("bold");
    if (st.dim)
        cls.push("dim");
    if (st.italic)
        cls.push("italic");
    if (st.underline)
        cls.push("underline");
    if (st.strike)
        cls.push("strike");
    if (cls.length > 0)
        span.className = cls.join(" ");
    return span;
}
/** relative writes a duration since the job's start as +1.234s, +2m03s, +1h02m. */
export function relative(ms) {
    return "+" + duration(Math.max(0, ms), true);
}
/** duration writes ms as 850ms, 12.3s, 2m03s or 1h02m; precise keeps milliseconds under a minute. */
export function duration(ms, precise = false) {
    if (ms < 1000 && !precise)
        return `${Math.round(ms)}ms`;
    const s = ms / 1000;
    if (s < 60)
        return precise ? `${s.toFixed(3)}s` : `${s.toFixed(1)}s`;
    const m = Math.floor(s / 60);
    if (m < 60)
        return `${m}m${String(Math.floor(s % 60)).padStart(2, "0")}s`;
    return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, "0")}m`;
}
/** clock writes a time of day as 14:03:07.250. */
export function clock(d) {
    const p = (n, w = 2) => String(n).padStart(w, "0");
    return `${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}.${p(d.getMilliseconds(), 3)}`;
}
/** h makes an element with attributes and children, text as text nodes. */
export function h(tag, attrs = {}, ...children) {
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
