// Compiled by tools/ts/page.sh from jobhttp/static/timeline.mts with the pinned tsc. DO NOT EDIT.
import { clock, duration, h } from "./logview.mjs";
const ns = "http://www.w3.org/2000/svg";
const rowH = 22, axisH = 24, labelW = 120, pad = 8;
/** overscan is how many rows above and below the box's view are drawn too, so a scroll shows drawn rows before the next frame. */
const overscan = 10;
/** The outcomes the timeline tells apart, in the legend's order. */
const outcomes = [
    ["completed", "completed"],
    ["failed", "failed"],
    ["killed", "killed"],
    ["timeout", "timed out"],
    ["incomplete", "running / incomplete"],
];
/** outcome is the class of an interval's bar: its status, timeout when its deadline settled it, incomplete while open. */
export function outcome(iv) {
    if (!iv.complete)
        return "incomplete";
    if (iv.cause === "timeout")
        return "timeout";
    return iv.status ?? "completed";
}
/** Tick steps, in milliseconds, from which the axis takes the smallest that fits. */
const steps = [100, 250, 500, 1e3, 2e3, 5e3, 10e3, 15e3, 30e3, 60e3, 120e3, 300e3, 600e3, 900e3, 1800e3, 3600e3, 7200e3, 21600e3, 43200e3, 86400e3];
/** ticks returns the tick times in [t0, t1] for a plot w pixels wide, and the step. */
export function ticks(t0, t1, w) {
    const most = Math.max(2, Math.floor(w / 90));
    const step = steps.find((s) => (t1 - t0) / s <= most) ?? steps[steps.length - 1];
    const out = [];
    for (let t = Math.ceil(t0 / step) * step; t <= t1; t += step)
        out.push(t);
    return [out, step];
}
function tickLabel(t, step) {
    const c = clock(new Date(t));
    return step < 1000 ? c : step < 60e3 ? c.slice(0, 8) : c.slice(0, 5);
}
function svg(tag, attrs) {
    const e = document.createElementNS(ns, tag);
    for (const [k, v] of Object.entries(attrs))
        e.setAttribute(k, String(v));
    return e;
}
/** A Timeline draws intervals into its box; Draw again redraws with the zoom kept. */
export class Timeline {
    root;
    plot;
    tip;
    reset;
    /** axis is the time axis above the rows, outside the scroll box so it stays in view. */
    axis;
    /** box scrolls the rows; spacer is as tall as all of them; rows is the SVG of those in view. */
    box;
    spacer;
    rows;
    band;
    /** count says how many rows the box holds, and that it scrolls when they are more than it shows. */
    count;
    items = [];
    zoom = null;
    now = Date.now();
    /** key is what the drawn intervals are made of (ids, ends, statuses, the lost set): the same key draws the same bars. */
    key = "";
    /** span is the range the axis shows, width the plot's in pixels, as last laid out; window the rows drawn. */
    span = [0, 1];
    width = 0;
    window = [0, 0];
    paintDue = false;
    /** lost are the jobs whose host a fleet view says is lost: a bar that ends where it began, never one growing with the clock. */
    lost = new Set();
    legend = null;
    /** lostEntry is the legend's entry for lost jobs, there only while some are drawn (a fleet view). */
    lostEntry = h("li", {}, h("span", { class: "swatch bar-lost", "aria-hidden": "true" }), "lost with its host");
    constructor(root) {
        this.root = root;
        const legend = h("ul", { class: "legend", "aria-label": "Legend" });
        for (const [cls, label] of outcomes)
            legend.append(h("li", {}, h("span", { class: `swatch bar-${cls}`, "aria-hidden": "true" }), label));
        this.legend = legend;
        const zoomIn = h("button", { type: "button", class: "zoom-in" }, "Zoom in");
        const zoomOut = h("button", { type: "button", class: "zoom-out" }, "Zoom out");
        this.reset = h("button", { type: "button", class: "zoom-reset" }, "Reset zoom");
        this.reset.disabled = true;
        const tools = h("div", { class: "timeline-tools" }, legend, h("span", { class: "zoom-hint" }, "Drag across the plot to zoom."), zoomIn, zoomOut, this.reset);
        this.plot = h("div", { class: "timeline-plot" }, h("p", {}, "Loading the history…"));
        this.axis = svg("svg", { class: "timeline-axis", "aria-hidden": "true" });
        this.spacer = h("div", { class: "timeline-spacer" });
        this.rows = svg("svg", {});
        this.box = h("div", { class: "timeline-rows" }, this.spacer);
        this.count = h("p", { class: "timeline-count muted" });
        this.band = h("div", { class: "zoom-band" });
        this.band.hidden = true;
        this.tip = h("div", { class: "tip", role: "tooltip", id: "timeline-tip" });
        this.tip.hidden = true;
        root.replaceChildren(tools, this.plot, this.tip);
        zoomIn.addEventListener("click", () => this.scale(0.5));
        zoomOut.addEventListener("click", () => this.scale(2));
        this.reset.addEventListener("click", () => this.setZoom(null));
        this.box.addEventListener("scroll", () => {
            this.tip.hidden = true;
            if (this.paintDue)
                return;
            this.paintDue = true;
            requestAnimationFrame(() => {
                this.paintDue = false;
                this.paint(false);
            });
        });
        this.box.addEventListener("keydown", (e) => this.step(e));
        this.dragZoom();
        new ResizeObserver(() => this.redraw()).observe(this.plot);
    }
    /** Draw shows intervals (those with a registration time), as of now; the same intervals again draw nothing unless the axis moved. */
    draw(intervals, now = Date.now(), lost = new Set()) {
        this.lost = lost;
        if (lost.size > 0)
            this.legend?.append(this.lostEntry);
        else
            this.lostEntry.remove();
        this.items = intervals.filter((iv) => iv.registeredAt > 0);
        this.now = now;
        const key = this.keyOf();
        if (key === this.key && this.items.length > 0 && !this.moved()) {
            this.plot.dataset["skipped"] = String(Number(this.plot.dataset["skipped"] ?? "0") + 1);
            return;
        }
        this.key = key;
        this.redraw();
    }
    /** keyOf says what the bars are drawn from, save the clock: each interval's id, end, status, cause and whether it is lost. */
    keyOf() {
        const parts = [];
        for (const iv of this.items) {
            parts.push(`${iv.jobId} ${iv.complete ? 1 : 0} ${iv.settledAt ?? ""} ${iv.status ?? ""} ${iv.cause ?? ""} ${this.lost.has(iv.jobId) ? 1 : 0} ${iv.detail ?? ""}`);
        }
        return parts.join("\n");
    }
    /** moved says whether the range in view now differs from the drawn one by a pixel or more at either end: a running bar grew. */
    moved() {
        const [a, b] = this.zoom ?? this.full();
        const [c, d] = this.span;
        const px = (d - c) / Math.max(1, this.width - labelW - pad);
        return Math.abs(a - c) >= px || Math.abs(b - d) >= px;
    }
    /** open is how many drawn intervals are incomplete (running, or lost with their host): only those change with the clock or a host's lease, with no event of the roster's. */
    get open() {
        let n = 0;
        for (const iv of this.items)
            if (!iv.complete)
                n++;
        return n;
    }
    /** Zoomed is the range in view, or null for all of it. */
    get range() {
        return this.zoom;
    }
    setZoom(z) {
        this.zoom = z !== null && z[1] - z[0] >= 50 ? z : null;
        this.reset.disabled = this.zoom === null;
        this.redraw();
    }
    full() {
        let t0 = Infinity, t1 = -Infinity;
        for (const iv of this.items) {
            if (iv.registeredAt < t0)
                t0 = iv.registeredAt;
            const end = iv.settledAt ?? this.now;
            if (end > t1)
                t1 = end;
        }
        return [t0, Math.max(t1, t0 + 1000)];
    }
    scale(f) {
        if (this.items.length === 0)
            return;
        const [a, b] = this.zoom ?? this.full();
        const mid = (a + b) / 2, half = ((b - a) * f) / 2;
        const [f0, f1] = this.full();
        if (f > 1 && half * 2 >= f1 - f0)
            return this.setZoom(null);
        this.setZoom([Math.max(f0, mid - half), Math.min(f1, mid + half)]);
    }
    /** step moves the keyboard's focus from a bar to the next (ArrowDown) or previous (ArrowUp) row's, scrolling it into the box's view: a row not drawn yet is drawn first. */
    step(e) {
        if (e.key !== "ArrowDown" && e.key !== "ArrowUp")
            return;
        const i = Number(e.target.getAttribute("data-row") ?? "NaN");
        if (!Number.isInteger(i))
            return;
        e.preventDefault();
        const j = Math.max(0, Math.min(this.items.length - 1, i + (e.key === "ArrowDown" ? 1 : -1)));
        const y = j * rowH;
        if (y < this.box.scrollTop)
            this.box.scrollTop = y;
        else if (y + rowH > this.box.scrollTop + this.box.clientHeight)
            this.box.scrollTop = y + rowH - this.box.clientHeight;
        this.paint(false);
        this.rows.querySelector(`rect.bar[data-row="${j}"]`)?.focus({ preventScroll: true });
    }
    /** redraw lays out the axis and the box's height for the range in view, then paints the rows in view. */
    redraw() {
        this.tip.hidden = true;
        if (this.items.length === 0) {
            this.key = "";
            delete this.plot.dataset["rows"];
            this.plot.replaceChildren(h("p", {}, "No intervals yet."));
            return;
        }
        if (!this.box.isConnected)
            this.plot.replaceChildren(this.axis, this.box, this.band, this.count);
        const [t0, t1] = (this.span = this.zoom ?? this.full());
        const width = (this.width = Math.max(300, this.box.clientWidth || this.plot.clientWidth || 600));
        const plotW = width - labelW - pad;
        const x = (t) => labelW + ((t - t0) / (t1 - t0)) * plotW;
        this.spacer.style.height = `${this.items.length * rowH + 4}px`;
        const axis = svg("svg", { class: "timeline-axis", "aria-hidden": "true", viewBox: `0 0 ${width} ${axisH}`, width, height: axisH });
        const g = svg("g", { class: "axis" });
        g.append(svg("line", { x1: labelW, x2: labelW + plotW, y1: axisH - 4, y2: axisH - 4 }));
        const [ts, step] = ticks(t0, t1, plotW);
        for (const t of ts) {
            const tx = x(t);
            g.append(svg("line", { class: "grid", x1: tx, x2: tx, y1: axisH - 8, y2: axisH }));
            const label = svg("text", { x: tx, y: axisH - 10, "text-anchor": "middle" });
            label.textContent = tickLabel(t, step);
            g.append(label);
        }
        axis.append(g);
        this.axis.replaceWith(axis);
        this.axis = axis;
        this.plot.dataset["rows"] = String(this.items.length);
        const n = this.items.length;
        this.count.textContent = n * rowH > (this.box.clientHeight || Infinity) ? `${n.toLocaleString("en-US")} jobs: scroll the plot, or move between bars with the arrow keys, to see them all.` : `${n} ${n === 1 ? "job" : "jobs"}.`;
        this.paint(true);
    }
    /** paint draws the rows in the box's view and overscan rows either side, and no others; again only when the window moved, unless forced. */
    paint(force) {
        if (this.items.length === 0 || !this.box.isConnected)
            return;
        const top = this.box.scrollTop, seen = Math.max(this.box.clientHeight, 200);
        const first = Math.max(0, Math.floor(top / rowH) - overscan);
        const last = Math.min(this.items.length, Math.ceil((top + seen) / rowH) + overscan);
        if (!force && first === this.window[0] && last === this.window[1])
            return;
        const started = performance.now();
        this.window = [first, last];
        const [t0, t1] = this.span;
        const width = this.width, plotW = width - labelW - pad;
        const x = (t) => labelW + ((t - t0) / (t1 - t0)) * plotW;
        const y0 = first * rowH, height = (last - first) * rowH + 4;
        const root = svg("svg", { class: "timeline-bars", viewBox: `0 ${y0} ${width} ${height}`, width, height, role: "img",
            "aria-label": `Timeline of ${this.items.length} jobs from ${clock(new Date(t0))} to ${clock(new Date(t1))}, rows ${first + 1} to ${last} drawn` });
        root.style.top = `${y0}px`;
        const clip = svg("clipPath", { id: "plot-clip" });
        clip.append(svg("rect", { x: labelW, y: y0, width: plotW, height }));
        root.append(clip);
        const grid = svg("g", { class: "axis" });
        for (const t of ticks(t0, t1, plotW)[0])
            grid.append(svg("line", { class: "grid", x1: x(t), x2: x(t), y1: y0, y2: y0 + height }));
        root.append(grid);
        const bars = svg("g", { "clip-path": "url(#plot-clip)" });
        // A bar drawn again under the keyboard's focus keeps it.
        const active = document.activeElement;
        const focused = active instanceof SVGElement && this.rows.contains(active) ? active.getAttribute("data-job") : null;
        let refocus = null;
        for (let i = first; i < last; i++) {
            const iv = this.items[i];
            const y = i * rowH;
            const label = svg("text", { x: 2, y: y + 15, class: "row-label" });
            label.textContent = `${iv.kind}-${iv.ordinal} ${iv.label}`.slice(0, 18);
            root.append(label);
            const isLost = !iv.complete && this.lost.has(iv.jobId);
            const cls = isLost ? "lost" : outcome(iv);
            const end = iv.settledAt ?? (isLost ? iv.registeredAt : this.now);
            const bx = x(iv.registeredAt), bw = Math.max(3, x(end) - bx);
            const bar = svg("rect", { x: bx, y: y + 4, width: bw, height: rowH - 8, rx: 2, class: `bar bar-${cls}`, tabindex: 0, "data-job": iv.jobId, "data-row": i });
            bar.setAttribute("aria-label", this.describe(iv));
            bar.setAttribute("aria-describedby", "timeline-tip");
            const title = svg("title", {});
            title.textContent = this.describe(iv);
            bar.append(title);
            bars.append(bar);
            if (iv.jobId === focused)
                refocus = bar;
            if (!iv.complete && !isLost) {
                // open-ended: an arrow past the bar's end says it goes on
                const ax = bx + bw;
                bars.append(svg("path", { class: "open-end", d: `M${ax} ${y + 3} l7 ${rowH / 2 - 3} l-7 ${rowH / 2 - 3} z` }));
            }
            const show = () => this.showTip(iv, bar);
            bar.addEventListener("pointerenter", show);
            bar.addEventListener("focus", show);
            bar.addEventListener("pointerleave", () => { this.tip.hidden = true; });
            bar.addEventListener("blur", () => { this.tip.hidden = true; });
        }
        root.append(bars);
        if (this.rows.parentNode === this.spacer)
            this.rows.replaceWith(root);
        else
            this.spacer.append(root);
        this.rows = root;
        refocus?.focus({ preventScroll: true });
        this.plot.dataset["drawn"] = String(last - first);
        this.plot.dataset["paintMs"] = (performance.now() - started).toFixed(1);
    }
    describe(iv) {
        const end = iv.settledAt;
        const parts = [
            `${iv.kind}-${iv.ordinal} ${iv.label}`,
            `started ${clock(new Date(iv.registeredAt))}`,
            !iv.complete && this.lost.has(iv.jobId) ? "lost with its host, its end unknown" : end === undefined || !iv.complete ? "still running (or its end was not recorded)" : `ended ${clock(new Date(end))}`,
            `took ${duration((end ?? this.now) - iv.registeredAt)}`,
        ];
        if (iv.complete)
            parts.push(`${outcome(iv) === "timeout" ? "timed out" : iv.status ?? ""}${iv.cause !== undefined ? ` (cause: ${iv.cause})` : ""}`);
        if (iv.detail !== undefined && iv.detail !== "")
            parts.push(iv.detail);
        return parts.join(", ");
    }
    showTip(iv, bar) {
        const end = iv.settledAt;
        const rows = [
            ["Start", clock(new Date(iv.registeredAt))],
            ["End", end === undefined || !iv.complete ? "—" : clock(new Date(end))],
            ["Duration", duration((end ?? this.now) - iv.registeredAt) + (iv.complete ? "" : " so far")],
            ["Outcome", !iv.complete && this.lost.has(iv.jobId) ? "lost with its host" : outcome(iv) === "timeout" ? "timed out" : iv.complete ? iv.status ?? "" : "incomplete"],
            ["Cause", iv.cause ?? "—"],
        ];
        const dl = h("dl", {});
        for (const [k, v] of rows)
            dl.append(h("dt", {}, k), h("dd", {}, v));
        this.tip.replaceChildren(h("strong", {}, `${iv.kind}-${iv.ordinal} ${iv.label}`), dl);
        // beside the bar's end when there is room, else under it: never over it
        const box = this.root.getBoundingClientRect(), b = bar.getBoundingClientRect();
        this.tip.hidden = false;
        const w = this.tip.offsetWidth;
        const right = b.right - box.left + 12;
        if (right + w <= box.width) {
            this.tip.style.left = `${right}px`;
            this.tip.style.top = `${b.top - box.top - 4}px`;
        }
        else {
            this.tip.style.left = `${Math.max(0, Math.min(b.left - box.left, box.width - w))}px`;
            this.tip.style.top = `${b.bottom - box.top + 4}px`;
        }
    }
    /** dragZoom lets a drag across the plot (the axis or the rows) choose the range to zoom to. */
    dragZoom() {
        let from = null;
        const at = (e) => {
            const r = this.axis.getBoundingClientRect();
            const px = r.width > 0 ? ((e.clientX - r.left) / r.width) * this.width : 0;
            return Math.max(labelW, Math.min(this.width - pad, px));
        };
        const place = (a, b) => {
            const r = this.axis.getBoundingClientRect(), p = this.plot.getBoundingClientRect();
            const k = r.width / Math.max(1, this.width);
            this.band.style.left = `${r.left - p.left + Math.min(a, b) * k}px`;
            this.band.style.width = `${Math.abs(b - a) * k}px`;
        };
        this.plot.addEventListener("pointerdown", (e) => {
            if (e.button !== 0 || !this.box.isConnected)
                return;
            from = at(e);
            try {
                this.plot.setPointerCapture(e.pointerId);
            }
            catch {
                // a synthetic pointer has nothing to capture; the drag works without
            }
        });
        this.plot.addEventListener("pointermove", (e) => {
            if (from === null)
                return;
            place(from, at(e));
            this.band.hidden = false;
        });
        this.plot.addEventListener("pointerup", (e) => {
            if (from === null)
                return;
            const to = at(e);
            const a = Math.min(from, to), b = Math.max(from, to);
            from = null;
            this.band.hidden = true;
            if (b - a < 6)
                return; // a click, not a drag
            const [t0, t1] = this.span, plotW = this.width - labelW - pad;
            const t = (px) => t0 + ((px - labelW) / plotW) * (t1 - t0);
            this.setZoom([t(a), t(b)]);
        });
    }
}
