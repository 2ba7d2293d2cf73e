// The page's log viewer: a job's output as numbered, timestamped lines with
// their terminal colours, searchable, following the end until the reader
// scrolls away. The lines live in a model; the document holds only the rows
// in view (and a few around them), so a job of a hundred thousand lines
// costs the page what a screenful does.
import { PLAIN, SGRReader, stripControls, type Color, type Span, type Style } from "./ansi.mjs";

/** A Line is one line of output: its spans, its plain text, and when its first byte was appended. */
export interface Line {
  spans: Span[];
  text: string;
  at: number;
  channel: string;
  note: boolean;
}

/** maxLines bounds the lines a model keeps; past it the oldest go, and numbering goes on. */
export const maxLines = 200_000;

/**
 * A LogModel turns a job's chunks into lines: newlines end a line, a
 * carriage return makes the next text overwrite the line in place (a
 * progress bar), each channel keeps its own terminal style, and text of
 * another channel starts a line of its own. Lines of the log channel are
 * the producer's narration for the people watching (never the model's
 * output): the viewer styles them apart.
 */
export class LogModel {
  readonly lines: Line[] = [];
  /** Base is the number of lines dropped from the front: line i is number base+i+1. */
  base = 0;
  private readonly readers = new Map<string, SGRReader>();
  private open: Line | null = null;
  private cr = false;

  /** Append adds a chunk's text, appended at `at` on channel. */
  append(text: string, at: number, channel: string): void {
    let reader = this.readers.get(channel);
    if (reader === undefined) {
      reader = new SGRReader();
      this.readers.set(channel, reader);
    }
    const parts = text.split(/(\r\n|\n|\r)/);
    for (let i = 0; i < parts.length; i++) {
      const part = parts[i] ?? "";
      if (i % 2 === 1) {
        if (part === "\r") this.cr = true;
        else {
          if (this.open === null || this.open.channel !== channel) this.startLine(at, channel);
          this.open = null;
          this.cr = false;
        }
        continue;
      }
      if (part === "") continue;
      const spans = reader.feed(part);
      if (spans.length === 0) continue;
      if (this.open !== null && this.open.channel !== channel) this.open = null;
      if (this.open === null) this.startLine(at, channel);
      const line = this.open as unknown as Line;
      if (this.cr) {
        line.spans = [];
        line.text = "";
        this.cr = false;
      }
      for (const s of spans) {
        const t = stripControls(s.text);
        if (t === "") continue;
        const last = line.spans[line.spans.length - 1];
        if (last !== undefined && last.style === s.style) line.spans[line.spans.length - 1] = { text: last.text + t, style: s.style };
        else line.spans.push({ text: t, style: s.style });
        line.text += t;
      }
    }
  }

  /** Note adds a line of the page's own (a gap, a failure), set apart from the output. */
  note(text: string, at: number): void {
    this.open = null;
    this.push({ spans: [{ text, style: PLAIN }], text, at, channel: "", note: true });
  }

  private startLine(at: number, channel: string): void {
    this.open = { spans: [], text: "", at, channel, note: false };
    this.push(this.open);
  }

  private push(line: Line): void {
    this.lines.push(line);
    if (this.lines.length > maxLines) {
      const drop = this.lines.length - maxLines;
      this.lines.splice(0, drop);
      this.base += drop;
    }
  }
}

/** A Match is one occurrence of the search in a line. */
interface Match {
  line: number; // index into the model's lines
  start: number;
  end: number;
}

/** rowHeight is a row's height in CSS pixels; style.css sets the same. */
const rowHeight = 18;
/** overscan is how many rows are kept beyond the visible ones on each side. */
const overscan = 20;

/** LogViewOptions say what a view shows beside its lines. */
export interface LogViewOptions {
  /** Job is the job's id, for its links. */
  job: string;
  /** Name is the job's display name, for labels. */
  name: string;
  /** StartedAt is the job's start, in Unix milliseconds: timestamps are relative to it. */
  startedAt: number;
  /** RawHref is where the raw record downloads from. */
  rawHref: string;
}

let views = 0;

/**
 * A LogView shows a LogModel: a toolbar (search, time mode, follow,
 * download) over a scrolling pane of rows. Only the rows in view are in the
 * document.
 */
export class LogView {
  readonly root: HTMLElement;
  readonly model = new LogModel();
  readonly pane: HTMLElement;
  private readonly spacer: HTMLElement;
  private readonly rows: HTMLElement;
  private readonly counter: HTMLElement;
  private readonly followBtn: HTMLButtonElement;
  private readonly timeBtn: HTMLButtonElement;
  private readonly search: HTMLInputElement;
  private readonly opts: LogViewOptions;
  private following = true;
  private absolute = false;
  private query = "";
  private matches: Match[] = [];
  private scanned = 0; // lines searched for the query so far
  private current = -1; // index into matches
  private target = -1; // line number to mark, from a link
  private due = 0;
  private savedTop = 0;
  /** The slowest render so far, and the last, in milliseconds from the frame's arrival. */
  maxRenderMs = 0;
  lastRenderMs = 0;

  constructor(opts: LogViewOptions) {
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
    const bar = h("div", { class: "log-bar", role: "toolbar", "aria-label": `Output of ${opts.name}` },
      this.search, prev, next, this.counter, this.timeBtn, this.followBtn, raw);
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
      if (atEnd !== this.following) this.setFollowing(atEnd, false);
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
      } else if (e.key === "Escape") {
        this.search.value = "";
        this.setQuery("");
      }
    });
    prev.addEventListener("click", () => this.step(-1));
    next.addEventListener("click", () => this.step(1));
  }

  /** Append adds a chunk; call Flush once a frame's chunks are in. */
  append(text: string, at: number, channel: string): void {
    this.model.append(text, at, channel);
  }

  /** Note adds a line of the page's own. */
  note(text: string): void {
    this.model.note(text, Date.now());
    this.flush();
  }

  /** Flush renders what was appended, now, and notes how long it took since arrived (performance.now()). */
  flush(arrived = performance.now()): void {
    this.scan();
    this.spacer.style.height = `${this.model.lines.length * rowHeight}px`;
    if (this.following) this.pane.scrollTop = this.pane.scrollHeight;
    this.render();
    this.lastRenderMs = performance.now() - arrived;
    this.maxRenderMs = Math.max(this.maxRenderMs, this.lastRenderMs);
    this.pane.dataset["renderMs"] = this.lastRenderMs.toFixed(1);
    this.pane.dataset["maxRenderMs"] = this.maxRenderMs.toFixed(1);
    this.pane.dataset["lines"] = String(this.model.lines.length);
  }

  /** Hide hides the view, keeping its scroll position: a hidden pane loses it. */
  hide(): void {
    if (!this.root.hidden) this.savedTop = this.pane.scrollTop;
    this.root.hidden = true;
  }

  /** Show shows the view where it was, or at the end when following. */
  show(): void {
    this.root.hidden = false;
    this.pane.scrollTop = this.following ? this.pane.scrollHeight : this.savedTop;
    this.render();
  }

  /** ScrollToLine brings line number n (1-based, as the rows number it) into view and marks it. */
  scrollToLine(n: number): boolean {
    const i = n - this.model.base - 1;
    if (i < 0 || i >= this.model.lines.length) return false;
    this.target = n;
    this.setFollowing(false, false);
    this.pane.scrollTop = Math.max(0, i * rowHeight - this.pane.clientHeight / 3);
    this.render();
    return true;
  }

  private setFollowing(on: boolean, jump: boolean): void {
    this.following = on;
    this.followBtn.setAttribute("aria-pressed", String(on));
    this.followBtn.textContent = on ? "Follow" : "Paused";
    if (on && jump) {
      this.pane.scrollTop = this.pane.scrollHeight;
      this.render();
    }
  }

  private schedule(): void {
    if (this.due !== 0) return;
    this.due = requestAnimationFrame(() => {
      this.due = 0;
      this.render();
    });
  }

  private setQuery(q: string): void {
    this.query = q.toLowerCase();
    this.matches = [];
    this.scanned = 0;
    this.current = -1;
    this.scan();
    if (this.matches.length > 0) this.step(1);
    else this.render();
  }

  /** scan searches the lines not searched yet. */
  private scan(): void {
    const q = this.query;
    const lines = this.model.lines;
    if (this.scanned > lines.length) this.scanned = 0; // lines were dropped
    if (q === "") {
      this.counter.textContent = "";
      return;
    }
    // the last line may still grow: search it again each time
    this.matches = this.matches.filter((m) => m.line < this.scanned - 1);
    for (let i = Math.max(0, this.scanned - 1); i < lines.length; i++) {
      const text = (lines[i] as Line).text.toLowerCase();
      for (let at = text.indexOf(q); at >= 0; at = text.indexOf(q, at + q.length)) {
        this.matches.push({ line: i, start: at, end: at + q.length });
      }
    }
    this.scanned = lines.length;
    this.count();
  }

  private count(): void {
    const n = this.matches.length;
    this.counter.textContent = n === 0 ? "no matches" : `${this.current + 1} of ${n}`;
  }

  /** step moves to the next (1) or previous (-1) match and scrolls to it. */
  private step(dir: number): void {
    const n = this.matches.length;
    if (n === 0) return;
    this.current = (this.current + dir + n) % n;
    const m = this.matches[this.current] as Match;
    this.setFollowing(false, false);
    const top = m.line * rowHeight;
    if (top < this.pane.scrollTop || top > this.pane.scrollTop + this.pane.clientHeight - rowHeight) {
      this.pane.scrollTop = Math.max(0, top - this.pane.clientHeight / 3);
    }
    this.count();
    this.render();
  }

  /** render puts the rows in view into the document, and no others. */
  private render(): void {
    const lines = this.model.lines;
    const first = Math.max(0, Math.floor(this.pane.scrollTop / rowHeight) - overscan);
    const last = Math.min(lines.length, Math.ceil((this.pane.scrollTop + Math.max(this.pane.clientHeight, 400)) / rowHeight) + overscan);
    const byLine = new Map<number, Match[]>();
    for (const m of this.matches) {
      if (m.line < first || m.line >= last) continue;
      const list = byLine.get(m.line);
      if (list === undefined) byLine.set(m.line, [m]);
      else list.push(m);
    }
    const cur = this.current >= 0 ? this.matches[this.current] : undefined;
    const frag = document.createDocumentFragment();
    for (let i = first; i < last; i++) {
      frag.append(this.row(lines[i] as Line, i, byLine.get(i) ?? [], cur));
    }
    this.rows.style.transform = `translateY(${first * rowHeight}px)`;
    this.rows.replaceChildren(frag);
  }

  private row(line: Line, i: number, matches: Match[], cur: Match | undefined): HTMLElement {
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
    const cls = line.note ? "ln note" : line.channel === "stderr" || line.channel === "log" ? "ln " + line.channel : "ln";
    const row = h("div", { class: n === this.target ? cls + " target" : cls, "data-line": String(n) }, num, ts, txt);
    if (line.channel !== "") row.dataset["channel"] = line.channel;
    return row;
  }
}

/** appendMarked appends span s (at offset start of its line) to parent, with the matches in it marked. */
function appendMarked(parent: HTMLElement, s: Span, start: number, matches: Match[], cur: Match | undefined): void {
  const end = start + s.text.length;
  let at = start;
  for (const m of matches) {
    if (m.end <= at || m.start >= end) continue;
    const a = Math.max(m.start, at), b = Math.min(m.end, end);
    if (a > at) parent.append(styled(s.text.slice(at - start, a - start), s.style));
    const mark = h("mark", m === cur ? { class: "current" } : {});
    mark.append(styled(s.text.slice(a - start, b - start), s.style));
    parent.append(mark);
    at = b;
  }
  if (at < end) parent.append(styled(s.text.slice(at - start), s.style));
}

/** styled is text in a style: a text node when plain, else a span whose classes and colours say the style. */
export function styled(text: string, st: Style): Node {
  if (st === PLAIN) return document.createTextNode(text);
  const span = document.createElement("span");
  span.textContent = text;
  const cls: string[] = [];
  let fg: Color | undefined = st.fg, bg: Color | undefined = st.bg;
  if (st.inverse) {
    [fg, bg] = [bg, fg];
    if (fg === undefined) cls.push("inv-fg");
    if (bg === undefined) cls.push("inv-bg");
  }
  if (typeof fg === "number") cls.push(`f${fg}`);
  else if (fg !== undefined) span.style.color = fg;
  if (typeof bg === "number") cls.push(`b${bg}`);
  else if (bg !== undefined) span.style.backgroundColor = bg;
  if (st.bold) cls.push("bold");
  if (st.dim) cls.push("dim");
  if (st.italic) cls.push("italic");
  if (st.underline) cls.push("underline");
  if (st.strike) cls.push("strike");
  if (cls.length > 0) span.className = cls.join(" ");
  return span;
}

/** relative writes a duration since the job's start as +1.234s, +2m03s, +1h02m. */
export function relative(ms: number): string {
  return "+" + duration(Math.max(0, ms), true);
}

/** duration writes ms as 850ms, 12.3s, 2m03s or 1h02m; precise keeps milliseconds under a minute. */
export function duration(ms: number, precise = false): string {
  if (ms < 1000 && !precise) return `${Math.round(ms)}ms`;
  const s = ms / 1000;
  if (s < 60) return precise ? `${s.toFixed(3)}s` : `${s.toFixed(1)}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${String(Math.floor(s % 60)).padStart(2, "0")}s`;
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, "0")}m`;
}

/** clock writes a time of day as 14:03:07.250. */
export function clock(d: Date): string {
  const p = (n: number, w = 2): string => String(n).padStart(w, "0");
  return `${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}.${p(d.getMilliseconds(), 3)}`;
}

/** h makes an element with attributes and children, text as text nodes. */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}, ...children: (Node | string)[]): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") e.className = v;
    else e.setAttribute(k, v);
  }
  e.append(...children);
  return e;
}
