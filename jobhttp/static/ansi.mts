// The page's reader of terminal output: a state machine over ANSI escape
// sequences that turns text with SGR codes (colours and attributes) into
// styled spans of plain text, and drops every other control sequence but
// one: the semantic prompt marks of OSC 133, which it hands to the reader in
// their place among the spans (the log viewer makes each command a group of
// its own). It never produces markup: the page puts a span's text into the document as
// text, so output can style itself but never inject HTML.

/**
 * A Color is one of the 16 terminal colours by index (0–7 normal, 8–15
 * bright), which the page's theme defines, or a CSS colour "#rrggbb" for
 * the 256-colour cube and grey ramp and for true colour.
 */
export type Color = number | string;

/** A Style is what SGR codes set; an absent field is the terminal's default. */
export interface Style {
  readonly fg?: Color;
  readonly bg?: Color;
  readonly bold?: true;
  readonly dim?: true;
  readonly italic?: true;
  readonly underline?: true;
  readonly inverse?: true;
  readonly strike?: true;
}

/** A Span is a run of text in one style. */
export interface Span {
  readonly text: string;
  readonly style: Style;
}

/**
 * A PromptMark is one OSC 133 semantic prompt mark, as a shell's terminal
 * integration writes them: A where the prompt starts, B where the command
 * the user types starts, C where its output starts, D where it ended (with
 * its exit code when the shell gave one). Each is ESC ] 133 ; LETTER, D's
 * optionally followed by ; CODE, ended by BEL or ST.
 */
export interface PromptMark {
  readonly mark: "A" | "B" | "C" | "D";
  readonly exit?: number;
}

/** PLAIN is the default style, shared by every span that has no other. */
export const PLAIN: Style = Object.freeze({});

// Bounds on an escape sequence carried from one chunk to the next: a CSI
// (ESC [ … final) is short; an OSC (ESC ] … BEL or ESC \) can carry a
// title or a link. Past its bound a sequence is dropped, so a stray ESC
// can never make the reader hold output back without end.
const maxCSI = 64;
const maxOSC = 4096;

/**
 * An SGRReader reads one stream of terminal output, chunk by chunk. An
 * escape sequence split across chunks is held until its end arrives; the
 * style carries over from one chunk to the next, as a terminal's does.
 */
export class SGRReader {
  private style: Style = PLAIN;
  private pending = "";

  /** Feed reads the next chunk and returns its text as spans; an empty chunk yields none. */
  feed(chunk: string): Span[] {
    return this.read(chunk).filter((p): p is Span => !("mark" in p));
  }

  /**
   * Read reads the next chunk as Feed does, and also returns the OSC 133
   * prompt marks in it, each where it stood among the spans. A mark split
   * across chunks is held, as any escape is, and returned whole with the
   * chunk that ends it.
   */
  read(chunk: string): (Span | PromptMark)[] {
    const spans: (Span | PromptMark)[] = [];
    const text = this.pending + chunk;
    this.pending = "";
    let start = 0; // start of the plain text not yet emitted
    let i = 0;
    while (i < text.length) {
      if (text.charCodeAt(i) !== 0x1b) {
        i++;
        continue;
      }
      if (i > start) push(spans, text.slice(start, i), this.style);
      const end = this.sequence(text, i, spans);
      if (end < 0) {
        // incomplete at the chunk's end: keep it for the next chunk
        this.pending = text.slice(i);
        if (this.pending.length > (this.pending[1] === "]" ? maxOSC : maxCSI)) this.pending = "";
        return spans;
      }
      i = start = end;
    }
    if (start < text.length) push(spans, text.slice(start), this.style);
    return spans;
  }

  /** Current is the style in force, for a reader that starts a new line. */
  get current(): Style {
    return this.style;
  }

  /**
   * sequence reads the escape sequence at text[i] (an ESC), applies it when
   * it is an SGR, appends it to out when it is a prompt mark, and returns
   * the index after it, or -1 when the text ends first. A malformed sequence
   * ends at the offending character, which is then read as text.
   */
  private sequence(text: string, i: number, out: (Span | PromptMark)[]): number {
    if (i + 1 >= text.length) return -1;
    const kind = text[i + 1];
    if (kind === "[") {
      let j = i + 2;
      while (j < text.length) {
        const c = text.charCodeAt(j);
        if (c >= 0x40 && c <= 0x7e) {
          if (c === 0x6d) this.apply(text.slice(i + 2, j)); // "m"
          return j + 1;
        }
        if (c < 0x20 || c > 0x3f) return j; // not a parameter or intermediate byte
        j++;
      }
      return -1;
    }
    if (kind === "]" || kind === "P" || kind === "_" || kind === "^") {
      // OSC, DCS, APC, PM: a string ended by BEL or ST (ESC \)
      for (let j = i + 2; j < text.length; j++) {
        if (text[j] === "\x07") {
          if (kind === "]") promptMark(text.slice(i + 2, j), out);
          return j + 1;
        }
        if (text[j] === "\x1b") {
          if (j + 1 >= text.length) return -1;
          if (text[j + 1] !== "\\") return j;
          if (kind === "]") promptMark(text.slice(i + 2, j), out);
          return j + 2;
        }
      }
      return -1;
    }
    // a two-character escape (ESC 7, ESC =, ESC ( B's first half...): dropped
    if (kind === "(" || kind === ")") return i + 3 <= text.length ? i + 3 : -1;
    return i + 2;
  }

  /** apply applies the parameters of one SGR sequence. */
  private apply(params: string): void {
    if (!/^[0-9;:]*$/.test(params)) return; // private or malformed: ignored
    const codes = params === "" ? [0] : params.split(/[;:]/).map((p) => (p === "" ? 0 : Number(p)));
    const s: { -readonly [K in keyof Style]: Style[K] } = { ...this.style };
    for (let k = 0; k < codes.length; k++) {
      const c = codes[k] ?? 0;
      if (c === 0) {
        for (const key of Object.keys(s) as (keyof Style)[]) delete s[key];
      } else if (c === 1) s.bold = true;
      else if (c === 2) s.dim = true;
      else if (c === 3) s.italic = true;
      else if (c === 4) s.underline = true;
      else if (c === 7) s.inverse = true;
      else if (c === 9) s.strike = true;
      else if (c === 22) {
        delete s.bold;
        delete s.dim;
      } else if (c === 23) delete s.italic;
      else if (c === 24) delete s.underline;
      else if (c === 27) delete s.inverse;
      else if (c === 29) delete s.strike;
      else if (c >= 30 && c <= 37) s.fg = c - 30;
      else if (c === 39) delete s.fg;
      else if (c >= 40 && c <= 47) s.bg = c - 40;
      else if (c === 49) delete s.bg;
      else if (c >= 90 && c <= 97) s.fg = c - 90 + 8;
      else if (c >= 100 && c <= 107) s.bg = c - 100 + 8;
      else if (c === 38 || c === 48) {
        const [color, used] = extended(codes, k + 1);
        if (color !== undefined) {
          if (c === 38) s.fg = color;
          else s.bg = color;
        }
        k += used;
      }
    }
    this.style = Object.keys(s).length === 0 ? PLAIN : Object.freeze(s);
  }
}

/**
 * promptMark appends to out the prompt mark an OSC's body (such as
 * "133;D;1") names; any other OSC, and a 133 of another letter, adds nothing.
 */
function promptMark(body: string, out: (Span | PromptMark)[]): void {
  const m = /^133;([ABCD])(?:;([^;]*))?/.exec(body);
  if (m === null) return;
  const mark = m[1] as PromptMark["mark"];
  const code = m[2] !== undefined && /^-?[0-9]{1,9}$/.test(m[2]) ? Number(m[2]) : undefined;
  out.push(mark === "D" && code !== undefined ? { mark, exit: code } : { mark });
}

/**
 * extended reads the colour after a 38 or 48 at codes[k]: 5;N (256 colours)
 * or 2;R;G;B (true colour). It returns the colour, undefined when malformed,
 * and how many codes it read.
 */
function extended(codes: number[], k: number): [Color | undefined, number] {
  const mode = codes[k];
  if (mode === 5) {
    const n = codes[k + 1];
    if (n === undefined || n > 255) return [undefined, 2];
    return [color256(n), 2];
  }
  if (mode === 2) {
    const rgb = codes.slice(k + 1, k + 4);
    if (rgb.length < 3 || rgb.some((v) => v > 255)) return [undefined, 4];
    return [hex(rgb[0] ?? 0, rgb[1] ?? 0, rgb[2] ?? 0), 4];
  }
  return [undefined, 1];
}

/** color256 is colour n of the 256-colour palette: 0–15 by index, then the 6×6×6 cube and the grey ramp. */
export function color256(n: number): Color {
  if (n < 16) return n;
  if (n < 232) {
    const v = [0, 95, 135, 175, 215, 255];
    const i = n - 16;
    return hex(v[Math.floor(i / 36)] ?? 0, v[Math.floor(i / 6) % 6] ?? 0, v[i % 6] ?? 0);
  }
  const g = 8 + (n - 232) * 10;
  return hex(g, g, g);
}

function hex(r: number, g: number, b: number): string {
  return "#" + [r, g, b].map((v) => v.toString(16).padStart(2, "0")).join("");
}

/** push appends text in style to spans, merged with the last span when its style is the same. */
function push(spans: (Span | PromptMark)[], text: string, style: Style): void {
  const last = spans[spans.length - 1];
  if (last !== undefined && !("mark" in last) && last.style === style) spans[spans.length - 1] = { text: last.text + text, style };
  else spans.push({ text, style });
}

/** stripControls removes what is left of control characters in text, tab and newline aside, so none reaches the page. */
export function stripControls(text: string): string {
  return text.replace(/[\x00-\x08\x0b\x0c\x0e-\x1a\x1c-\x1f\x7f]/g, "");
}
