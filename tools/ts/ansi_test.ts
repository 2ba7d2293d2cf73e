// The page's SGR reader (jobhttp/static/ansi.mts), run in Node by
// jobhttp/ansi_node_test.go: a table of chunked output to the spans it must
// yield, including sequences split across chunks, malformed and unfinished
// ones, and the control sequences it drops. It prints "ok - NAME" or
// "not ok - NAME: WHY" per case (spans of one style are merged before they
// are compared) and exits 1 when any failed.
import { SGRReader, color256, stripControls, type Span } from "../../jobhttp/static/ansi.mjs";
import { LogModel } from "../../jobhttp/static/logview.mjs";

/** A Want is a span as the table writes it: text, then its style's fields. */
type Want = [text: string, style?: Record<string, unknown>];

const E = "\x1b";
const cases: [name: string, chunks: string[], want: Want[]][] = [
  ["plain text is one plain span", ["hello"], [["hello"]]],
  ["a 16-colour foreground, then reset", [`${E}[32mok${E}[0m done`], [["ok", { fg: 2 }], [" done"]]],
  ["an empty SGR resets", [`${E}[1mB${E}[mN`], [["B", { bold: true }], ["N"]]],
  ["bright colours are 8–15", [`${E}[91mr${E}[102mg`], [["r", { fg: 9 }], ["g", { fg: 9, bg: 10 }]]],
  ["bold, dim, italic, underline combine and 22/23/24 end them", [`${E}[1;2;3;4mx${E}[22my${E}[23;24mz`],
    [["x", { bold: true, dim: true, italic: true, underline: true }], ["y", { italic: true, underline: true }], ["z"]]],
  ["256 colours: the cube and the grey ramp", [`${E}[38;5;196mr${E}[48;5;244mg${E}[38;5;4mb`],
    [["r", { fg: "#ff0000" }], ["g", { fg: "#ff0000", bg: "#808080" }], ["b", { fg: 4, bg: "#808080" }]]],
  ["true colour", [`${E}[38;2;1;2;255mx${E}[48:2:10:20:30my`], [["x", { fg: "#0102ff" }], ["y", { fg: "#0102ff", bg: "#0a141e" }]]],
  ["39 and 49 restore the default colours", [`${E}[31;44mx${E}[39my${E}[49mz`], [["x", { fg: 1, bg: 4 }], ["y", { bg: 4 }], ["z"]]],
  ["a sequence split across chunks", [`a${E}`, "[3", "1mred", `${E}[0`, "m."], [["a"], ["red", { fg: 1 }], ["."]]],
  ["the style carries over to the next chunk", [`${E}[33mwarn `, "still"], [["warn still", { fg: 3 }]]],
  ["an out-of-range 256 colour changes nothing", [`${E}[38;5;300mx`], [["x"]]],
  ["a short true colour changes nothing", [`${E}[38;2;1;2mx`], [["x"]]],
  ["other CSI sequences are dropped", [`${E}[2K${E}[1Gline${E}[?25l`], [["line"]]],
  ["private SGR parameters are ignored", [`${E}[>4;2mx`], [["x"]]],
  ["a CSI broken by a control character ends there", [`${E}[3\x07x`], [["\x07x"]]],
  ["OSC titles and links are dropped, BEL or ST", [`${E}]0;title\x07a${E}]8;;http://x${E}\\b`], [["ab"]]],
  ["an OSC split across chunks", [`${E}]0;ti`, "tle\x07ok"], [["ok"]]],
  ["two-character escapes are dropped", [`${E}7a${E}(Bb${E}=c`], [["abc"]]],
  ["an unfinished CSI over its bound is dropped, not held", [`${E}[` + "1;".repeat(40), "x"], [["x"]]],
  ["markup is text", [`<b>&amp;</b>`], [["<b>&amp;</b>"]]],
];

function sameSpans(got: Span[], want: Want[]): string | null {
  const g = got.map((s) => JSON.stringify([s.text, s.style]));
  const w = want.map(([text, style]) => JSON.stringify([text, style ?? {}]));
  return g.join() === w.join() ? null : `got ${g.join(" ")}, want ${w.join(" ")}`;
}

let failed = 0;
function report(name: string, why: string | null): void {
  if (why === null) process.stdout.write(`ok - ${name}\n`);
  else {
    failed++;
    process.stdout.write(`not ok - ${name}: ${why}\n`);
  }
}

for (const [name, chunks, want] of cases) {
  const r = new SGRReader();
  const got: Span[] = [];
  for (const c of chunks) {
    for (const s of r.feed(c)) {
      const last = got[got.length - 1];
      if (last !== undefined && JSON.stringify(last.style) === JSON.stringify(s.style)) got[got.length - 1] = { text: last.text + s.text, style: s.style };
      else got.push(s);
    }
  }
  report(name, sameSpans(got, want));
}

report("color256 0–15 stay indices", color256(9) === 9 && color256(16) === "#000000" && color256(231) === "#ffffff" && color256(232) === "#080808" ? null : "wrong palette");
report("stripControls keeps tab and drops the rest", stripControls("a\tb\x07c\x00d") === "a\tbcd" ? null : JSON.stringify(stripControls("a\tb\x07c\x00d")));

// The log model: lines, carriage returns and channels.
function lines(chunks: [string, string][]): string[] {
  const m = new LogModel();
  chunks.forEach(([text, channel], i) => m.append(text, i, channel));
  return m.lines.map((l) => `${l.channel}:${l.text}`);
}
const lineCases: [string, [string, string][], string[]][] = [
  ["newlines end lines, across chunks", [["a\nb", "stdout"], ["c\n\nd\n", "stdout"]], ["stdout:a", "stdout:bc", "stdout:", "stdout:d"]],
  ["a carriage return overwrites the line in place", [["10%\r", "stdout"], ["50%\r100%\n", "stdout"], ["done\n", "stdout"]], ["stdout:100%", "stdout:done"]],
  ["CRLF is one line end, even split", [["a\r", "stdout"], ["\nb\r\n", "stdout"]], ["stdout:a", "stdout:b"]],
  ["another channel starts a line of its own", [["out ", "stdout"], ["err\n", "stderr"], ["more\n", "stdout"]], ["stdout:out ", "stderr:err", "stdout:more"]],
  ["a line's colours do not make it longer", [[`${E}[32mgreen${E}[0m\n`, "stdout"]], ["stdout:green"]],
];
for (const [name, chunks, want] of lineCases) {
  const got = lines(chunks);
  report(name, got.join("|") === want.join("|") ? null : `got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
}

if (failed > 0) process.exit(1);
