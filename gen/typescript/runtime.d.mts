/** A JSONValue is a value JSON.parse returns and JSON.stringify writes. */
export type JSONValue = null | boolean | number | string | JSONValue[] | {
    [key: string]: JSONValue;
};
/** A JSONObject is a JSON object, as the encoders return it. */
export type JSONObject = {
    [key: string]: JSONValue;
};
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
export type DecodeErrorKind = "missingField" | "wrongType" | "invalidEnum" | "invalidValue" | "invalidID" | "ambiguousKey" | "unknownVariant" | "unknownFact" | "unknownVersion";
/** A DecodeError is a refusal by a decoder, at the JSON path of the refused value, such as $.items[2].name. */
export declare class DecodeError extends Error {
    /** Kind says why the value was refused. */
    readonly kind: DecodeErrorKind;
    /** Path is the JSON path of the refused value: $ is the decoder's input. */
    readonly path: string;
    constructor(kind: DecodeErrorKind, path: string, message: string);
}
/**
 * An EncodeError is a value an encoder refuses to write because Go would not
 * read it back: an integer that is not a safe integer, a value outside an
 * enum, a malformed UUID, an unknown variant or fact.
 */
export declare class EncodeError extends Error {
    /** Kind says why the value was refused. */
    readonly kind: DecodeErrorKind;
    /** Field names the refused value, such as Order.total. */
    readonly field: string;
    constructor(kind: DecodeErrorKind, field: string, message: string);
}
type _Key = string | number;
type _Obj = {
    readonly [key: string]: unknown;
};
export declare function _at(path: string, key: _Key): string;
export declare function _wrong(path: string, key: _Key, want: string, v: unknown): DecodeError;
export declare function _missing(path: string, type: string, field: string): DecodeError;
export declare function _nesting(doc: object): void;
export declare function _obj(v: unknown, path: string, type: string, walk?: boolean): _Obj;
export declare function _fold(k: string): string;
export declare function _str(v: unknown, path: string, key: _Key): string;
export declare function _bool(v: unknown, path: string, key: _Key): boolean;
export declare function _int(v: unknown, path: string, key: _Key): number;
export declare function _uint(v: unknown, path: string, key: _Key): number;
export declare function _range(v: unknown, path: string, key: _Key, min: number, max: number): number;
export declare function _float(v: unknown, path: string, key: _Key): number;
export declare function _float32(v: unknown, path: string, key: _Key): number;
export declare function _enum<T extends string>(v: unknown, path: string, key: _Key, is: (x: unknown) => x is T, type: string): T;
export declare const _zeroUUID = "00000000-0000-0000-0000-000000000000";
export declare function _uuid(v: unknown, path: string, key: _Key): string;
export declare function _ambiguous(path: string, type: string, key: string, field: string): DecodeError;
export declare function _bytes(v: unknown, path: string, key: _Key): string;
export declare const _zeroTime = "0001-01-01T00:00:00Z";
export declare function _time(v: unknown, path: string, key: _Key): string;
export declare function _arr<T>(v: unknown, path: string, key: _Key, el: (e: unknown, path: string, i: number) => T): T[];
export declare function _map<T>(v: unknown, path: string, key: _Key, k: ((name: string, path: string) => string) | undefined, el: (e: unknown, path: string, name: string) => T): {
    [key: string]: T;
};
export declare function _eint(v: number, field: string): number;
export declare function _erange(v: number, field: string, min: number, max: number): number;
export declare function _efloat(v: number, field: string, bits: 32 | 64): number;
export declare function _eenum<T extends string>(v: T, is: (x: unknown) => x is T, field: string): T;
export declare function _euuid(v: string, field: string): string;
export declare function _emap<T>(v: {
    [key: string]: T;
}, k: ((name: string) => string) | undefined, el: (e: T) => JSONValue): JSONObject;
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
export declare function _tolerate(json: unknown, e: unknown): UnknownFact | undefined;
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
/**
 * A WireError is a request the server refused: its HTTP status, the
 * message its refusal record says, for a 429 or 503 how many seconds
 * Retry-After asks the client to wait, and for a route the server declines
 * by name (the Jobgen-Not-Served header) that route's name.
 */
export declare class WireError extends Error {
    /** Status is the HTTP status: 404 for a thing that is not the caller's, 429 for too many streams, ... */
    readonly status: number;
    /** Reason is what the server's refusal says, or the status text when it says nothing. */
    readonly reason: string;
    /** RetryAfter is the seconds the server asks to wait before trying again; undefined when it does not say. */
    readonly retryAfter: number | undefined;
    /** NotServed is the route the server declines by name; undefined for any other refusal. */
    readonly notServed: string | undefined;
    constructor(status: number, reason: string, retryAfter: number | undefined, notServed?: string);
}
/** ClientOptions configure a generated Client. */
export interface ClientOptions {
    /**
     * Base is the server's root, which the routes' paths are below: the
     * page's own URL, or where the runtime mounts the server, such as
     * http://host/api-root/.
     */
    base: string | URL;
    /** Headers are sent with every request: how the runtime tells who the caller is, when cookies do not. */
    headers?: Record<string, string>;
    /** Fetch is the fetch to use; the global one by default. */
    fetch?: typeof fetch;
    /**
     * ReconnectDelay is how long a stream waits, in milliseconds, before it
     * reconnects after its connection dropped, until the server says otherwise
     * (an SSE retry field). It is 1000 by default.
     */
    reconnectDelay?: number;
    /**
     * Retries is the retry budget of a stream: how many times in a row it
     * reconnects without getting anywhere (no event with a new id, or any
     * event for a stream without ids) before it throws what dropped it.
     * Unlimited by default, as EventSource retries.
     */
    retries?: number;
}
/** StreamOptions are what one stream of events is told. */
export interface StreamOptions {
    /** Signal ends the stream: its iteration returns, without an error. */
    signal?: AbortSignal;
    /** LastEventId resumes the stream as a reconnect would: sent as Last-Event-ID on the first request. */
    lastEventId?: string;
    /** OnConnect is called each time the stream (re)connects. */
    onConnect?: () => void;
    /** OnDrop is called when the connection drops or cannot be made, before the stream reconnects. */
    onDrop?: (cause: unknown) => void;
    /** OnId is called with each event id the stream keeps: where a reconnect resumes. */
    onId?: (id: string) => void;
}
/**
 * A With is one object of an answer declared with `with`: the item, and
 * the extra record a server may add to the same JSON object (a fleet's
 * placement of an item), read from the object once each.
 */
export interface With<T, W> {
    item: T;
    with: W;
}
/** A ServerEvent is one event of a stream, as Server-Sent Events frame it. */
export interface ServerEvent {
    name: string;
    data: string;
}
type _Query = Record<string, string | undefined>;
/**
 * _Wire is what a generated Client extends: the requests, the refusals and
 * the event streams of every route. Its members are public, not protected,
 * so that a Client declared in a module's .d.mts and one compiled from its
 * .ts are the same type; they are the runtime's, not a caller's.
 */
export declare class _Wire {
    readonly base: URL;
    readonly headers: Record<string, string>;
    readonly fetch: typeof fetch;
    readonly reconnectDelay: number;
    readonly retries: number;
    readonly refusal: (json: unknown) => string;
    /** Refusal reads a refusal's message from its record, as the spec's http section declares it. */
    constructor(options: ClientOptions, refusal: (json: unknown) => string);
    /** _url is where path (written without its leading /) and query are, below the base. */
    _url(path: string, query?: _Query): URL;
    /** _json sends a request and answers its JSON, or throws its refusal. */
    _json(method: string, path: string, query: _Query | undefined, body: JSONValue | undefined, signal: AbortSignal | undefined): Promise<unknown>;
    /** _media sends a GET and answers its body as text with its headers, or throws its refusal. */
    _media(path: string, query: _Query | undefined, signal: AbortSignal | undefined): Promise<{
        text: string;
        headers: Headers;
    }>;
    _send(method: string, path: string, query: _Query | undefined, body: JSONValue | undefined, signal: AbortSignal | undefined): Promise<Response>;
    /**
     * _events yields the events of the stream at path, reconnecting when its
     * connection drops (it ended, or failed, before an event ends said was the
     * last, and before a bye event), with the last event id as Last-Event-ID,
     * until the retry budget is spent. The server's bye ends it, so does the
     * signal; a refusal throws.
     */
    _events(path: string, query: _Query | undefined, options: StreamOptions, ends: (name: string) => boolean): AsyncGenerator<ServerEvent, void, undefined>;
}
/** _with reads one object of an answer declared with `with`: once as the item, once as the extra record. */
export declare function _with<T, W>(v: unknown, path: string, item: (v: unknown, path: string) => T, extra: (v: unknown, path: string) => W): With<T, W>;
export declare function _text(v: string | number | boolean): string;
export declare function _header(h: Headers, name: string, int: boolean): string | number;
export {};
