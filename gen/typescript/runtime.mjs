// The runtime of a TypeScript package jobgen writes: the JSON types, the
// errors every decoder and encoder throws (one DecodeError class for every
// vocabulary of the package, and of packages that import it), and the
// helpers the generated modules call. The names starting with _ are those
// helpers: exported for the generated modules, not for callers, and free to
// change with jobgen.
/** A DecodeError is a refusal by a decoder, at the JSON path of the refused value, such as $.items[2].name. */
export class DecodeError extends Error {
    /** Kind says why the value was refused. */
    kind;
    /** Path is the JSON path of the refused value: $ is the decoder's input. */
    path;
    constructor(kind, path, message) {
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
    kind;
    /** Field names the refused value, such as Order.total. */
    field;
    constructor(kind, field, message) {
        super("encode " + field + ": " + message);
        this.name = "EncodeError";
        this.kind = kind;
        this.field = field;
    }
}
const _ident = /^[A-Za-z_][A-Za-z0-9_]*$/;
// _at is the path of a member: key is a field or map key, or an array index.
export function _at(path, key) {
    if (key === "")
        return path;
    if (typeof key === "number")
        return path + "[" + key + "]";
    return _ident.test(key) ? path + "." + key : path + "[" + JSON.stringify(key) + "]";
}
function _kind(v) {
    if (v === null)
        return "null";
    if (Array.isArray(v))
        return "an array";
    return typeof v === "object" ? "an object" : "a " + typeof v;
}
export function _wrong(path, key, want, v) {
    return new DecodeError("wrongType", _at(path, key), "want " + want + ", got " + _kind(v));
}
export function _missing(path, type, field) {
    return new DecodeError("missingField", _at(path, field), type + ": missing required field " + JSON.stringify(field));
}
const _none = Object.freeze({});
// _maxDepth is how deeply Go's decoders let arrays and objects nest in a
// document (encoding/json's limit), counted from the document's top.
const _maxDepth = 10000;
// _nesting refuses a document that Go refuses for nesting deeper than
// _maxDepth anywhere, under a key no decoder reads too. A decoder calls it
// for the document it is given at $, so a document is walked once, not
// again for each record in it.
export function _nesting(doc) {
    _walk(doc, 1);
}
// _walk visits the arrays and objects inside v, at depth, by recursion while
// they are shallow (which is fast and nearly always enough) and with a stack
// of its own below that, so that no depth runs out of call stack.
function _walk(v, depth) {
    if (depth >= 256) {
        _walkDeep(v, depth);
        return;
    }
    if (Array.isArray(v)) {
        for (let i = 0; i < v.length; i++) {
            const e = v[i];
            if (typeof e === "object" && e !== null)
                _walk(e, depth + 1);
        }
        return;
    }
    const o = v;
    for (const k in o) {
        const e = o[k];
        if (typeof e === "object" && e !== null)
            _walk(e, depth + 1);
    }
}
function _walkDeep(top, at) {
    const values = [top];
    const depths = [at];
    for (let v = values.pop(); v !== undefined; v = values.pop()) {
        const depth = depths.pop() ?? 0;
        if (depth > _maxDepth) {
            throw new DecodeError("invalidValue", "$", "arrays and objects nest deeper than " + _maxDepth + ", which Go refuses");
        }
        const children = Array.isArray(v) ? v : Object.values(v);
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
export function _obj(v, path, type, walk = true) {
    if (typeof v === "object" && v !== null && !Array.isArray(v)) {
        if (walk && path === "$")
            _nesting(v);
        return v;
    }
    if (v === null)
        return _none;
    throw new DecodeError("wrongType", path, type + ": want an object, got " + _kind(v));
}
// _fold is Go's case folding for ASCII names (strings.EqualFold): it folds
// U+017F (long s) to S and U+212A (Kelvin sign) to K, and no other
// character to ASCII. Go refuses a key that folds to a field's name without
// being it.
export function _fold(k) {
    let out = "";
    for (let i = 0; i < k.length; i++) {
        let c = k.charCodeAt(i);
        if (c >= 97 && c <= 122)
            c -= 32;
        else if (c === 0x17f)
            c = 83;
        else if (c === 0x212a)
            c = 75;
        out += String.fromCharCode(c);
    }
    return out;
}
const _hasLone = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const _lone = new RegExp(_hasLone.source, "g");
// _wellFormed replaces each lone surrogate with U+FFFD, as Go reads the
// escape of one (\ud800 alone): JSON.parse keeps it, and a string Go could
// not hold would be written back otherwise than Go writes it.
function _wellFormed(s) {
    return _hasLone.test(s) ? s.replace(_lone, "\uFFFD") : s;
}
export function _str(v, path, key) {
    if (typeof v !== "string")
        throw _wrong(path, key, "a string", v);
    return _wellFormed(v);
}
export function _bool(v, path, key) {
    if (typeof v !== "boolean")
        throw _wrong(path, key, "a boolean", v);
    return v;
}
// _int reads a 64-bit integer. A number holds integers exactly only up to
// ±(2^53 − 1), so larger ones, which Go reads, are refused rather than
// rounded.
export function _int(v, path, key) {
    if (typeof v !== "number")
        throw _wrong(path, key, "an integer", v);
    if (!Number.isSafeInteger(v)) {
        if (!Number.isInteger(v))
            throw new DecodeError("wrongType", _at(path, key), "want an integer, got " + v);
        throw new DecodeError("invalidValue", _at(path, key), v + " is beyond ±(2^53 − 1), the integers a number holds exactly");
    }
    return v;
}
// _uint reads an unsigned integer; Go refuses -0 there too.
export function _uint(v, path, key) {
    const n = _int(v, path, key);
    if (n < 0 || Object.is(n, -0))
        throw new DecodeError("invalidValue", _at(path, key), "want an unsigned integer, got " + (Object.is(n, -0) ? "-0" : n));
    return n;
}
export function _range(v, path, key, min, max) {
    const n = min === 0 ? _uint(v, path, key) : _int(v, path, key);
    if (n < min || n > max)
        throw new DecodeError("invalidValue", _at(path, key), n + " is outside [" + min + ", " + max + "]");
    return n;
}
export function _float(v, path, key) {
    if (typeof v !== "number" || !Number.isFinite(v))
        throw _wrong(path, key, "a finite number", v);
    return v;
}
export function _float32(v, path, key) {
    const n = _float(v, path, key);
    if (!Number.isFinite(Math.fround(n)))
        throw new DecodeError("invalidValue", _at(path, key), n + " overflows a float32");
    return n;
}
export function _enum(v, path, key, is, type) {
    if (typeof v !== "string")
        throw _wrong(path, key, "a " + type + " string", v);
    if (!is(v))
        throw new DecodeError("invalidEnum", _at(path, key), JSON.stringify(v) + " is not a " + type);
    return v;
}
export const _zeroUUID = "00000000-0000-0000-0000-000000000000";
const _canonicalUUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
// _uuid reads a UUID as Go's codec.ParseUUID does: only the canonical form,
// 36 lower-case characters in 8-4-4-4-12, and not the nil UUID.
export function _uuid(v, path, key) {
    if (typeof v !== "string")
        throw _wrong(path, key, "a UUID string", v);
    if (!_canonicalUUID.test(v)) {
        throw new DecodeError("invalidID", _at(path, key), JSON.stringify(v) + " is not a UUID in canonical form (8-4-4-4-12 lower-case hex digits)");
    }
    if (v === _zeroUUID)
        throw new DecodeError("invalidID", _at(path, key), "the nil UUID");
    return v;
}
// _ambiguous refuses a key that differs from a field's name only in case,
// which Go's decoders refuse too (codec.ErrAmbiguousKey).
export function _ambiguous(path, type, key, field) {
    return new DecodeError("ambiguousKey", _at(path, key), type + ": key " + JSON.stringify(key) + " differs from field " + JSON.stringify(field) + " only in case");
}
const _base64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
// _bytes reads a []byte: standard base64 with padding, where Go ignores line breaks.
export function _bytes(v, path, key) {
    if (typeof v !== "string")
        throw _wrong(path, key, "a base64 string", v);
    if (!_base64.test(v.replace(/[\r\n]/g, "")))
        throw new DecodeError("invalidValue", _at(path, key), "not standard base64");
    return v;
}
export const _zeroTime = "0001-01-01T00:00:00Z";
const _rfc3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:Z|[+-](\d{2}):(\d{2}))$/;
// _time reads a time.Time: an RFC 3339 timestamp with a valid date and time.
export function _time(v, path, key) {
    if (typeof v !== "string")
        throw _wrong(path, key, "an RFC 3339 time string", v);
    const m = _rfc3339.exec(v);
    const n = (i) => Number(m?.[i] ?? 0);
    const y = n(1), mo = n(2), d = n(3);
    const leap = y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
    const days = mo === 2 ? (leap ? 29 : 28) : mo === 4 || mo === 6 || mo === 9 || mo === 11 ? 30 : 31;
    if (m === null || mo < 1 || mo > 12 || d < 1 || d > days || n(4) > 23 || n(5) > 59 || n(6) > 59 || n(7) > 23 || n(8) > 59) {
        throw new DecodeError("invalidValue", _at(path, key), JSON.stringify(v) + " is not an RFC 3339 time");
    }
    return v;
}
export function _arr(v, path, key, el) {
    if (!Array.isArray(v))
        throw _wrong(path, key, "an array", v);
    const p = _at(path, key);
    const out = new Array(v.length);
    for (let i = 0; i < v.length; i++)
        out[i] = el(v[i], p, i);
    return out;
}
export function _map(v, path, key, k, el) {
    if (typeof v !== "object" || v === null || Array.isArray(v))
        throw _wrong(path, key, "an object", v);
    const p = _at(path, key);
    const out = [];
    for (const raw of Object.keys(v)) {
        const name = _wellFormed(raw);
        out.push([k === undefined ? name : k(name, p), el(v[raw], p, name)]);
    }
    return Object.fromEntries(out);
}
export function _eint(v, field) {
    if (!Number.isSafeInteger(v))
        throw new EncodeError("invalidValue", field, v + " is not an integer within ±(2^53 − 1)");
    return v;
}
export function _erange(v, field, min, max) {
    if (!Number.isSafeInteger(v) || v < min || v > max || (min === 0 && Object.is(v, -0))) {
        throw new EncodeError("invalidValue", field, v + " is not an integer in [" + min + ", " + max + "]");
    }
    return v;
}
export function _efloat(v, field, bits) {
    if (!Number.isFinite(bits === 32 ? Math.fround(v) : v))
        throw new EncodeError("invalidValue", field, v + " is not a finite float" + bits);
    return v;
}
export function _eenum(v, is, field) {
    if (!is(v))
        throw new EncodeError("invalidEnum", field, JSON.stringify(v) + " is not a declared value");
    return v;
}
export function _euuid(v, field) {
    if (typeof v !== "string" || !_canonicalUUID.test(v) || v === _zeroUUID) {
        throw new EncodeError("invalidID", field, JSON.stringify(v) + " is not a UUID Go reads: canonical, lower-case and not nil");
    }
    return v;
}
export function _emap(v, k, el) {
    const out = [];
    for (const name of Object.keys(v))
        out.push([k === undefined ? name : k(name), el(v[name])]);
    return Object.fromEntries(out);
}
/**
 * _tolerate is the UnknownFact a tolerant reader keeps of json, whose strict
 * decoding threw e, when e says the build does not know it; undefined for
 * damage, which the reader throws on.
 */
export function _tolerate(json, e) {
    if (!(e instanceof DecodeError))
        return undefined;
    const why = { unknownFact: "type", unknownVersion: "version", unknownVariant: "variant", invalidEnum: "value" }[e.kind];
    if (why === undefined || typeof json !== "object" || json === null || Array.isArray(json))
        return undefined;
    const o = json;
    const type = typeof o["type"] === "string" ? o["type"] : "";
    const v = typeof o["v"] === "number" ? o["v"] : 0;
    return { unknown: true, type, v, why, path: e.path, raw: json };
}
// The wire: what a module's generated Client (a spec with an http section)
// is built on. Requests go over fetch and event streams are read over fetch
// too, so a client runs alike in browsers and in Node 20, which has no
// EventSource; the reader and the reconnect rules are here once, not per
// route.
/**
 * A WireError is a request the server refused: its HTTP status, the
 * message its refusal record says, for a 429 or 503 how many seconds
 * Retry-After asks the client to wait, and for a route the server declines
 * by name (the Jobgen-Not-Served header) that route's name.
 */
export class WireError extends Error {
    /** Status is the HTTP status: 404 for a thing that is not the caller's, 429 for too many streams, ... */
    status;
    /** Reason is what the server's refusal says, or the status text when it says nothing. */
    reason;
    /** RetryAfter is the seconds the server asks to wait before trying again; undefined when it does not say. */
    retryAfter;
    /** NotServed is the route the server declines by name; undefined for any other refusal. */
    notServed;
    constructor(status, reason, retryAfter, notServed) {
        super(`jobgen: ${status}: ${reason}`);
        this.name = "WireError";
        this.status = status;
        this.reason = reason;
        this.retryAfter = retryAfter;
        this.notServed = notServed;
    }
}
/**
 * _Wire is what a generated Client extends: the requests, the refusals and
 * the event streams of every route. Its members are public, not protected,
 * so that a Client declared in a module's .d.mts and one compiled from its
 * .ts are the same type; they are the runtime's, not a caller's.
 */
export class _Wire {
    base;
    headers;
    fetch;
    reconnectDelay;
    retries;
    refusal;
    /** Refusal reads a refusal's message from its record, as the spec's http section declares it. */
    constructor(options, refusal) {
        this.refusal = refusal;
        this.base = new URL(options.base);
        this.headers = { ...options.headers };
        this.fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
        this.reconnectDelay = options.reconnectDelay ?? 1000;
        this.retries = options.retries ?? Infinity;
    }
    /** _url is where path (written without its leading /) and query are, below the base. */
    _url(path, query) {
        const url = new URL(path, this.base);
        for (const [k, v] of Object.entries(query ?? {}))
            if (v !== undefined)
                url.searchParams.append(k, v);
        return url;
    }
    /** _json sends a request and answers its JSON, or throws its refusal. */
    async _json(method, path, query, body, signal) {
        const res = await this._send(method, path, query, body, signal);
        const text = await _ok(res, this.refusal);
        return JSON.parse(text);
    }
    /** _media sends a GET and answers its body as text with its headers, or throws its refusal. */
    async _media(path, query, signal) {
        const res = await this._send("GET", path, query, undefined, signal);
        return { text: await _ok(res, this.refusal), headers: res.headers };
    }
    _send(method, path, query, body, signal) {
        const init = { method, headers: { ...this.headers } };
        if (body !== undefined) {
            init.headers = { ...this.headers, "Content-Type": "application/json" };
            init.body = JSON.stringify(body);
        }
        if (signal !== undefined)
            init.signal = signal;
        return this.fetch(this._url(path, query), init);
    }
    /**
     * _events yields the events of the stream at path, reconnecting when its
     * connection drops (it ended, or failed, before an event ends said was the
     * last, and before a bye event), with the last event id as Last-Event-ID,
     * until the retry budget is spent. The server's bye ends it, so does the
     * signal; a refusal throws.
     */
    async *_events(path, query, options, ends) {
        const { signal } = options;
        const stream = { lastId: options.lastEventId ?? "", delay: this.reconnectDelay };
        let budget = this.retries;
        for (;;) {
            const headers = { ...this.headers, Accept: "text/event-stream" };
            if (stream.lastId !== "")
                headers["Last-Event-ID"] = stream.lastId;
            const init = { headers, cache: "no-store" };
            if (signal !== undefined)
                init.signal = signal;
            let cause;
            try {
                const res = await this.fetch(this._url(path, query), init);
                if (!res.ok || res.body === null)
                    await _ok(res, this.refusal); // throws the refusal
                const type = res.headers.get("Content-Type") ?? "";
                if (!type.startsWith("text/event-stream")) {
                    // As EventSource fails such a connection: no retry would change it.
                    await res.body?.cancel();
                    throw new WireError(res.status, `not an event stream but ${type === "" ? "no content type" : type}`, undefined);
                }
                options.onConnect?.();
                for await (const ev of _readEvents(res.body, stream, options)) {
                    if (ev.name === "bye")
                        return;
                    if (ev.fresh)
                        budget = this.retries;
                    yield ev;
                    if (ends(ev.name))
                        return;
                }
                cause = new Error("the stream ended");
            }
            catch (err) {
                if (signal?.aborted)
                    return;
                if (err instanceof WireError)
                    throw err;
                cause = err;
            }
            options.onDrop?.(cause);
            if (--budget < 0)
                throw cause;
            await _sleep(stream.delay, signal);
            if (signal?.aborted)
                return;
        }
    }
}
// _ok is a response's body text when it is a success; otherwise it throws
// the refusal as a WireError.
async function _ok(res, refusal) {
    const text = await res.text();
    if (res.ok)
        return text;
    let reason = res.statusText;
    try {
        reason = refusal(JSON.parse(text));
    }
    catch {
        // not a refusal record: the status text says what there is to say
    }
    const retry = res.headers.get("Retry-After");
    const notServed = res.headers.get("Jobgen-Not-Served") ?? undefined;
    throw new WireError(res.status, reason, retry === null || !/^\d{1,9}$/.test(retry) ? undefined : Number(retry), notServed);
}
/**
 * _readEvents yields the events of an event stream as the Server-Sent
 * Events standard parses them: lines ended by CR, LF or CRLF, fields data,
 * event, id and retry (the last two kept in stream), comments skipped, an
 * event dispatched at a blank line when it has data, fresh when its id moved
 * the stream on (or the stream has none). A retry is 1 to 9 ASCII digits, an
 * id printable ASCII, or they are ignored, as the Python client does
 * (spec/testdata/client-hostile.json).
 */
async function* _readEvents(body, stream, options) {
    const reader = body.getReader();
    const text = new TextDecoder();
    let buf = "";
    let name = "";
    let data = [];
    let fresh = false;
    let ids = false;
    try {
        for (;;) {
            const { value, done } = await reader.read();
            if (done)
                return;
            buf += text.decode(value, { stream: true });
            for (let end = buf.search(/[\r\n]/); end >= 0; end = buf.search(/[\r\n]/)) {
                if (buf[end] === "\r" && end === buf.length - 1)
                    break; // a CR that may begin a CRLF
                const line = buf.slice(0, end);
                buf = buf.slice(buf[end] === "\r" && buf[end + 1] === "\n" ? end + 2 : end + 1);
                if (line === "") {
                    if (data.length > 0)
                        yield { name: name === "" ? "message" : name, data: data.join("\n"), fresh: fresh || !ids };
                    name = "";
                    data = [];
                    fresh = false;
                    continue;
                }
                const colon = line.indexOf(":");
                if (colon === 0)
                    continue;
                const field = colon < 0 ? line : line.slice(0, colon);
                let value = colon < 0 ? "" : line.slice(colon + 1);
                if (value.startsWith(" "))
                    value = value.slice(1);
                switch (field) {
                    case "event":
                        name = value;
                        break;
                    case "data":
                        data.push(value);
                        break;
                    case "id":
                        // Sent back as Last-Event-ID: only an id a header carries as it came.
                        if (/^[\x20-\x7e]*$/.test(value)) {
                            ids = true;
                            if (value !== stream.lastId)
                                fresh = true;
                            stream.lastId = value;
                            options.onId?.(value);
                        }
                        break;
                    case "retry":
                        if (/^\d{1,9}$/.test(value))
                            stream.delay = Number(value);
                        break;
                }
            }
        }
    }
    finally {
        // Cancelling the reader cancels the response body, so a consumer that
        // stops early closes the connection.
        reader.cancel().catch(() => undefined);
    }
}
// _sleep waits ms milliseconds, or until the signal ends it.
function _sleep(ms, signal) {
    return new Promise((resolve) => {
        if (signal?.aborted)
            return resolve();
        const timer = setTimeout(done, ms);
        function done() {
            clearTimeout(timer);
            signal?.removeEventListener("abort", done);
            resolve();
        }
        signal?.addEventListener("abort", done);
    });
}
/** _with reads one object of an answer declared with `with`: once as the item, once as the extra record. */
export function _with(v, path, item, extra) {
    return { item: item(v, path), with: extra(v, path) };
}
// _text writes a path, query or header value: a string, an id or an enum
// as it is, a number in canonical decimal, a bool as true or false.
export function _text(v) {
    return String(v);
}
// _header reads a response header a route declares: absent is the zero
// value, an integer one in canonical decimal or a DecodeError.
export function _header(h, name, int) {
    const v = h.get(name) ?? "";
    if (!int)
        return v;
    if (v === "")
        return 0;
    if (!/^(0|-?[1-9][0-9]{0,15})$/.test(v) || !Number.isSafeInteger(Number(v)))
        throw new DecodeError("wrongType", name, "want an integer header, got " + JSON.stringify(v));
    return Number(v);
}
