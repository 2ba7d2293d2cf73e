// Run by gen/typescript's TestDecodersRefuseWhatIsBeyondABound beside the
// modules the TypeScript backend generates from the tools-table case
// (waiter.mjs, menu.mjs) and the runtime: it reads gentest.BoundDocuments
// from stdin, a JSON list of {type, text} with each document as its text,
// and writes, per document, whether the generated decoder took what
// JSON.parse read of it and, when it did not, the error's kind and path.
import { readFileSync } from "node:fs";
import * as waiter from "./waiter.mjs";

const decode = {
  ListOrders: waiter.decodeListOrders,
  CookOrder: waiter.decodeCookOrder,
  Order: waiter.decodeOrder,
  FactEnvelope: waiter.decodeFact,
};
const answers = JSON.parse(readFileSync(0, "utf8")).map(({ type, text }) => {
  try {
    decode[type](JSON.parse(text));
    return { ok: true };
  } catch (e) {
    return { ok: false, kind: e.kind, path: e.path, msg: String(e.message) };
  }
});
process.stdout.write(JSON.stringify(answers));
