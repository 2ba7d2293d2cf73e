// The Node side of the cross-language tests (spec/ts_roundtrip_test.go): it
// reads one request a line, {"type": "FollowFrame", "doc": <JSON>}, decodes
// doc with the generated decodeX of the module and, when that succeeds,
// encodes the result with encodeX, writing one answer a line:
// {"ok": true, "out": <JSON>} or {"ok": false, "kind": ..., "path": ...}.
// FactEnvelope is decodeFact and encodeFact. A request with "encode" instead
// of "doc" only encodes that value, answering an EncodeError as a refusal.
// It knows no type by name: any module jobgen writes works.
import * as mod from "../../generated/ts/jobs.js";
import { readFileSync } from "node:fs";

type Codec = { decode: (json: unknown) => unknown; encode: (value: never) => unknown };

const exports = mod as unknown as Record<string, unknown>;
const codecs = new Map<string, Codec>();
for (const [name, fn] of Object.entries(exports)) {
  if (!name.startsWith("decode") || typeof fn !== "function") continue;
  const type = name === "decodeFact" ? "FactEnvelope" : name.slice("decode".length);
  const enc = exports[name === "decodeFact" ? "encodeFact" : "encode" + type];
  codecs.set(type, {
    decode: fn as Codec["decode"],
    encode: typeof enc === "function" ? (enc as Codec["encode"]) : (v: never) => v,
  });
}

const answers: string[] = [];
for (const line of readFileSync(0, "utf8").split("\n")) {
  if (line === "") continue;
  const req = JSON.parse(line) as { type: string; doc?: unknown; encode?: unknown };
  const codec = codecs.get(req.type);
  if (codec === undefined) {
    answers.push(JSON.stringify({ ok: false, kind: "noCodec", msg: "no decode" + req.type }));
    continue;
  }
  try {
    if (req.encode !== undefined) {
      answers.push(JSON.stringify({ ok: true, out: codec.encode(req.encode as never) }));
      continue;
    }
    const value = codec.decode(req.doc);
    answers.push(JSON.stringify({ ok: true, out: codec.encode(value as never) }));
  } catch (e) {
    if (e instanceof mod.DecodeError) {
      answers.push(JSON.stringify({ ok: false, kind: e.kind, path: e.path, msg: e.message }));
    } else if (e instanceof mod.EncodeError) {
      answers.push(JSON.stringify({ ok: false, kind: e.kind, path: e.field, msg: e.message }));
    } else {
      answers.push(JSON.stringify({ ok: false, kind: "crash", msg: String(e) }));
    }
  }
}
process.stdout.write(answers.join("\n") + "\n");
