// The page's timeline: each job's execution interval from the journal as a
// bar on a time axis, one colour per way a job ends, with a legend, a
// tooltip (start, end, duration, cause) on hover and focus, and zoom to a
// range dragged across the plot. An incomplete interval runs open to now.
import type { Interval } from "./wire.mjs";
import { clock, duration, h } from "./logview.mjs";

const ns = "http://www.w3.org/2000/svg";
const rowH = 22, axisH = 24, labelW = 120, pad = 8;

/** The outcomes the timeline tells apart, in the legend's order. */
const outcomes: [cls: string, label: string][] = [
  ["completed", "completed"],
  ["failed", "failed"],
  ["killed", "killed"],
  ["timeout", "timed out"],
  ["incomplete", "running / incomplete"],
];

/** outcome is the class of an interval's bar: its status, timeout when its deadline settled it, incomplete while open. */
export function outcome(iv: Interval): string {
  if (!iv.complete) return "incomplete";
  if (iv.cause === "timeout") return "timeout";
  return iv.status ?? "completed";
}

/** Tick steps, in milliseconds, from which the axis takes the smallest that fits. */
const steps = [100, 250, 500, 1e3, 2e3, 5e3, 10e3, 15e3, 30e3, 60e3, 120e3, 300e3, 600e3, 900e3, 1800e3, 3600e3, 7200e3, 21600e3, 43200e3, 86400e3];

/** ticks returns the tick times in [t0, t1] for a plot w pixels wide, and the step. */
export function ticks(t0: number, t1: number, w: number): [number[], number] {
  const most = Math.max(2, Math.floor(w / 90));
  const step = steps.find((s) => (t1 - t0) / s <= most) ?? (steps[steps.length - 1] as number);
  const out: number[] = [];
  for (let t = Math.ceil(t0 / step) * step; t <= t1; t += step) out.push(t);
  return [out, step];
}

function tickLabel(t: number, step: number): string {
  const c = clock(new Date(t));
  return step < 1000 ? c : step < 60e3 ? c.slice(0, 8) : c.slice(0, 5);
}

function svg<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number>): SVGElementTagNameMap[K] {
  const e = document.createElementNS(ns, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  return e;
}

/** A Timeline draws intervals into its box; Draw again redraws with the zoom kept. */
export class Timeline {
  readonly root: HTMLElement;
  private readonly plot: HTMLElement;
  private readonly tip: HTMLElement;
  private readonly reset: HTMLButtonElement;
  private items: Interval[] = [];
  private zoom: [number, number] | null = null;
  private now = Date.now();

  constructor(root: HTMLElement) {
    this.root = root;
    const legend = h("ul", { class: "legend", "aria-label": "Legend" });
    for (const [cls, label] of outcomes) legend.append(h("li", {}, h("span", { class: `swatch bar-${cls}`, "aria-hidden": "true" }), label));
    this.legend = legend;
    const zoomIn = h("button", { type: "button", class: "zoom-in" }, "Zoom in");
    const zoomOut = h("button", { type: "button", class: "zoom-out" }, "Zoom out");
    this.reset = h("button", { type: "button", class: "zoom-reset" }, "Reset zoom");
    this.reset.disabled = true;
    const tools = h("div", { class: "timeline-tools" }, legend, h("span", { class: "zoom-hint" }, "Drag across the plot to zoom."), zoomIn, zoomOut, this.reset);
    this.plot = h("div", { class: "timeline-plot" }, h("p", {}, "Loading the history…"));
    this.tip = h("div", { class: "tip", role: "tooltip", id: "timeline-tip" });
    this.tip.hidden = true;
    root.replaceChildren(tools, this.plot, this.tip);
    zoomIn.addEventListener("click", () => this.scale(0.5));
    zoomOut.addEventListener("click", () => this.scale(2));
    this.reset.addEventListener("click", () => this.setZoom(null));
    new ResizeObserver(() => this.redraw()).observe(this.plot);
  }

  /** Draw shows intervals (those with a registration time), as of now. */
  /** lost are the jobs whose host a fleet view says is lost: a bar that ends where it began, never one growing with the clock. */
  private lost: ReadonlySet<string> = new Set();
  private legend: HTMLElement | null = null;
  /** lostEntry is the legend's entry for lost jobs, there only while some are drawn (a fleet view). */
  private readonly lostEntry = h("li", {}, h("span", { class: "swatch bar-lost", "aria-hidden": "true" }), "lost with its host");

  draw(intervals: Interval[], now = Date.now(), lost: ReadonlySet<string> = new Set()): void {
    this.lost = lost;
    if (lost.size > 0) this.legend?.append(this.lostEntry);
    else this.lostEntry.remove();
    this.items = intervals.filter((iv) => iv.registeredAt > 0);
    this.now = now;
    this.redraw();
  }

  /** Zoomed is the range in view, or null for all of it. */
  get range(): [number, number] | null {
    return this.zoom;
  }

  setZoom(z: [number, number] | null): void {
    this.zoom = z !== null && z[1] - z[0] >= 50 ? z : null;
    this.reset.disabled = this.zoom === null;
    this.redraw();
  }

  private full(): [number, number] {
    const t0 = Math.min(...this.items.map((iv) => iv.registeredAt));
    const t1 = Math.max(...this.items.map((iv) => iv.settledAt ?? this.now), t0 + 1000);
    return [t0, t1];
  }

  private scale(f: number): void {
    if (this.items.length === 0) return;
    const [a, b] = this.zoom ?? this.full();
    const mid = (a + b) / 2, half = ((b - a) * f) / 2;
    const [f0, f1] = this.full();
    if (f > 1 && half * 2 >= f1 - f0) return this.setZoom(null);
    this.setZoom([Math.max(f0, mid - half), Math.min(f1, mid + half)]);
  }

  private redraw(): void {
    this.tip.hidden = true;
    if (this.items.length === 0) {
      this.plot.replaceChildren(h("p", {}, "No intervals yet."));
      return;
    }
    const [t0, t1] = this.zoom ?? this.full();
    const width = Math.max(300, this.plot.clientWidth || 600);
    const plotW = width - labelW - pad;
    const x = (t: number): number => labelW + ((t - t0) / (t1 - t0)) * plotW;
    const height = axisH + this.items.length * rowH + 4;
    const root = svg("svg", { viewBox: `0 0 ${width} ${height}`, width, height, role: "img", "aria-label": `Timeline of ${this.items.length} jobs from ${clock(new Date(t0))} to ${clock(new Date(t1))}` });
    const clip = svg("clipPath", { id: "plot-clip" });
    clip.append(svg("rect", { x: labelW, y: 0, width: plotW, height }));
    root.append(clip);
    const [ts, step] = ticks(t0, t1, plotW);
    const axis = svg("g", { class: "axis" });
    axis.append(svg("line", { x1: labelW, x2: labelW + plotW, y1: axisH - 4, y2: axisH - 4 }));
    for (const t of ts) {
      const tx = x(t);
      axis.append(svg("line", { class: "grid", x1: tx, x2: tx, y1: axisH - 8, y2: height }));
      const label = svg("text", { x: tx, y: axisH - 10, "text-anchor": "middle" });
      label.textContent = tickLabel(t, step);
      axis.append(label);
    }
    root.append(axis);
    const bars = svg("g", { "clip-path": "url(#plot-clip)" });
    this.items.forEach((iv, i) => {
      const y = axisH + i * rowH;
      const label = svg("text", { x: 2, y: y + 15, class: "row-label" });
      label.textContent = `${iv.kind}-${iv.ordinal} ${iv.label}`.slice(0, 18);
      root.append(label);
      const isLost = !iv.complete && this.lost.has(iv.jobId);
      const cls = isLost ? "lost" : outcome(iv);
      const end = iv.settledAt ?? (isLost ? iv.registeredAt : this.now);
      const bx = x(iv.registeredAt), bw = Math.max(3, x(end) - bx);
      const bar = svg("rect", { x: bx, y: y + 4, width: bw, height: rowH - 8, rx: 2, class: `bar bar-${cls}`, tabindex: 0, "data-job": iv.jobId });
      bar.setAttribute("aria-label", this.describe(iv));
      bar.setAttribute("aria-describedby", "timeline-tip");
      const title = svg("title", {});
      title.textContent = this.describe(iv);
      bar.append(title);
      bars.append(bar);
      if (!iv.complete && !isLost) {
        // open-ended: an arrow past the bar's end says it goes on
        const ax = bx + bw;
        bars.append(svg("path", { class: "open-end", d: `M${ax} ${y + 3} l7 ${rowH / 2 - 3} l-7 ${rowH / 2 - 3} z` }));
      }
      const show = (): void => this.showTip(iv, bar);
      bar.addEventListener("pointerenter", show);
      bar.addEventListener("focus", show);
      bar.addEventListener("pointerleave", () => { this.tip.hidden = true; });
      bar.addEventListener("blur", () => { this.tip.hidden = true; });
    });
    root.append(bars);
    this.dragZoom(root, t0, t1, plotW, height);
    this.plot.replaceChildren(root);
  }

  private describe(iv: Interval): string {
    const end = iv.settledAt;
    const parts = [
      `${iv.kind}-${iv.ordinal} ${iv.label}`,
      `started ${clock(new Date(iv.registeredAt))}`,
      !iv.complete && this.lost.has(iv.jobId) ? "lost with its host, its end unknown" : end === undefined || !iv.complete ? "still running (or its end was not recorded)" : `ended ${clock(new Date(end))}`,
      `took ${duration((end ?? this.now) - iv.registeredAt)}`,
    ];
    if (iv.complete) parts.push(`${outcome(iv) === "timeout" ? "timed out" : iv.status ?? ""}${iv.cause !== undefined ? ` (cause: ${iv.cause})` : ""}`);
    if (iv.detail !== undefined && iv.detail !== "") parts.push(iv.detail);
    return parts.join(", ");
  }

  private showTip(iv: Interval, bar: SVGRectElement): void {
    const end = iv.settledAt;
    const rows: [string, string][] = [
      ["Start", clock(new Date(iv.registeredAt))],
      ["End", end === undefined || !iv.complete ? "—" : clock(new Date(end))],
      ["Duration", duration((end ?? this.now) - iv.registeredAt) + (iv.complete ? "" : " so far")],
      ["Outcome", !iv.complete && this.lost.has(iv.jobId) ? "lost with its host" : outcome(iv) === "timeout" ? "timed out" : iv.complete ? iv.status ?? "" : "incomplete"],
      ["Cause", iv.cause ?? "—"],
    ];
    const dl = h("dl", {});
    for (const [k, v] of rows) dl.append(h("dt", {}, k), h("dd", {}, v));
    this.tip.replaceChildren(h("strong", {}, `${iv.kind}-${iv.ordinal} ${iv.label}`), dl);
    // beside the bar's end when there is room, else under it: never over it
    const box = this.root.getBoundingClientRect(), b = bar.getBoundingClientRect();
    this.tip.hidden = false;
    const w = this.tip.offsetWidth;
    const right = b.right - box.left + 12;
    if (right + w <= box.width) {
      this.tip.style.left = `${right}px`;
      this.tip.style.top = `${b.top - box.top - 4}px`;
    } else {
      this.tip.style.left = `${Math.max(0, Math.min(b.left - box.left, box.width - w))}px`;
      this.tip.style.top = `${b.bottom - box.top + 4}px`;
    }
  }

  /** dragZoom lets a drag across the plot choose the range to zoom to. */
  private dragZoom(root: SVGSVGElement, t0: number, t1: number, plotW: number, height: number): void {
    const band = svg("rect", { class: "zoom-band", x: 0, y: 0, width: 0, height });
    band.setAttribute("visibility", "hidden");
    root.append(band);
    let from: number | null = null;
    const at = (e: PointerEvent): number => {
      const r = root.getBoundingClientRect();
      const px = ((e.clientX - r.left) / r.width) * root.viewBox.baseVal.width;
      return Math.max(labelW, Math.min(labelW + plotW, px));
    };
    root.addEventListener("pointerdown", (e) => {
      if (e.button !== 0) return;
      from = at(e);
      root.setPointerCapture(e.pointerId);
    });
    root.addEventListener("pointermove", (e) => {
      if (from === null) return;
      const to = at(e);
      band.setAttribute("x", String(Math.min(from, to)));
      band.setAttribute("width", String(Math.abs(to - from)));
      band.setAttribute("visibility", "visible");
    });
    root.addEventListener("pointerup", (e) => {
      if (from === null) return;
      const to = at(e);
      const a = Math.min(from, to), b = Math.max(from, to);
      from = null;
      band.setAttribute("visibility", "hidden");
      if (b - a < 6) return; // a click, not a drag
      const t = (px: number): number => t0 + ((px - labelW) / plotW) * (t1 - t0);
      this.setZoom([t(a), t(b)]);
    });
  }
}
