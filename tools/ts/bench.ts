// What the generated decoders cost per follow frame, against JSON.parse
// alone: for each frame shape, the median over runs of the time per frame of
// JSON.parse(text) and of decodeFollowFrame(JSON.parse(text)), and their
// ratio. Run it with `make ts-bench` (tools/ts/bench.sh).
import { decodeFollowFrame, encodeFollowFrame, type FollowFrame, type JobID } from "@jobgen/jobgen/jobs";

const snapshot = {
  id: "6ba7b810-9dad-11d1-80b4-00c04fd430c8" as JobID,
  name: "bash-3",
  kind: "bash",
  label: "make test",
  ordinal: 3,
  owner: "session-1" as never,
  record: true,
  status: "running" as const,
  detail: "compiling",
  startedAt: 1764547200000,
  outputBytes: 123456,
};

function output(chunks: number): FollowFrame {
  const text = "ok   github.com/jobgen/jobgen/registry  0.412s  coverage: 81.2% of statements\n";
  return {
    frame: "output",
    chunks: Array.from({ length: chunks }, (_, i) => ({
      offset: 100000 + i * text.length,
      at: 1764547200000 + i,
      text,
      channel: i % 2 === 0 ? "stdout" : "stderr",
    })),
    next: 100000 + chunks * text.length,
  };
}

const shapes: [string, FollowFrame][] = [
  ["opened (a snapshot)", { frame: "opened", job: snapshot, from: 0, earliest: 0, total: 123456 }],
  ["output, 1 chunk", output(1)],
  ["output, 32 chunks", output(32)],
  ["status (a snapshot)", { frame: "status", job: { ...snapshot, status: "completed", finishedAt: 1764547260000 } }],
];

const runs = 15;
const sink: unknown[] = [];

function perFrame(texts: string[], fn: (s: string) => unknown): number {
  const start = process.hrtime.bigint();
  for (const s of texts) sink[0] = fn(s);
  return Number(process.hrtime.bigint() - start) / texts.length;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? NaN;
}

const lines = [
  "| frame | bytes | JSON.parse ns/frame | JSON.parse + decodeFollowFrame ns/frame | decoding alone | ratio to JSON.parse |",
  "|---|---:|---:|---:|---:|---:|",
];
for (const [name, frame] of shapes) {
  const text = JSON.stringify(encodeFollowFrame(frame));
  const n = Math.max(2000, Math.floor(20_000_000 / text.length));
  // Distinct strings, so that no run reuses another's parse.
  const texts = Array.from({ length: n }, (_, i) => text.replace("6ba7b810", (0x6ba7b810 + (i % 1000)).toString(16)));
  const parse: number[] = [];
  const decode: number[] = [];
  for (let r = 0; r < runs + 1; r++) {
    const p = perFrame(texts, (s) => JSON.parse(s));
    const d = perFrame(texts, (s) => decodeFollowFrame(JSON.parse(s)));
    if (r > 0) {
      parse.push(p);
      decode.push(d); // the first run warms the JIT
    }
  }
  const mp = median(parse);
  const md = median(decode);
  lines.push(`| ${name} | ${text.length} | ${mp.toFixed(0)} | ${md.toFixed(0)} | ${(md - mp).toFixed(0)} | ${(md / mp).toFixed(2)} |`);
}
process.stdout.write(lines.join("\n") + "\n");
