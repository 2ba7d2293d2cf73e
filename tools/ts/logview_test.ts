// The log model's groups (jobhttp/static/logview.mts), run in Node by
// jobhttp/ansi_node_test.go: GitHub Actions group markers and OSC 133
// prompt marks, split across chunks anywhere; the rule that groups do not
// nest; which groups are collapsed; the rows a page of collapsed groups
// shows, with their line numbers; and the row index a search or a link
// opens a group through. It prints "ok - NAME" or "not ok - NAME: WHY" per
// case and exits 1 when any failed.
import { SGRReader } from "../../jobhttp/static/ansi.mjs";
import { LogModel, RowIndex, expanded, maxLines, type Group, type Row } from "../../jobhttp/static/logview.mjs";

const E = "\x1b", BEL = "\x07", ST = "\x1b\\";
const osc = (body: string, end = BEL): string => `${E}]133;${body}${end}`;

let failed = 0;
function check(name: string, got: unknown, want: unknown): void {
  const g = JSON.stringify(got), w = JSON.stringify(want);
  if (g === w) process.stdout.write(`ok - ${name}\n`);
  else {
    failed++;
    process.stdout.write(`not ok - ${name}: got ${g}, want ${w}\n`);
  }
}

/** model appends chunks, the i-th at time i*100. */
function model(chunks: string[]): LogModel {
  const m = new LogModel();
  chunks.forEach((c, i) => m.append(c, i * 100, "stdout"));
  return m;
}
const texts = (m: LogModel): string[] => m.lines.map((l) => l.text);
const groups = (m: LogModel): Group[] => m.segments.flatMap((s) => (s.group === null ? [] : [s.group]));
/** summary is each group as name:lines:exit:running. */
const summary = (m: LogModel): string[] => groups(m).map((g) => `${g.name}:${g.seg.count}:${g.exit ?? "-"}:${g.running ? "running" : "closed"}`);
/** page is what every row shows: a line's number and text, or "[name]" / "[name]+" for a collapsed / expanded header. */
function page(m: LogModel, ix = new RowIndex(m)): string[] {
  return ix.rows(0, ix.total).map((r: Row) => ("header" in r ? `[${r.header.name}]${expanded(r.header) ? "+" : ""}` : `${m.base + r.line + 1} ${(m.lines[r.line] ?? { text: "?" }).text}`));
}

// GitHub Actions groups.
{
  const m = model(["setup\n::group::Build\n", "compile a\n", "compile b\n::endgroup::\n", "done\n"]);
  check("Actions markers open and close a group and are not output lines", texts(m), ["setup", "compile a", "compile b", "done"]);
  check("a closed Actions group holds its lines", summary(m), ["Build:2:-:closed"]);
  const g = groups(m)[0] as Group;
  check("a group's duration runs from its first line's time to its last's", [g.startAt, g.endAt], [100, 200]);
  check("a closed group is collapsed: its header shows, its lines do not, and the numbers skip them", page(m), ["1 setup", "[Build]", "4 done"]);
  m.toggle(g);
  check("opening it shows its lines under the header, numbered as before", page(m), ["1 setup", "[Build]+", "2 compile a", "3 compile b", "4 done"]);
}
{
  const m = model(["::group::One\na\n::group::Two\nb\n::endgroup::\nafter\n"]);
  check("a ::group:: while one is open closes it first: groups do not nest", summary(m), ["One:1:-:closed", "Two:1:-:closed"]);
  check("the line after both groups is outside either", m.lines.map((l) => l.group?.name ?? ""), ["One", "Two", ""]);
}
{
  const whole = "pre\n::group::Split me\nx\n::endgroup::\npost\n";
  let same = true;
  for (let k = 1; k < whole.length; k++) {
    const m = model([whole.slice(0, k), whole.slice(k)]);
    if (JSON.stringify([texts(m), summary(m)]) !== JSON.stringify([["pre", "x", "post"], ["Split me:1:-:closed"]])) same = false;
  }
  check("Actions markers split at any point read as whole ones", same, true);
}
check("the ##[group] form the runner still honours opens a group too", summary(model(["##[group]Old\nx\n##[endgroup]\n"])), ["Old:1:-:closed"]);
check("a marker not at the start of a line is output", texts(model(["echo ::group::x\n"])), ["echo ::group::x"]);
{
  const m = model(["::group::Live\n", "one\n"]);
  const g = groups(m)[0] as Group;
  check("the running group is expanded while it runs", [g.running, expanded(g), page(m)], [true, true, ["[Live]+", "1 one"]]);
  m.append("::endgroup::\n", 300, "stdout");
  check("once it closes it collapses, unless the reader opened it", [expanded(g), page(m)], [false, ["[Live]"]]);
  const m2 = model(["::group::Live\n", "one\n"]);
  const g2 = groups(m2)[0] as Group;
  m2.toggle(g2); // the reader collapses it while it runs
  m2.append("two\n", 300, "stdout");
  check("a running group the reader collapsed stays collapsed", page(m2), ["[Live]"]);
  m2.toggle(g2);
  m2.append("::endgroup::\n", 400, "stdout");
  check("a group the reader opened stays open once it closes", page(m2), ["[Live]+", "1 one", "2 two"]);
}
check("an empty group is a header alone", page(model(["::group::Nothing\n::endgroup::\nx\n"])), ["[Nothing]", "1 x"]);

// OSC 133 semantic prompt marks.
const session = osc("A") + "$ " + osc("B") + "make test\n" + osc("C") + "ok 1\nok 2\n" + osc("D;0") +
  osc("A") + "$ " + osc("B") + "false\n" + osc("C") + osc("D;1", ST) +
  osc("A") + "$ " + osc("B") + "true\n" + osc("C") + "x\n" + osc("D");
{
  const m = model([session]);
  check("each command is a group named by its text between B and C, the prompt line kept as output",
    [texts(m), summary(m)], [["$ make test", "ok 1", "ok 2", "$ false", "$ true", "x"], ["make test:2:0:closed", "false:0:1:closed", "true:1:-:closed"]]);
  check("a page of finished commands shows their prompts and collapsed headers", page(m), ["1 $ make test", "[make test]", "4 $ false", "[false]", "5 $ true", "[true]"]);
  let same = true, bad = "";
  for (let k = 1; k < session.length && same; k++) {
    const s = model([session.slice(0, k), session.slice(k)]);
    if (JSON.stringify([texts(s), summary(s)]) !== JSON.stringify([texts(m), summary(m)])) {
      same = false;
      bad = JSON.stringify(session.slice(0, k));
    }
  }
  check("OSC 133 marks split at any point between two chunks read as whole ones (got: the first split that differs)", same ? "" : bad, "");
  const bytes = model([...session]);
  check("OSC 133 marks arriving one character per chunk read as whole ones", [texts(bytes), summary(bytes)], [texts(m), summary(m)]);
}
check("a prompt after a command that never said D closes it, with no exit code",
  summary(model([osc("B") + "sleep 9\n" + osc("C") + "z\n" + osc("A") + "$ "])), ["sleep 9:1:-:closed"]);
check("a command's output starts on a line of its own", texts(model([osc("B") + "ls" + osc("C") + "a\n"])), ["ls", "a"]);
check("OSC 133 C while an Actions group is open closes it (the prompt line stays the open group's): one level of groups",
  summary(model(["::group::Setup\ns\n" + osc("B") + "go test\n" + osc("C") + "PASS\n" + osc("D;0")])), ["Setup:2:-:closed", "go test:1:0:closed"]);
{
  const r = new SGRReader();
  check("the reader returns prompt marks in their place and still drops other OSCs",
    r.read(`a${osc("B")}b${E}]0;title${BEL}${osc("D;2", ST)}`), [{ text: "a", style: {} }, { mark: "B" }, { text: "b", style: {} }, { mark: "D", exit: 2 }]);
  check("feed still yields spans only", new SGRReader().feed(`a${osc("C")}b`).map((s) => s.text).join(""), "ab");
}

// The row index a page scrolls, searches and links through.
{
  const parts: string[] = [];
  let n = 0;
  for (let g = 0; g < 40; g++) {
    parts.push(`::group::step ${g}\n`);
    for (let i = 0; i < 2500; i++) parts.push(`line ${++n}\n`);
    parts.push("::endgroup::\n");
  }
  const m = model([parts.join("")]);
  const ix = new RowIndex(m);
  check("100,000 lines in 40 closed groups are 40 header rows", [m.lines.length, ix.total], [100_000, 40]);
  const hit = m.lines.findIndex((l) => l.text === "line 62501");
  check("a line in a collapsed group has no row", ix.rowOfLine(hit), -1);
  const row = ix.reveal(hit);
  check("revealing a search match opens its group, and the match gets the row under its header",
    [expanded(m.lines[hit]?.group as Group), row, ix.total, page(m, ix)[row]], [true, 25 + 1, 40 + 2500, "62501 line 62501"]);
  check("rows across a group's end run on to the next header", page(m, ix).slice(2524, 2527), ["64999 line 64999", "65000 line 65000", "[step 26]"]);
  check("a window of rows from the middle is what the whole page has there", ix.rows(1000, 1003).map((r) => ("line" in r ? r.line : -1)), [25 * 2500 + 1000 - 26, 25 * 2500 + 1000 - 25, 25 * 2500 + 1000 - 24]);
}
{
  const m = model(["::group::old\n" + "o\n".repeat(20) + "::endgroup::\n" + "new\n".repeat(maxLines)]);
  check("past maxLines the oldest lines go with the group they emptied, and numbering goes on",
    [m.lines.length, groups(m).length, page(m).slice(0, 1)], [maxLines, 0, ["21 new"]]);
}

if (failed > 0) process.exit(1);
