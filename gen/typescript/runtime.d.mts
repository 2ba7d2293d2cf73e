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
export {};
