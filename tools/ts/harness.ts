// The Node side of the cross-language tests (spec/ts_test.go): it reads one
// request a line from stdin, {"type": "FollowFrame", "doc": <JSON>}, decodes
// doc with the generated decodeX of a module of the package @jobgen/jobgen
// (its JavaScript, as a front end imports it) and, when that succeeds,
// encodes the result with encodeX, writing one answer a line:
// {"ok": true, "out": <JSON>} or {"ok": false, "kind": ..., "path": ...,
// "shared": ...}, where shared says the error is an instance of the one
// DecodeError (or EncodeError) class of the package's runtime, whichever
// vocabulary threw it. FactEnvelope is decodeFact and encodeFact. A request
// with "encode" instead of "doc" only encodes that value, answering an
// EncodeError as a refusal. It knows no type by name: any module jobgen
// writes works. The module is the first argument (jobs by default).
import { readFileSync } from "node:fs";
import { DecodeError, EncodeError } from "@jobgen/jobgen/runtime";

const exports = (await import("@jobgen/jobgen/" + (process.argv[2] ?? "jobs"))) as Record<string, unknown>;

type Codec = { decode: (json: unknown) => unknown; encode: (value: never) => unknown };

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
    const err = e as { name?: unknown; kind?: unknown; path?: unknown; field?: unknown; message?: unknown };
    if (err.name === "DecodeError") {
      answers.push(JSON.stringify({ ok: false, kind: err.kind, path: err.path, msg: err.message, shared: e instanceof DecodeError }));
    } else if (err.name === "EncodeError") {
      answers.push(JSON.stringify({ ok: false, kind: err.kind, path: err.field, msg: err.message, shared: e instanceof EncodeError }));
    } else {
      answers.push(JSON.stringify({ ok: false, kind: "crash", msg: String(e) }));
    }
  }
}
process.stdout.write(answers.join("\n") + "\n");
