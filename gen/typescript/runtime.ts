// The runtime of a TypeScript package jobgen writes: the JSON types, the
// errors every decoder and encoder throws (one DecodeError class for every
// vocabulary of the package, and of packages that import it), and the
// helpers the generated modules call. The names starting with _ are those
// helpers: exported for the generated modules, not for callers, and free to
// change with jobgen.

/** A JSONValue is a value JSON.parse returns and JSON.stringify writes. */
export type JSONValue = null | boolean | number | string | JSONValue[] | { [key: string]: JSONValue };

/** A JSONObject is a JSON object, as the encoders return it. */
export type JSONObject = { [key: string]: JSONValue };

/**
 * A DecodeErrorKind says why a decoder refused its input. missingField,
 * invalidEnum, invalidID, ambiguousKey, unknownVariant, unknownFact and
 * unknownVersion are the refusals Go reports with ErrMissingField,
 * ErrInvalidEnum, ErrInvalidID, ErrAmbiguousKey, ErrUnknownVariant,
 * ErrUnknownFact and ErrUnknownVersion; wrongType is a JSON value of the wrong
 * type, and invalidValue one of the right type that Go refuses too (an integer
 * out of range, another variant's tag) or that a number cannot hold exactly
 * (an integer beyond ±(2^53 − 1)).
 */
export type DecodeErrorKind =
  | "missingField"
  | "wrongType"
  | "invalidEnum"
  | "invalidValue"
  | "invalidID"
  | "ambiguousKey"
  | "unknownVariant"
  | "unknownFact"
  | "unknownVersion";

/** A DecodeError is a refusal by a decoder, at the JSON path of the refused value, such as $.items[2].name. */
export class DecodeError extends Error {
  /** Kind says why the value was refused. */
  readonly kind: DecodeErrorKind;
  /** Path is the JSON path of the refused value: $ is the decoder's input. */
  readonly path: string;

  constructor(kind: DecodeErrorKind, path: string, message: string) {
    super(path + ": " + message);
    this.name = "DecodeError";
    this.kind = kind;
    this.path = path;
  }
}

/**
 * An EncodeError is a value an encoder refuses to write because Go would not
 * read it back: an integer that is not a safe integer, a value outside an
 * enum, a malformed UUID, an unknown variant or fact.
 */
export class EncodeError extends Error {
  /** Kind says why the value was refused. */
  readonly kind: DecodeErrorKind;
  /** Field names the refused value, such as Order.total. */
  readonly field: string;

  constructor(kind: DecodeErrorKind, field: string, message: string) {
    super("encode " + field + ": " + message);
    this.name = "EncodeError";
    this.kind = kind;
    this.field = field;
  }
}

type _Key = string | number;
type _Obj = { readonly [key: string]: unknown };

const _ident = /^[A-Za-z_][A-Za-z0-9_]*$/;

// _at is the path of a member: key is a field or map key, or an array index.
export function _at(path: string, key: _Key): string {
  if (key === "") return path;
  if (typeof key === "number") return path + "[" + key + "]";
  return _ident.test(key) ? path + "." + key : path + "[" + JSON.stringify(key) + "]";
}

function _kind(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  return typeof v === "object" ? "an object" : "a " + typeof v;
}

export function _wrong(path: string, key: _Key, want: string, v: unknown): DecodeError {
  return new DecodeError("wrongType", _at(path, key), "want " + want + ", got " + _kind(v));
}

export function _missing(path: string, type: string, field: string): DecodeError {
  return new DecodeError("missingField", _at(path, field), type + ": missing required field " + JSON.stringify(field));
}

const _none: _Obj = Object.freeze({});

// _maxDepth is how deeply Go's decoders let arrays and objects nest in a
// document (encoding/json's limit), counted from the document's top.
const _maxDepth = 10000;

// _nesting refuses a document that Go refuses for nesting deeper than
// _maxDepth anywhere, under a key no decoder reads too. A decoder calls it
// for the document it is given at $, so a document is walked once, not
// again for each record in it.
export function _nesting(doc: object): void {
  _walk(doc, 1);
}

// _walk visits the arrays and objects inside v, at depth, by recursion while
// they are shallow (which is fast and nearly always enough) and with a stack
// of its own below that, so that no depth runs out of call stack.
function _walk(v: object, depth: number): void {
  if (depth >= 256) {
    _walkDeep(v, depth);
    return;
  }
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const e: unknown = v[i];
      if (typeof e === "object" && e !== null) _walk(e, depth + 1);
    }
    return;
  }
  const o = v as _Obj;
  for (const k in o) {
    const e = o[k];
    if (typeof e === "object" && e !== null) _walk(e, depth + 1);
  }
}

function _walkDeep(top: object, at: number): void {
  const values: object[] = [top];
  const depths: number[] = [at];
  for (let v = values.pop(); v !== undefined; v = values.pop()) {
    const depth = depths.pop() ?? 0;
    if (depth > _maxDepth) {
      throw new DecodeError("invalidValue", "$", "arrays and objects nest deeper than " + _maxDepth + ", which Go refuses");
    }
    const children: unknown[] = Array.isArray(v) ? v : Object.values(v);
    for (const e of children) {
      if (typeof e === "object" && e !== null) {
        values.push(e);
        depths.push(depth + 1);
      }
    }
  }
}

// _obj is the object a record, variant or envelope is read from. Go reads
// null as an object without fields, so it is one here too.
// A union's decoder reads the object without the walk (walk false): the
// variant it hands the object to walks it, and so does the union before it
// refuses a tag.
export function _obj(v: unknown, path: string, type: string, walk = true): _Obj {
  if (typeof v === "object" && v !== null && !Array.isArray(v)) {
    if (walk && path === "$") _nesting(v);
    return v as _Obj;
  }
  if (v === null) return _none;
  throw new DecodeError("wrongType", path, type + ": want an object, got " + _kind(v));
}

// _fold is Go's case folding for ASCII names (strings.EqualFold): it folds
// U+017F (long s) to S and U+212A (Kelvin sign) to K, and no other
// character to ASCII. Go refuses a key that folds to a field's name without
// being it.
export function _fold(k: string): string {
  let out = "";
  for (let i = 0; i < k.length; i++) {
    let c = k.charCodeAt(i);
    if (c >= 97 && c <= 122) c -= 32;
    else if (c === 0x17f) c = 83;
    else if (c === 0x212a) c = 75;
    out += String.fromCharCode(c);
  }
  return out;
}

const _hasLone = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const _lone = new RegExp(_hasLone.source, "g");

// _wellFormed replaces each lone surrogate with U+FFFD, as Go reads the
// escape of one (\ud800 alone): JSON.parse keeps it, and a string Go could
// not hold would be written back otherwise than Go writes it.
function _wellFormed(s: string): string {
  return _hasLone.test(s) ? s.replace(_lone, "\uFFFD") : s;
}

export function _str(v: unknown, path: string, key: _Key): string {
  if (typeof v !== "string") throw _wrong(path, key, "a string", v);
  return _wellFormed(v);
}

export function _bool(v: unknown, path: string, key: _Key): boolean {
  if (typeof v !== "boolean") throw _wrong(path, key, "a boolean", v);
  return v;
}

// _int reads a 64-bit integer. A number holds integers exactly only up to
// ±(2^53 − 1), so larger ones, which Go reads, are refused rather than
// rounded.
export function _int(v: unknown, path: string, key: _Key): number {
  if (typeof v !== "number") throw _wrong(path, key, "an integer", v);
  if (!Number.isSafeInteger(v)) {
    if (!Number.isInteger(v)) throw new DecodeError("wrongType", _at(path, key), "want an integer, got " + v);
    throw new DecodeError("invalidValue", _at(path, key), v + " is beyond ±(2^53 − 1), the integers a number holds exactly");
  }
  return v;
}

// _uint reads an unsigned integer; Go refuses -0 there too.
export function _uint(v: unknown, path: string, key: _Key): number {
  const n = _int(v, path, key);
  if (n < 0 || Object.is(n, -0)) throw new DecodeError("invalidValue", _at(path, key), "want an unsigned integer, got " + (Object.is(n, -0) ? "-0" : n));
  return n;
}

export function _range(v: unknown, path: string, key: _Key, min: number, max: number): number {
  const n = min === 0 ? _uint(v, path, key) : _int(v, path, key);
  if (n < min || n > max) throw new DecodeError("invalidValue", _at(path, key), n + " is outside [" + min + ", " + max + "]");
  return n;
}

export function _float(v: unknown, path: string, key: _Key): number {
  if (typeof v !== "number" || !Number.isFinite(v)) throw _wrong(path, key, "a finite number", v);
  return v;
}

export function _float32(v: unknown, path: string, key: _Key): number {
  const n = _float(v, path, key);
  if (!Number.isFinite(Math.fround(n))) throw new DecodeError("invalidValue", _at(path, key), n + " overflows a float32");
  return n;
}

export function _enum<T extends string>(v: unknown, path: string, key: _Key, is: (x: unknown) => x is T, type: string): T {
  if (typeof v !== "string") throw _wrong(path, key, "a " + type + " string", v);
  if (!is(v)) throw new DecodeError("invalidEnum", _at(path, key), JSON.stringify(v) + " is not a " + type);
  return v;
}

export const _zeroUUID = "00000000-0000-0000-0000-000000000000";
const _canonicalUUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

// _uuid reads a UUID as Go's codec.ParseUUID does: only the canonical form,
// 36 lower-case characters in 8-4-4-4-12, and not the nil UUID.
export function _uuid(v: unknown, path: string, key: _Key): string {
  if (typeof v !== "string") throw _wrong(path, key, "a UUID string", v);
  if (!_canonicalUUID.test(v)) {
    throw new DecodeError("invalidID", _at(path, key), JSON.stringify(v) + " is not a UUID in canonical form (8-4-4-4-12 lower-case hex digits)");
  }
  if (v === _zeroUUID) throw new DecodeError("invalidID", _at(path, key), "the nil UUID");
  return v;
}

// _ambiguous refuses a key that differs from a field's name only in case,
// which Go's decoders refuse too (codec.ErrAmbiguousKey).
export function _ambiguous(path: string, type: string, key: string, field: string): DecodeError {
  return new DecodeError("ambiguousKey", _at(path, key), type + ": key " + JSON.stringify(key) + " differs from field " + JSON.stringify(field) + " only in case");
}

const _base64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

// _bytes reads a []byte: standard base64 with padding, where Go ignores line breaks.
export function _bytes(v: unknown, path: string, key: _Key): string {
  if (typeof v !== "string") throw _wrong(path, key, "a base64 string", v);
  if (!_base64.test(v.replace(/[\r\n]/g, ""))) throw new DecodeError("invalidValue", _at(path, key), "not standard base64");
  return v;
}

export const _zeroTime = "0001-01-01T00:00:00Z";
const _rfc3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:Z|[+-](\d{2}):(\d{2}))$/;

// _time reads a time.Time: an RFC 3339 timestamp with a valid date and time.
export function _time(v: unknown, path: string, key: _Key): string {
  if (typeof v !== "string") throw _wrong(path, key, "an RFC 3339 time string", v);
  const m = _rfc3339.exec(v);
  const n = (i: number): number => Number(m?.[i] ?? 0);
  const y = n(1), mo = n(2), d = n(3);
  const leap = y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
  const days = mo === 2 ? (leap ? 29 : 28) : mo === 4 || mo === 6 || mo === 9 || mo === 11 ? 30 : 31;
  if (m === null || mo < 1 || mo > 12 || d < 1 || d > days || n(4) > 23 || n(5) > 59 || n(6) > 59 || n(7) > 23 || n(8) > 59) {
    throw new DecodeError("invalidValue", _at(path, key), JSON.stringify(v) + " is not an RFC 3339 time");
  }
  return v;
}

export function _arr<T>(v: unknown, path: string, key: _Key, el: (e: unknown, path: string, i: number) => T): T[] {
  if (!Array.isArray(v)) throw _wrong(path, key, "an array", v);
  const p = _at(path, key);
  const out: T[] = new Array<T>(v.length);
  for (let i = 0; i < v.length; i++) out[i] = el(v[i], p, i);
  return out;
}

export function _map<T>(
  v: unknown,
  path: string,
  key: _Key,
  k: ((name: string, path: string) => string) | undefined,
  el: (e: unknown, path: string, name: string) => T,
): { [key: string]: T } {
  if (typeof v !== "object" || v === null || Array.isArray(v)) throw _wrong(path, key, "an object", v);
  const p = _at(path, key);
  const out: [string, T][] = [];
  for (const raw of Object.keys(v)) {
    const name = _wellFormed(raw);
    out.push([k === undefined ? name : k(name, p), el((v as _Obj)[raw], p, name)]);
  }
  return Object.fromEntries(out);
}

export function _eint(v: number, field: string): number {
  if (!Number.isSafeInteger(v)) throw new EncodeError("invalidValue", field, v + " is not an integer within ±(2^53 − 1)");
  return v;
}

export function _erange(v: number, field: string, min: number, max: number): number {
  if (!Number.isSafeInteger(v) || v < min || v > max || (min === 0 && Object.is(v, -0))) {
    throw new EncodeError("invalidValue", field, v + " is not an integer in [" + min + ", " + max + "]");
  }
  return v;
}

export function _efloat(v: number, field: string, bits: 32 | 64): number {
  if (!Number.isFinite(bits === 32 ? Math.fround(v) : v)) throw new EncodeError("invalidValue", field, v + " is not a finite float" + bits);
  return v;
}

export function _eenum<T extends string>(v: T, is: (x: unknown) => x is T, field: string): T {
  if (!is(v)) throw new EncodeError("invalidEnum", field, JSON.stringify(v) + " is not a declared value");
  return v;
}

export function _euuid(v: string, field: string): string {
  if (typeof v !== "string" || !_canonicalUUID.test(v) || v === _zeroUUID) {
    throw new EncodeError("invalidID", field, JSON.stringify(v) + " is not a UUID Go reads: canonical, lower-case and not nil");
  }
  return v;
}

export function _emap<T>(v: { [key: string]: T }, k: ((name: string) => string) | undefined, el: (e: T) => JSONValue): JSONObject {
  const out: [string, JSONValue][] = [];
  for (const name of Object.keys(v)) out.push([k === undefined ? name : k(name), el(v[name] as T)]);
  return Object.fromEntries(out);
}

/** An UnknownReason says what a build did not know about a fact (decision 0174). */
export type UnknownReason = "type" | "version" | "variant" | "value";

/**
 * An UnknownFact is a fact a tolerant reader (readFact) kept without
 * decoding it, because this build does not know its type, its version, a
 * union variant or an enum value it holds: its type and version as the
 * envelope names them, why, the refusal's path, and the JSON as it was read,
 * never rewritten.
 */
export interface UnknownFact {
  readonly unknown: true;
  readonly type: string;
  readonly v: number;
  readonly why: UnknownReason;
  readonly path: string;
  readonly raw: unknown;
}

/**
 * _tolerate is the UnknownFact a tolerant reader keeps of json, whose strict
 * decoding threw e, when e says the build does not know it; undefined for
 * damage, which the reader throws on.
 */
export function _tolerate(json: unknown, e: unknown): UnknownFact | undefined {
  if (!(e instanceof DecodeError)) return undefined;
  const why = ({ unknownFact: "type", unknownVersion: "version", unknownVariant: "variant", invalidEnum: "value" } as const)[
    e.kind as "unknownFact" | "unknownVersion" | "unknownVariant" | "invalidEnum"
  ];
  if (why === undefined || typeof json !== "object" || json === null || Array.isArray(json)) return undefined;
  const o = json as { [key: string]: unknown };
  const type = typeof o["type"] === "string" ? o["type"] : "";
  const v = typeof o["v"] === "number" ? o["v"] : 0;
  return { unknown: true, type, v, why, path: e.path, raw: json };
}

/**
 * A ToolDefinition is what a model-facing tool a spec declares says of itself
 * (decision 0207): its name and title, the description a model reads, the
 * records it takes and returns with their JSON Schemas, each a document of its
 * own (no $ref), its hints under MCP's names, and whether it can run as a
 * task. A module whose spec has tools exports them as `tools`.
 */
export interface ToolDefinition {
  readonly name: string;
  readonly title?: string;
  readonly description: string;
  /** The record the tool takes, as the spec names it. */
  readonly input: string;
  /** The record the tool returns, as the spec names it; absent for none. */
  readonly result?: string;
  readonly inputSchema: JSONObject;
  readonly outputSchema?: JSONObject;
  readonly annotations: ToolAnnotations;
  readonly taskSupport: "forbidden" | "optional" | "required";
}

/** ToolAnnotations are what a tool tells a client of its effects, each hint said. */
export interface ToolAnnotations {
  readonly readOnlyHint: boolean;
  readonly destructiveHint: boolean;
  readonly idempotentHint: boolean;
  readonly openWorldHint: boolean;
}
