// Run by gen/typescript's TestDecodersAreLinearInSize beside the module the
// TypeScript backend generates from the kitchen-sink spec (kitchen.mjs) and
// the runtime: decoding a document of 4n units of each hostile shape takes
// about 4 times as long as one of n; more than 8 times fails (quadratic code
// takes 16). Each cost is the process's CPU time, the least of ten
// interleaved runs of the decoder over the document JSON.parse read. It prints one line per shape
// and exits 1 when one failed.
import { decodeDish } from "./kitchen.mjs";

const dish = '"name":"x","course":"main-course","priceCents":1,"allergens":{}';

const shapes = [
  // Deeper, the decoders' recursion overflows the stack (decision 0157).
  ["a record nested in itself", 400, (n) => `{${dish},"parent":`.repeat(n) + `{${dish}}` + "}".repeat(n), decodeDish],
  ["many small records", 20000, (n) => "[" + Array.from({ length: n }, () => `{${dish}}`).join(",") + "]", (d) => d.map((e) => decodeDish(e))],
  ["a long string with many escapes", 50000, (n) => `{${dish.replace('"x"', '"' + '\\n\\u00e9\\"'.repeat(n) + '"')}}`, decodeDish],
  ["many keys", 8000, (n) => `{${dish},` + Array.from({ length: n }, (_, i) => `"k${i}":${i}`).join(",") + "}", decodeDish],
];

function fastest(decode, doc, best) {
  globalThis.gc(); // node --expose-gc: a collection owed to the last run is not this one's
  const start = process.cpuUsage();
  decode(doc);
  const used = process.cpuUsage(start);
  return Math.min(best, (used.user + used.system) / 1000);
}

let failed = false;
for (const [name, unit, doc, decode] of shapes) {
  const small = JSON.parse(doc(unit)), large = JSON.parse(doc(4 * unit));
  let s = Infinity, l = Infinity;
  for (let i = 0; i < 10; i++) {
    s = fastest(decode, small, s);
    l = fastest(decode, large, l);
  }
  const ratio = l / Math.max(s, 0.001);
  const ok = ratio <= 8;
  failed ||= !ok;
  process.stdout.write(`${ok ? "ok" : "not ok"} - ${name}: 4 times the size took ${ratio.toFixed(1)} times as long\n`);
}
process.exit(failed ? 1 : 0);
