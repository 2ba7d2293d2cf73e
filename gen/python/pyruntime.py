"""The runtime every module of this package imports.

The modules jobgen generates declare pydantic models; this module makes them
read and write JSON exactly as the Go packages generated from the same specs
do (see jobgen's spec/README.md, "Python"). Decoding a document is three
steps, each Go's:

- ``parse`` reads the text as encoding/json does: a key given twice, nesting
  deeper than 10,000, NaN and Infinity are refused; invalid UTF-8 and lone
  surrogate escapes read as U+FFFD; ``-0`` stays apart from ``0``.
- Each model's ``_from_wire`` validator, wrapped around pydantic's own, reads an
  object's keys as the generated Go decoders do: a key that is a field's JSON
  name exactly is the field, one that differs from it only in case is refused
  (Go's encoding/json would read it as the field), any other is ignored;
  null is a missing field where one is required and leaves the default
  elsewhere; a variant's tag is checked.
- Pydantic then validates the values in strict mode: no coercion, integers
  within their Go type's range, canonical UUIDs.

A document as Go writes it takes a shorter way, at about twice the cost of
json.loads alone: pydantic-core reads it from the bytes into the same models
(see "Decoding through pydantic-core's JSON parser" below); any other
document, and every one it would refuse, takes the three steps.

Every refusal is a DecodeError whose kind matches Go's sentinel error, and
encoding leaves out what Go's ``omitzero`` leaves out.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import operator
import re
import struct
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from dataclasses import field as _field
from types import UnionType
from typing import (
    Annotated,
    Any,
    Final,
    Generic,
    Literal,
    Self,
    TypeAlias,
    TypeVar,
    Union,
    get_args,
    get_origin,
)

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    GetCoreSchemaHandler,
    JsonValue,
    ModelWrapValidatorHandler,
    PlainSerializer,
    SerializerFunctionWrapHandler,
    TypeAdapter,
    ValidationError,
    ValidationInfo,
    model_serializer,
    model_validator,
)
from pydantic_core import (
    PydanticCustomError,
    PydanticSerializationError,
    SchemaValidator,
    core_schema,
)

DecodeErrorKind: TypeAlias = Literal[
    "missingField",
    "wrongType",
    "invalidEnum",
    "invalidValue",
    "invalidID",
    "ambiguousKey",
    "unknownVariant",
    "unknownFact",
    "unknownVersion",
    "invalidJSON",
]
"""A DecodeErrorKind says why a decoder refused its input.

missingField, invalidEnum, invalidID, ambiguousKey, unknownVariant, unknownFact
and unknownVersion are the refusals Go reports with ErrMissingField,
ErrInvalidEnum, ErrInvalidID, ErrAmbiguousKey, ErrUnknownVariant, ErrUnknownFact
and ErrUnknownVersion; wrongType is a JSON value of the wrong type, invalidValue
one of the right type that Go refuses too (an integer out of range, another
variant's tag), and invalidJSON text that is no JSON document.
"""


class DecodeError(ValueError):
    """A DecodeError is a refusal by a decoder, at the JSON path of the value."""

    kind: DecodeErrorKind
    """Kind says why the value was refused."""
    path: str
    """Path is the JSON path of the refused value: $ is the document."""

    def __init__(self, kind: DecodeErrorKind, path: str, message: str) -> None:
        super().__init__(f"{path}: {message}")
        self.kind = kind
        self.path = path


class EncodeError(ValueError):
    """An EncodeError is a value an encoder refuses: Go would not read it back."""

    kind: DecodeErrorKind
    """Kind says why the value was refused."""

    def __init__(self, kind: DecodeErrorKind, message: str) -> None:
        super().__init__(message)
        self.kind = kind


MAX_DEPTH: Final = 10_000
"""MAX_DEPTH is how deeply Go lets arrays and objects nest in a document."""

# ---- Reading JSON text as encoding/json does. ----


class _Duplicates(dict[str, Any]):
    """An object that gave a key twice: Go's decoders refuse it as a record."""

    __slots__ = ()


class _NegativeZero(int):
    """The integer -0, which Go refuses where it wants an unsigned integer."""

    __slots__ = ()


_NEGATIVE_ZERO: Final = _NegativeZero(0)
_MAX_DIGITS: Final = 4000  # below Python's int_max_str_digits, 4300

# What may need the slow path: a surrogate escape or a raw surrogate (a lone
# one, or an invalid byte read with surrogateescape), and a bare -0.
_SURROGATES: Final = re.compile(r"\\u[dD][89a-fA-F]|[\ud800-\udfff]")
_NEGATIVE_ZERO_TEXT: Final = re.compile(r"-0(?![0-9.eE])")


def _has_negative_zero(text: str) -> bool:
    """Whether text may hold the number -0 (a string may hold it too)."""
    for m in _NEGATIVE_ZERO_TEXT.finditer(text):
        j = m.start() - 1
        while j >= 0 and text[j] in " \t\n\r":
            j -= 1
        if j < 0 or text[j] in "[:,":
            return True
    return False


_LONE: Final = re.compile(r"[\ud800-\udfff]")


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    d = dict(pairs)
    return d if len(d) == len(pairs) else _Duplicates(d)


def _constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _int(text: str) -> int:
    if text == "-0":
        return _NEGATIVE_ZERO
    if len(text) > _MAX_DIGITS:
        # Go reads it under a key no decoder reads, and refuses it as an
        # integer of any width; a float it overflows is refused too.
        return math.inf if text[0] != "-" else -math.inf  # type: ignore[return-value]
    return int(text)


def parse(data: str | bytes | bytearray | memoryview) -> Any:
    """Parse reads one JSON document as Go's encoding/json does.

    It returns what json.loads returns, with every string well-formed (a lone
    surrogate, escaped or given as an invalid UTF-8 byte, is U+FFFD), and
    refuses what Go refuses: a document nested deeper than MAX_DEPTH, NaN and
    Infinity, trailing data. An object that gives a key twice is marked, so
    that the decoder of a record refuses it.
    """
    fix = False
    if isinstance(data, str):
        text = data
    else:
        raw = bytes(data)
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            text = raw.decode("utf-8", "surrogateescape")
            fix = True
    if not text.isascii() or "\\u" in text:
        fix = fix or _SURROGATES.search(text) is not None
    parse_int = _int if _has_negative_zero(text) else None
    try:
        tree = json.loads(
            text,
            object_pairs_hook=_pairs,
            parse_constant=_constant,
            parse_int=parse_int,
        )
    except RecursionError:
        tree = _parse_deep(text)
    except json.JSONDecodeError as e:
        raise DecodeError("invalidJSON", "$", e.msg + f" at offset {e.pos}") from None
    except ValueError as e:
        if "integer string conversion" not in str(e):
            raise DecodeError("invalidJSON", "$", str(e)) from None
        tree = json.loads(
            text, object_pairs_hook=_pairs, parse_constant=_constant, parse_int=_int
        )
    return _well_formed(tree) if fix else tree


_WHITESPACE: Final = re.compile(r"[ \t\n\r]*")
# Digits are ASCII: Python's \d is any script's digit, which JSON's are not.
_NUMBER: Final = re.compile(r"(-?(?:0|[1-9][0-9]*))(\.[0-9]+)?([eE][-+]?[0-9]+)?")


def _parse_deep(text: str) -> Any:
    """Read a document too deep for json.loads, without recursion."""
    stack: list[tuple[list[Any], str, bool]] = []
    i = _space(text, 0)
    value: Any = None
    while True:
        if i >= len(text):
            raise DecodeError("invalidJSON", "$", "unexpected end of JSON input")
        c = text[i]
        if c == "[" or c == "{":
            if len(stack) >= MAX_DEPTH:
                raise DecodeError(
                    "invalidValue",
                    "$",
                    f"arrays and objects nest deeper than {MAX_DEPTH}, which Go refuses",
                )
            i = _space(text, i + 1)
            if c == "[":
                if text.startswith("]", i):
                    value, i = [], i + 1
                else:
                    stack.append(([], "", True))
                    continue
            else:
                if text.startswith("}", i):
                    value, i = {}, i + 1
                else:
                    key, i = _deep_key(text, i)
                    stack.append(([], key, False))
                    continue
        elif c == '"':
            value, i = json.decoder.scanstring(text, i + 1)  # type: ignore[attr-defined]
        elif (m := _NUMBER.match(text, i)) is not None:
            whole, frac, exp = m.groups()
            value = float(m.group()) if frac or exp else _int(whole)
            i = m.end()
        else:
            for word, literal in (("true", True), ("false", False), ("null", None)):
                if text.startswith(word, i):
                    value, i = literal, i + len(word)
                    break
            else:
                raise DecodeError(
                    "invalidJSON", "$", f"invalid character {c!r} at offset {i}"
                )
        # A value is complete: hand it to its container, closing those it ends.
        while True:
            i = _space(text, i)
            if not stack:
                if i != len(text):
                    raise DecodeError("invalidJSON", "$", f"extra data at offset {i}")
                return value
            items, key, is_array = stack[-1]
            if is_array:
                items.append(value)
            else:
                items.append((key, value))
            closer = "]" if is_array else "}"
            if text.startswith(",", i):
                i = _space(text, i + 1)
                if not is_array:
                    key, i = _deep_key(text, i)
                    stack[-1] = (items, key, False)
                break
            if not text.startswith(closer, i):
                raise DecodeError(
                    "invalidJSON", "$", f"want , or {closer} at offset {i}"
                )
            stack.pop()
            value = items if is_array else _pairs(items)
            i += 1


def _deep_key(text: str, i: int) -> tuple[str, int]:
    if not text.startswith('"', i):
        raise DecodeError("invalidJSON", "$", f"want an object key at offset {i}")
    key, i = json.decoder.scanstring(text, i + 1)  # type: ignore[attr-defined]
    i = _space(text, i)
    if not text.startswith(":", i):
        raise DecodeError("invalidJSON", "$", f"want : at offset {i}")
    return key, _space(text, i + 1)


def _space(text: str, i: int) -> int:
    m = _WHITESPACE.match(text, i)
    return m.end() if m is not None else i


def _well_formed_str(s: str) -> str:
    return _LONE.sub("\ufffd", s)


def _well_formed(tree: Any) -> Any:
    """Replace every lone surrogate in tree's strings and keys with U+FFFD."""
    if isinstance(tree, str):
        return _well_formed_str(tree)
    if not isinstance(tree, (list, dict)):
        return tree
    top: list[Any] = [tree]
    work: list[list[Any] | dict[str, Any]] = [tree]
    while work:
        node = work.pop()
        if isinstance(node, list):
            for i, v in enumerate(node):
                if isinstance(v, str):
                    node[i] = _well_formed_str(v)
                elif isinstance(v, (list, dict)):
                    work.append(v)
            continue
        pairs = [(_well_formed_str(k), v) for k, v in node.items()]
        dup = type(node) is _Duplicates or len({k for k, _ in pairs}) != len(pairs)
        node.clear()
        for k, v in pairs:
            if isinstance(v, str):
                v = _well_formed_str(v)
            elif isinstance(v, (list, dict)):
                work.append(v)
            node[k] = v
        if dup and type(node) is not _Duplicates:
            _mark_duplicates(top, node)
    return top[0]


def _mark_duplicates(top: list[Any], node: dict[str, Any]) -> None:
    """Replace node, wherever it is in top's tree, by a _Duplicates copy."""
    marked = _Duplicates(node)
    work: list[Any] = [top]
    while work:
        c = work.pop()
        items: Iterator[tuple[Any, Any]] = (
            enumerate(c) if isinstance(c, list) else iter(list(c.items()))
        )
        for k, v in items:
            if v is node:
                c[k] = marked
                return
            if isinstance(v, (list, dict)):
                work.append(v)


# ---- Scalars as Go holds them. ----


def _refuse_negative_zero(v: Any) -> Any:
    if type(v) is _NegativeZero:
        raise PydanticCustomError("invalidValue", "want an unsigned integer, got -0")
    return v


def _float32(v: float) -> float:
    try:
        struct.pack("<f", v)
    except OverflowError:
        raise PydanticCustomError(
            "invalidValue", "{v} overflows a float32", {"v": v}
        ) from None
    return v


Int8 = Annotated[int, Field(ge=-(1 << 7), le=(1 << 7) - 1)]
"""An Int8 is an integer Go holds in an int8."""
Int16 = Annotated[int, Field(ge=-(1 << 15), le=(1 << 15) - 1)]
"""An Int16 is an integer Go holds in an int16."""
Int32 = Annotated[int, Field(ge=-(1 << 31), le=(1 << 31) - 1)]
"""An Int32 is an integer Go holds in an int32."""
Int64 = Annotated[int, Field(ge=-(1 << 63), le=(1 << 63) - 1)]
"""An Int64 is an integer Go holds in an int64 (or an int, on 64-bit platforms)."""
Uint8 = Annotated[
    int, BeforeValidator(_refuse_negative_zero), Field(ge=0, le=(1 << 8) - 1)
]
"""A Uint8 is an integer Go holds in a uint8."""
Uint16 = Annotated[
    int, BeforeValidator(_refuse_negative_zero), Field(ge=0, le=(1 << 16) - 1)
]
"""A Uint16 is an integer Go holds in a uint16."""
Uint32 = Annotated[
    int, BeforeValidator(_refuse_negative_zero), Field(ge=0, le=(1 << 32) - 1)
]
"""A Uint32 is an integer Go holds in a uint32."""
Uint64 = Annotated[
    int, BeforeValidator(_refuse_negative_zero), Field(ge=0, le=(1 << 64) - 1)
]
"""A Uint64 is an integer Go holds in a uint64 (or a uint, on 64-bit platforms)."""
Float32 = Annotated[float, AfterValidator(_float32)]
"""A Float32 is a finite number Go holds in a float32."""
Float64 = float
"""A Float64 is a finite number Go holds in a float64."""

_RFC3339: Final = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:Z|[+-](\d{2}):(\d{2}))\Z",
    re.ASCII,  # Go reads the digits 0-9 alone; \d is any script's
)


def _time(v: str) -> str:
    m = _RFC3339.match(v)
    if m is not None:
        y, mo, d, h, mi, s = (int(g) for g in m.groups()[:6])
        zh, zm = (int(g or 0) for g in m.groups()[6:])
        leap = y % 4 == 0 and (y % 100 != 0 or y % 400 == 0)
        days = (
            29
            if mo == 2 and leap
            else 28
            if mo == 2
            else 30
            if mo in (4, 6, 9, 11)
            else 31
        )
        if (
            1 <= mo <= 12
            and 1 <= d <= days
            and h <= 23
            and mi <= 59
            and s <= 59
            and zh <= 23
            and zm <= 59
        ):
            return v
    raise PydanticCustomError(
        "invalidValue", "{v} is not an RFC 3339 time", {"v": repr(v)}
    )


Timestamp = Annotated[str, AfterValidator(_time)]
"""A Timestamp is a time as Go writes a time.Time: RFC 3339, as written."""

_BASE64: Final = re.compile(
    r"(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?\Z"
)


def _from_base64(v: Any) -> Any:
    if not isinstance(v, str):
        return v
    text = v.replace("\r", "").replace("\n", "")
    if not _BASE64.match(text):
        raise PydanticCustomError("invalidValue", "not standard base64")
    try:
        return base64.b64decode(text, validate=True)
    except binascii.Error:
        raise PydanticCustomError("invalidValue", "not standard base64") from None


Bytes = Annotated[
    bytes,
    BeforeValidator(_from_base64),
    PlainSerializer(lambda b: base64.b64encode(b).decode("ascii"), return_type=str),
]
"""Bytes are bytes as Go writes a []byte: standard base64 with padding."""

_NIL_UUID: Final = "00000000-0000-0000-0000-000000000000"
_CANONICAL_UUID: Final = re.compile(
    r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\Z"
)


def _uuid_problem(v: str) -> str | None:
    if not _CANONICAL_UUID.match(v):
        return "is not a UUID in canonical form (8-4-4-4-12 lower-case hex digits)"
    if v == _NIL_UUID:
        return "is the nil UUID"
    return None


class UUIDIdentifier(str):
    """A UUIDIdentifier is a UUID in canonical form: what every UUID id is.

    Go reads and writes only the canonical form, 36 lower-case characters in
    8-4-4-4-12, and never the nil UUID; constructing one checks that.
    """

    __slots__ = ()

    def __new__(cls, value: str) -> Self:
        if (problem := _uuid_problem(value)) is not None:
            raise ValueError(f"{value!r} {problem}")
        return super().__new__(cls, value)

    @classmethod
    def __get_pydantic_core_schema__(
        cls, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        def check(v: str) -> UUIDIdentifier:
            if (problem := _uuid_problem(v)) is not None:
                raise PydanticCustomError("invalidID", "{v} " + problem, {"v": repr(v)})
            return str.__new__(cls, v)

        return core_schema.no_info_after_validator_function(
            check,
            core_schema.str_schema(strict=True),
            serialization=core_schema.to_string_ser_schema(),
        )


class StringIdentifier(str):
    """A StringIdentifier is an id that may be any string."""

    __slots__ = ()

    @classmethod
    def __get_pydantic_core_schema__(
        cls, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        return core_schema.no_info_after_validator_function(
            lambda v: str.__new__(cls, v),
            core_schema.str_schema(strict=True),
            serialization=core_schema.to_string_ser_schema(),
        )


# ---- The models. ----

_WIRE: Final[dict[str, str]] = {"jobgen": "wire"}
_FOLD: Final = {c: c - 32 for c in range(ord("a"), ord("z") + 1)} | {
    0x17F: ord("S"),
    0x212A: ord("K"),
}
_NO_ZERO: Final = object()


def fold(key: str) -> str:
    """Fold is Go's case folding for ASCII names (strings.EqualFold).

    It folds U+017F (long s) to S and U+212A (Kelvin sign) to K, and no other
    character to ASCII: Go refuses a key that folds to a field's name without
    being it.
    """
    return key.translate(_FOLD)


class _NullIsEmpty:
    """The mark of an optional record field that Go holds by value."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "NULL_IS_EMPTY"


NULL_IS_EMPTY: Final = _NullIsEmpty()
"""NULL_IS_EMPTY marks an optional field of a record type that Go holds by
value (Annotated metadata): Go's decoder reads null there as an object
without fields, refused when the record has required fields, where a
pointer or an enum reads null as the field left out."""


class _Field:
    __slots__ = ("name", "json", "tag", "fix", "omit", "none_only", "null_is_empty")

    def __init__(
        self,
        name: str,
        json: str,
        tag: Any,
        fix: Callable[[Any], Any] | None,
        omit: bool,
    ) -> None:
        self.name, self.json, self.tag, self.fix, self.omit = name, json, tag, fix, omit
        # A field that may hold None is a Go pointer, list, map or raw value
        # that Go leaves out only when it is nil: an empty list is written.
        self.none_only = False
        self.null_is_empty = False


class _Wire:
    """What a model's JSON looks like, read once from its pydantic fields."""

    __slots__ = ("fields", "folded", "tags", "omitted", "type_name")

    def __init__(self, model: type[Model]) -> None:
        self.fields: dict[str, _Field] = {}
        self.folded: dict[str, str] = {}
        self.tags: list[_Field] = []
        self.omitted: list[_Field] = []
        self.type_name = model.__name__
        for name, info in model.model_fields.items():
            json_name = info.serialization_alias or name
            tp = info.annotation
            default = info.get_default(call_default_factory=True)
            tag = default if _is_tag(tp, default) else _NO_ZERO
            bare = get_origin(tp) in (list, dict)
            f = _Field(
                name,
                json_name,
                tag,
                _null_fixer(tp),
                not info.is_required() and not bare and tag is _NO_ZERO,
            )
            f.null_is_empty = any(m is NULL_IS_EMPTY for m in info.metadata)
            f.none_only = tp is _JSON_VALUE or (
                get_origin(tp) in (Union, UnionType) and type(None) in get_args(tp)
            )
            self.fields[json_name] = f
            self.folded.setdefault(fold(json_name), json_name)
            if tag is not _NO_ZERO:
                self.tags.append(f)
            if f.omit:
                self.omitted.append(f)


_JSON_VALUE: Final[object] = JsonValue
_wire_cache: dict[type[Model], _Wire] = {}


def _wire(model: type[Model]) -> _Wire:
    w = _wire_cache.get(model)
    if w is None:
        w = _wire_cache[model] = _Wire(model)
    return w


def _is_tag(tp: Any, default: Any) -> bool:
    """Whether a field is a variant's tag: a one-value Literal defaulting to it."""
    if get_origin(tp) is not Literal or default is None:
        return False
    args = get_args(tp)
    return (
        len(args) == 1
        and args[0] is default
        or (len(args) == 1 and type(args[0]) is type(default) and args[0] == default)
    )


def _strip(tp: Any) -> Any:
    while get_origin(tp) is Annotated:
        tp = get_args(tp)[0]
    return tp


def _zero_of(tp: Any) -> Any:
    """The value Go leaves where JSON holds null in a list or map."""
    tp = _strip(tp)
    if tp in (str, bool, int, float, bytes):
        return tp()
    if isinstance(tp, type) and issubclass(tp, StringIdentifier):
        return tp("")
    origin = get_origin(tp)
    if origin is list:
        return []
    if origin is dict:
        return {}
    return _NO_ZERO


def _null_fixer(tp: Any) -> Callable[[Any], Any] | None:
    """A function giving null elements of a list or map Go's zero value.

    Go decodes null into a list element or map value in place, leaving the
    zero value; a record there reads null as an object without fields, which
    its own validator does. None when nothing in tp needs it.
    """
    tp = _strip(tp)
    origin = get_origin(tp)
    if origin is Union or origin is UnionType:
        fixers = [f for a in get_args(tp) if (f := _null_fixer(a)) is not None]
        return fixers[0] if len(fixers) == 1 else None
    if origin not in (list, dict):
        return None
    el = get_args(tp)[-1]
    zero, inner = _zero_of(el), _null_fixer(el)
    if zero is _NO_ZERO and inner is None:
        return None

    def element(e: Any) -> Any:
        if e is None:
            return (
                e
                if zero is _NO_ZERO
                else (zero.copy() if isinstance(zero, (list, dict)) else zero)
            )
        return inner(e) if inner is not None else e

    if origin is list:
        return lambda v: [element(e) for e in v] if isinstance(v, list) else v
    return lambda v: {k: element(e) for k, e in v.items()} if isinstance(v, dict) else v


class Model(BaseModel):
    """A Model is a record, union variant, fact or envelope of a vocabulary.

    Fields are named as Python names them; JSON names them as the spec does
    (serialization_alias). Model.decode reads JSON as the Go package does,
    and model_dump_json (and encode) writes what Go writes: an optional field
    is left out when it holds its zero value, as Go's omitzero leaves it out.
    """

    model_config = ConfigDict(
        strict=True,
        extra="forbid",
        allow_inf_nan=False,
        validate_assignment=True,
        serialize_by_alias=True,
        use_attribute_docstrings=True,
        protected_namespaces=(),
    )

    @model_validator(mode="wrap")
    @classmethod
    def _from_wire(
        cls, data: Any, handler: ModelWrapValidatorHandler[Self], info: ValidationInfo
    ) -> Self:
        if info.context is not _WIRE:
            return handler(data)
        if data is None:
            data = {}  # Go reads null as an object without fields
        if not isinstance(data, dict):
            return handler(data)  # pydantic refuses it: wrongType
        w = _wire(cls)
        out: dict[str, Any] = {}
        # Go decodes every value first (matching keys in any case), then
        # refuses a repeated or ambiguous key, then checks the tag, then
        # looks for missing fields: the first refusal is the one reported.
        keys: PydanticCustomError | None = None
        if type(data) is _Duplicates:
            keys = PydanticCustomError(
                "ambiguousKey", "{type}: a key appears twice", {"type": w.type_name}
            )
        tag: PydanticCustomError | None = None
        tags = 0
        for key, value in data.items():
            f = w.fields.get(key)
            if f is None:
                name = w.folded.get(fold(key))
                if name is not None and keys is None:
                    keys = PydanticCustomError(
                        "ambiguousKey",
                        "{type}: key {key} differs from field {field} only in case",
                        {"type": w.type_name, "key": repr(key), "field": repr(name)},
                    )
                continue
            if f.tag is not _NO_ZERO:
                tags += 1
                if value is not None and type(value) is not type(f.tag):
                    raise PydanticCustomError(
                        "wrongType",
                        "{type}: {field} is not a {want}",
                        {
                            "type": w.type_name,
                            "field": f.json,
                            "want": type(f.tag).__name__,
                        },
                    )
                tag = tag or _tag_problem(w, f, value)
            elif value is not None:
                out[f.name] = value if f.fix is None else f.fix(value)
            elif f.null_is_empty:
                out[f.name] = {}  # Go reads null into the record as {}
        if tags != len(w.tags):
            for f in w.tags:
                if f.json not in data:
                    tag = tag or _tag_problem(w, f, None)
        if keys is not None:
            _refuse_values(cls, data)
            raise keys
        try:
            result = handler(out)
        except ValidationError as e:
            if tag is not None and all(
                err["type"] == "missing" and len(err["loc"]) == 1 for err in e.errors()
            ):
                raise tag from None
            raise
        if tag is not None:
            raise tag
        return result

    @model_serializer(mode="wrap")
    def _to_wire(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        out: dict[str, Any] = handler(self)
        for f in _wire(type(self)).omitted:
            v = getattr(self, f.name)
            # A record held by value (null_is_empty) is left out when zero, as
            # Go's omitzero leaves out the struct; one behind a pointer is not.
            if v is None or ((not f.none_only or f.null_is_empty) and _is_zero(v)):
                out.pop(f.json, None)
        return out

    @classmethod
    def decode(cls, data: str | bytes) -> Self:
        """Decode reads JSON as the Go package's decoder of this type does.

        It raises DecodeError for what Go refuses, with the kind of Go's error.
        """
        f = _fast_cache.get(cls) or _fast(cls, lambda: _schema_of(cls))
        fast = f.read(data)
        return fast if fast is not None else validate(cls, parse(data))

    def encode(self) -> bytes:
        """Encode writes the JSON Go writes for the same value, which Go reads back."""
        try:
            return self.__pydantic_serializer__.to_json(self)
        except PydanticSerializationError as e:
            raise EncodeError("invalidValue", f"{type(self).__name__}: {e}") from None


def _refuse_values(model: type[Model], data: dict[str, Any]) -> None:
    """Refuse, as Go does, the first value of data of the wrong type.

    Go's encoding/json reads a key that differs from a field's name only in
    case as the field, and reads every value before its decoders look at the
    keys: a value it refuses is what Go reports, under any spelling of a key.
    """
    w = _wire(model)
    for k, v in data.items():
        f = w.fields.get(k) or w.fields.get(w.folded.get(fold(k), ""))
        if f is None or f.tag is not _NO_ZERO or v is None:
            continue
        try:
            _field_adapter(model, f.name).validate_python(
                v if f.fix is None else f.fix(v), context=_WIRE
            )
        except ValidationError as e:
            err = e.errors(include_url=False)[0]
            raise PydanticCustomError(
                _KINDS.get(err["type"], "wrongType"),
                "{field}: {msg}",
                {"field": f.json, "msg": err["msg"]},
            ) from None


def _field_adapter(model: type[Model], name: str) -> TypeAdapter[Any]:
    """A validator of one field of model alone, as strict as the model's."""
    info = model.model_fields[name]
    tp: Any = (
        Annotated[(info.annotation, *info.metadata)]
        if info.metadata
        else info.annotation
    )
    if isinstance(info.annotation, type) and issubclass(info.annotation, BaseModel):
        return TypeAdapter(tp)
    return TypeAdapter(tp, config=ConfigDict(strict=True, allow_inf_nan=False))


def _tag_problem(w: _Wire, f: _Field, value: Any) -> PydanticCustomError | None:
    """What Go says of a variant's tag of the right type: missing, or another's."""
    if value is None:
        return PydanticCustomError(
            "missingField",
            "{type}: missing required field {field}",
            {"type": w.type_name, "field": repr(f.json)},
        )
    if value != f.tag:
        return PydanticCustomError(
            "invalidValue",
            "{type}: {field} is {got}, want {want}",
            {
                "type": w.type_name,
                "field": f.json,
                "got": json.dumps(value),
                "want": json.dumps(f.tag),
            },
        )
    return None


def _is_zero(v: Any) -> bool:
    if v is None or v is False:
        return True
    if isinstance(v, Model):
        # A record or variant is zero when every field but a variant's tag
        # is, as Go's omitzero judges the struct (which holds no tag).
        w = _wire(type(v))
        return all(
            _is_zero(getattr(v, f.name)) for f in w.fields.values() if f.tag is _NO_ZERO
        )
    if isinstance(v, (str, bytes, list, dict)):
        return not v
    if isinstance(v, int):
        return v == 0
    if isinstance(v, float):
        return v == 0 and math.copysign(1.0, v) > 0  # Go writes -0
    return False


M = TypeVar("M", bound=Model)

_KINDS: Final[Mapping[str, DecodeErrorKind]] = {
    "missing": "missingField",
    "literal_error": "invalidEnum",
    "greater_than_equal": "invalidValue",
    "less_than_equal": "invalidValue",
    "string_too_long": "invalidValue",
    "invalidID": "invalidID",
    "invalidValue": "invalidValue",
    "invalidEnum": "invalidEnum",
    "ambiguousKey": "ambiguousKey",
    "missingField": "missingField",
    "wrongType": "wrongType",
}


def validate(model: type[M], tree: Any, path: str = "$") -> M:
    """Validate reads a parsed document as model, as Go's decoder of it does."""
    try:
        return model.model_validate(tree, context=_WIRE)
    except ValidationError as e:
        raise _decode_error(model, e, path) from None


def decode_list(model: type[M], data: str | bytes) -> list[M]:
    """Decode_list reads a JSON array of model, as Go reads a []T of it.

    Null is an empty list; a null element reads as an object without fields.
    """
    fast = _fast(
        ("list", model), lambda: core_schema.list_schema(_schema_of(model))
    ).read(data)
    if fast is not None:
        return fast  # type: ignore[no-any-return]
    tree = parse(data)
    if tree is None:
        return []
    if not isinstance(tree, list):
        raise DecodeError(
            "wrongType",
            "$",
            f"want an array of {model.__name__}, got {_json_kind(tree)}",
        )
    return [validate(model, e, f"$[{i}]") for i, e in enumerate(tree)]


def _decode_error(model: type[Model], e: ValidationError, path: str) -> DecodeError:
    errors = e.errors(include_url=False)
    # Go reads every field before it looks for missing ones.
    err = next((x for x in errors if x["type"] != "missing"), errors[0])
    kind = _KINDS.get(err["type"], "wrongType")
    return DecodeError(kind, _json_path(model, err["loc"], path), err["msg"])


def _json_path(model: Any, loc: tuple[int | str, ...], path: str) -> str:
    """The JSON path of a pydantic error location in a value of type model."""
    tp: Any = model
    for part in loc:
        tp = _strip(tp)
        origin = get_origin(tp)
        if origin is Union or origin is UnionType:
            tp = next((a for a in get_args(tp) if a is not type(None)), tp)
            tp, origin = _strip(tp), get_origin(_strip(tp))
        if isinstance(tp, type) and issubclass(tp, Model) and isinstance(part, str):
            info = tp.model_fields.get(part)
            if info is None:
                break
            path = at(path, info.serialization_alias or part)
            tp = info.annotation
        elif origin is list and isinstance(part, int):
            path, tp = at(path, part), get_args(tp)[0]
        elif origin is dict:
            path, tp = at(path, part), get_args(tp)[1]
        else:
            path = at(path, part)
    return path


_IDENT: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def at(path: str, key: str | int) -> str:
    """At is the path of a member: key is a field or map key, or an index."""
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if _IDENT.match(key) else f"{path}[{json.dumps(key)}]"


def _object(tree: Any, type_name: str) -> dict[str, Any]:
    if tree is None:
        return {}
    if not isinstance(tree, dict):
        raise DecodeError(
            "wrongType", "$", f"{type_name}: want an object, got {_json_kind(tree)}"
        )
    return tree


def _json_kind(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "a boolean"
    if isinstance(v, (int, float)):
        return "a number"
    if isinstance(v, str):
        return "a string"
    return "an array" if isinstance(v, list) else "an object"


def _probe(o: dict[str, Any], type_name: str, key: str) -> Any:
    """The value of key in o, refusing a key that folds to it without being it."""
    want = fold(key)
    for k in o:
        if k != key and len(k) == len(key) and fold(k) == want:
            raise DecodeError(
                "ambiguousKey",
                at("$", k),
                f"{type_name}: key {k!r} differs from field {key!r} only in case",
            )
    return o.get(key)


def decode_union(
    data: str | bytes, union: str, discriminator: str, variants: Mapping[Any, type[M]]
) -> M:
    """Decode_union reads any variant of a union, choosing it by its tag.

    A missing or null tag is a missingField refusal and an unknown one an
    unknownVariant, as Go's DecodeX has them; the variant chosen reads the
    document as Go's decoder of the variant does.
    """
    key = (union, next(iter(variants.values())))
    f = _fast_cache.get(key) or _fast(
        key,
        lambda: core_schema.tagged_union_schema(
            {t: _schema_of(m) for t, m in variants.items()},
            discriminator=discriminator,
        ),
    )
    fast = f.read(data)
    if fast is not None:
        return fast  # type: ignore[no-any-return]
    tree = parse(data)
    o = _object(tree, union)
    tag = _probe(o, union, discriminator)
    kinds = {type(t) for t in variants}
    if tag is None:
        raise DecodeError(
            "missingField",
            at("$", discriminator),
            f"{union}: missing required field {discriminator!r}",
        )
    if type(tag) not in kinds:
        raise DecodeError(
            "wrongType",
            at("$", discriminator),
            f"{union}: want {discriminator} to be a {_kind_name(kinds)}, got {_json_kind(tag)}",
        )
    variant = variants.get(tag)
    if variant is None:
        raise DecodeError(
            "unknownVariant",
            at("$", discriminator),
            f"{union}: unknown {discriminator} {json.dumps(tag)}",
        )
    if type(o) is _Duplicates:
        raise DecodeError("ambiguousKey", "$", f"{union}: a key appears twice")
    return validate(variant, o)


def _kind_name(kinds: set[type]) -> str:
    return "boolean" if bool in kinds else "string"


E = TypeVar("E", bound="Envelope")


class Envelope(Model):
    """An Envelope is a fact as the journal stores it: its type, version and data."""

    @classmethod
    def decode(cls, data: str | bytes) -> Self:
        """Decode reads a fact of this type and version, refusing any other."""
        fact = decode_envelope(
            data,
            {cls.model_fields["type"].default: {cls.model_fields["v"].default: cls}},
        )
        return fact


def decode_envelope(data: str | bytes, facts: Mapping[str, Mapping[int, type[E]]]) -> E:
    """Decode_envelope reads a fact as Go's DecodeFact reads it.

    facts holds the envelope type of each fact type and version the spec
    still decodes. Data that is absent or null is a missingField refusal, a
    type not in facts an unknownFact, and a known type at a version not in
    facts (newer, or retired) an unknownVersion.
    """
    key = ("facts", next(iter(next(iter(facts.values())).values())), len(facts))
    f = _fast_cache.get(key) or _fast(
        key,
        lambda: core_schema.tagged_union_schema(
            {
                t: core_schema.tagged_union_schema(
                    {v: _schema_of(e) for v, e in versions.items()},
                    discriminator="v",
                )
                for t, versions in facts.items()
            },
            discriminator="type",
        ),
    )
    fast = f.read(data)
    if fast is not None:
        return fast  # type: ignore[no-any-return]
    tree = parse(data)
    o = _object(tree, "FactEnvelope")
    if type(o) is _Duplicates:
        raise DecodeError("ambiguousKey", "$", "FactEnvelope: a key appears twice")
    for k in o:
        if k not in ("type", "v", "data") and fold(k) in ("TYPE", "V", "DATA"):
            raise DecodeError(
                "ambiguousKey",
                at("$", k),
                f"FactEnvelope: key {k!r} differs from field {k.lower()!r} only in case",
            )
    fact_type, version, payload = o.get("type"), o.get("v"), o.get("data")
    if fact_type is None:
        fact_type = ""
    if not isinstance(fact_type, str):
        raise DecodeError(
            "wrongType",
            "$.type",
            f"FactEnvelope: want a string, got {_json_kind(fact_type)}",
        )
    if version is None:
        version = 0
    if type(version) is not int and type(version) is not _NegativeZero:
        raise DecodeError(
            "wrongType",
            "$.v",
            f"FactEnvelope: want an integer, got {_json_kind(version)}",
        )
    if not -(1 << 63) <= version < 1 << 63:
        raise DecodeError(
            "invalidValue", "$.v", f"FactEnvelope: {version} overflows an int"
        )
    if payload is None:
        raise DecodeError(
            "missingField", "$.data", "FactEnvelope: missing required field 'data'"
        )
    versions = facts.get(fact_type)
    if versions is None:
        raise DecodeError(
            "unknownFact", "$.type", f"unknown fact type {json.dumps(fact_type)}"
        )
    envelope = versions.get(version)
    if envelope is None:
        raise DecodeError(
            "unknownVersion",
            "$.v",
            f"{fact_type} v{version} is not decoded by this build",
        )
    data_type: type[Model] = envelope.model_fields["data"].annotation  # type: ignore[assignment]
    return envelope.model_construct(data=validate(data_type, payload, "$.data"))


class GoUpcast:
    """A GoUpcast envelope holds a fact version that only a hand-written Go
    upcaster reads as the newest version, which Python cannot run:
    ``decode_fact`` returns it as it is (its class is an instance of
    GoUpcast), and a Python reader converts it itself. Every other older
    version is upcast as the spec derives each version from the one before.
    """


def json_tree(old: Model) -> JsonObject:
    """Return the JSON Go writes for old, as json.loads reads it: what the first
    upcast step of an older fact version takes."""
    tree: JsonObject = json.loads(old.encode())
    return tree


def upcast(envelope: type[E], tree: JsonObject) -> E:
    """Upcast reads tree, the JSON the last upcast step wrote, as the data of
    envelope, so the result is what Go's DecodeFact returns, zero fields left
    out and all.
    """
    data_type: type[Model] = envelope.model_fields["data"].annotation  # type: ignore[assignment]
    return envelope.model_construct(data=validate(data_type, tree, "$.data"))


JsonObject: TypeAlias = dict[str, Any]
"""A JsonObject is a JSON object as json.loads reads it: what an upcast step takes and returns."""


UnknownReason: TypeAlias = Literal["type", "version", "variant", "value"]
"""An UnknownReason says what a build did not know about a fact (decision 0174)."""

_UNKNOWN_KINDS: Final[Mapping[str, UnknownReason]] = {
    "unknownFact": "type",
    "unknownVersion": "version",
    "unknownVariant": "variant",
    "invalidEnum": "value",
}


class UnknownFact:
    """An UnknownFact is a fact a tolerant reader (read_fact) kept without
    decoding it, because this build does not know its type, its version, a
    union variant or an enum value it holds: its type and version as the
    envelope names them, why, the refusal's path, and its bytes as read, never
    rewritten.
    """

    __slots__ = ("type", "v", "why", "path", "raw")

    def __init__(self, type: str, v: int, why: UnknownReason, path: str, raw: bytes):
        self.type = type
        self.v = v
        self.why: UnknownReason = why
        self.path = path
        self.raw = raw

    def __repr__(self) -> str:
        return f"UnknownFact({self.type!r}, v={self.v}, why={self.why!r})"


def tolerate(data: str | bytes, err: DecodeError) -> UnknownFact | None:
    """Return the UnknownFact a tolerant reader keeps of data, whose strict
    decoding raised err, when err says the build does not know it; None for
    damage, which the reader raises.
    """
    why = _UNKNOWN_KINDS.get(err.kind)
    if why is None:
        return None
    raw = data.encode() if isinstance(data, str) else bytes(data)
    o = parse(raw)
    if not isinstance(o, dict):
        return None
    fact_type, version = o.get("type"), o.get("v")
    return UnknownFact(
        fact_type if isinstance(fact_type, str) else "",
        version if type(version) is int else 0,
        why,
        err.path,
        raw,
    )


# ---- Decoding through pydantic-core's JSON parser. ----
#
# The decoders above read a document with json.loads and then walk it twice
# in Python (each model's _from_wire, then pydantic's validation of the
# dictionary): 4 to 7 times the cost of json.loads alone. Most documents are
# what Go writes, and for those pydantic-core can do all of it from the bytes:
# a validator of the same models without _from_wire, that matches keys by
# their JSON names, requires a variant's tag and refuses an unknown key and
# every value the strict models refuse. What it cannot see is checked around
# it: a key given twice (the parser keeps the last), which the count of keys
# in the bytes shows; null, which Go reads by the field (missing, left as it
# is, or an object without fields); and -0, which Go refuses as an unsigned
# integer. A document it does not accept, or
# whose checks fail, is decoded by the decoders above, so every refusal and
# every odd document Go accepts (unknown keys, null for optional fields,
# deep nesting, lone surrogates) is theirs, as before (decision 0159).

_FROM_WIRE: Final = Model.__dict__["_from_wire"].__func__
_FIELDS_SET: Final = operator.attrgetter("__pydantic_fields_set__")
_BARE_NEGATIVE_ZERO: Final = re.compile(rb"-0(?:[,}\] \t\n\r]|\Z)")


def _fast_schema(schema: Any, defs: dict[str, Any]) -> Any:
    """Schema, as the fast validator reads it: without _from_wire, keys by
    their JSON names, tags required; the definitions it holds are moved to
    defs."""
    if isinstance(schema, list):
        return [_fast_schema(s, defs) for s in schema]
    if not isinstance(schema, dict):
        return schema
    kind = schema.get("type")
    if kind == "definitions":
        for d in schema["definitions"]:
            if d["ref"] not in defs:
                defs[d["ref"]] = None  # a placeholder while it is read
                defs[d["ref"]] = _fast_schema(d, defs)
        return _fast_schema(schema["schema"], defs)
    if kind == "function-wrap":
        fn = schema["function"]["function"]
        if getattr(fn, "__func__", fn) is _FROM_WIRE:
            inner = _fast_schema(schema["schema"], defs)
            return {**inner, "ref": schema["ref"]} if "ref" in schema else inner
    out = {
        k: v if k in ("cls", "serialization") else _fast_schema(v, defs)
        for k, v in schema.items()
    }
    if kind == "model":
        fields = out["schema"]["fields"]
        for f in _wire(schema["cls"]).fields.values():
            field = dict(fields[f.name])
            if f.json != f.name:
                field["validation_alias"] = f.json
            if f.tag is not _NO_ZERO and field["schema"].get("type") == "default":
                field["schema"] = field["schema"]["schema"]
            fields[f.name] = field
    return out


def _schema_of(model: type[Model]) -> Any:
    """The core schema of model, built now if pydantic deferred it."""
    model.model_rebuild()
    return model.__pydantic_core_schema__


def _validator(schema: Any) -> SchemaValidator:
    defs: dict[str, Any] = {}
    root = _fast_schema(schema, defs)
    if defs:
        root = core_schema.definitions_schema(root, list(defs.values()))
    # pydantic-core reuses the validator a complete model class holds (with
    # _from_wire) for a model schema naming the class, unless that validator
    # starts with a wrap function, which a model that holds itself's does
    # not: while the validator is built, the classes are not complete.
    models = {m for m in _models(root) if m.__dict__.get("__pydantic_complete__")}
    try:
        for m in models:
            m.__pydantic_complete__ = False
        return SchemaValidator(root)
    finally:
        for m in models:
            m.__pydantic_complete__ = True


def _models(schema: Any) -> Iterator[type[Model]]:
    """The classes of the model schemas in schema."""
    if isinstance(schema, dict):
        if schema.get("type") == "model":
            yield schema["cls"]
        for k, v in schema.items():
            if k not in ("cls", "serialization"):
                yield from _models(v)
    elif isinstance(schema, list):
        for v in schema:
            yield from _models(v)


# ---- Counting the keys of what was read. ----

_Counter: TypeAlias = Callable[[Any], int]
_counters: dict[type[Model], _Counter] = {}


def _flat(m: Model) -> int:
    return len(m.__pydantic_fields_set__)


def _count(m: Model) -> int:
    """The keys of the objects a model was read from, its own and its values'."""
    return _counter_of(type(m))(m)


def _counter_of(model: type[Model]) -> _Counter:
    c = _counters.get(model)
    if c is None:
        _counters[model] = _count  # while it is built: a model that holds itself
        c = _counters[model] = _model_counter(model)
    return c


def _model_counter(model: type[Model]) -> _Counter:
    parts = [
        (name, c)
        for name, info in model.model_fields.items()
        if (c := _value_counter(info.annotation)) is not None
    ]
    if not parts:
        return _flat

    def count(m: Model) -> int:
        n = len(m.__pydantic_fields_set__)
        values = m.__dict__
        for name, c in parts:
            v = values[name]
            if v is not None:
                n += c(v)
        return n

    return count


def _value_counter(tp: Any) -> _Counter | None:
    """How to count the keys in a value of type tp; None when it holds none."""
    tp = _strip(tp)
    origin = get_origin(tp)
    if origin is Union or origin is UnionType:
        counters = [
            c
            for a in get_args(tp)
            if a is not type(None) and (c := _value_counter(a)) is not None
        ]
        return None if not counters else counters[0] if len(counters) == 1 else _any
    if isinstance(tp, type) and issubclass(tp, Model):
        return _count
    if origin is list:
        el = _strip(get_args(tp)[0])
        if isinstance(el, type) and issubclass(el, Model) and _counter_of(el) is _flat:
            return lambda v: sum(map(len, map(_FIELDS_SET, v)))
        elem = _value_counter(el)
        if elem is None:
            return None
        return lambda v: sum(map(elem, v))
    if origin is dict:
        value = _value_counter(get_args(tp)[1])
        if value is None:
            return len
        return lambda v: len(v) + sum(map(value, v.values()))
    if origin is Literal or tp in (str, int, float, bool, bytes):
        return None
    if isinstance(tp, type) and issubclass(tp, (str, int, float, bytes)):
        return None
    return _any


def _any(v: Any) -> int:
    if isinstance(v, Model):
        return _count(v)
    if isinstance(v, dict):
        return len(v) + sum(map(_any, v.values()))
    if isinstance(v, list):
        return sum(map(_any, v))
    return 0


# ---- The fast decoders. ----


class _Fast:
    """A _Fast is the fast validator of a type, and whether it holds unsigned
    integers, whose -0 only Go's decoder refuses."""

    __slots__ = ("validator", "unsigned")

    def __init__(self, schema: Any) -> None:
        self.validator = _validator(schema)
        self.unsigned = _holds(schema, _refuse_negative_zero)

    def read(self, data: str | bytes) -> Any:
        """What the validator reads from data when the checks around it hold;
        None when the decoders that walk the parsed document must decide."""
        if isinstance(data, str):
            try:
                data = data.encode()
            except UnicodeEncodeError:
                return None  # a lone surrogate: the slow path makes it U+FFFD
        if b"null" in data:
            return None  # Go reads it by the field: missing, left as it is, or {}
        if (
            self.unsigned
            and b"-0" in data
            and _BARE_NEGATIVE_ZERO.search(data) is not None
        ):
            return None
        try:
            value = self.validator.validate_json(data, strict=True)
        except ValidationError:
            return None
        keys = _count(value) if isinstance(value, Model) else _any(value)
        # Every key is followed by a colon, after white space perhaps: more
        # colons than keys read is a key given twice, or a colon in a string,
        # which one after a closing quote mostly tells apart.
        if (
            data.count(b":") != keys
            and data.translate(None, b" \t\n\r").count(b'":') != keys
        ):
            return None
        return value


def _holds(schema: Any, fn: Callable[..., Any]) -> bool:
    """Whether a core schema calls fn anywhere."""
    if isinstance(schema, dict):
        return any(v is fn or _holds(v, fn) for v in schema.values())
    if isinstance(schema, list):
        return any(_holds(v, fn) for v in schema)
    return False


_fast_cache: dict[Any, _Fast] = {}


def _fast(key: Any, schema: Callable[[], Any]) -> _Fast:
    """The _Fast of key, built from schema() the first time."""
    f = _fast_cache.get(key)
    if f is None:
        f = _fast_cache[key] = _Fast(schema())
    return f


# ---- Tools, as a spec declares them (decision 0207). ----


@dataclass(frozen=True)
class ToolAnnotations:
    """ToolAnnotations are what a tool tells a client of its effects, each said:
    MCP's readOnlyHint, destructiveHint, idempotentHint and openWorldHint."""

    read_only_hint: bool
    destructive_hint: bool
    idempotent_hint: bool
    open_world_hint: bool


@dataclass(frozen=True)
class ToolDefinition:
    """A ToolDefinition is what a model-facing tool a spec declares says of itself:
    its name and title, the description a model reads, the records it takes and
    returns with their JSON Schemas (each a document of its own, no $ref), its
    hints, and whether it can run as a task. A module whose spec has tools lists
    them in TOOLS."""

    name: str
    title: str | None
    description: str
    input: str
    """The record the tool takes, as the spec names it."""
    result: str | None
    """The record the tool returns, as the spec names it; None for none."""
    input_schema_json: str
    """The input schema's JSON, as the Go package's table holds it."""
    output_schema_json: str | None
    annotations: ToolAnnotations
    task_support: Literal["forbidden", "optional", "required"]

    @property
    def input_schema(self) -> dict[str, JsonValue]:
        """The schema of the tool's arguments, a new dict at every read."""
        schema: dict[str, JsonValue] = json.loads(self.input_schema_json)
        return schema

    @property
    def output_schema(self) -> dict[str, JsonValue] | None:
        """The schema of the tool's result, a new dict at every read; None for none."""
        if self.output_schema_json is None:
            return None
        schema: dict[str, JsonValue] = json.loads(self.output_schema_json)
        return schema


# ---- The wire's clients: refusals, event streams, resume (decision 0203). ----
#
# What a generated client needs that no HTTP library gives: the refusal a
# server answers, the answer of a route declared with a `with` record, and
# an event stream read as the standard parses it with its resume point and
# retry budget (decision 0158). Nothing here imports an HTTP library; the
# package's client module (client.py) does.

MAX_DIGITS: Final = 9
"""MAX_DIGITS is the most digits a number of a stream's fields or a
Retry-After has here: more say nothing (a retry of 10⁹ ms is 11 days), and
Python's int() refuses 4,300."""


def digits(text: str) -> int | None:
    """Digits is the value of text when it is 1 to MAX_DIGITS ASCII digits.

    Anything else (a sign, a fraction, spaces, a superscript or another
    script's digit) is None, as the TypeScript client's /^\\d{1,9}$/ has it.
    """
    if 0 < len(text) <= MAX_DIGITS and text.isascii() and text.isdigit():
        return int(text)
    return None


def retry_after(header: str | None) -> float | None:
    """Retry_after is the seconds a Retry-After header asks to wait; None when
    it does not say so in digits (the wire never sends an HTTP date)."""
    if header is None:
        return None
    seconds = digits(header)
    return float(seconds) if seconds is not None else None


class WireError(Exception):
    """A WireError is a request the server refused, with the refusal's status.

    A thing of another session answers as one that does not exist: 404. A
    route the server declines by name (it does not serve it) is a 404 too,
    with not_served set.
    """

    status: int
    """Status is the HTTP status code."""
    reason: str
    """Reason is what the refusal record's message says, or the body's text
    when it is not one, or the status's phrase when it is empty."""
    retry_after: float | None
    """Retry_after is the seconds the server asks to wait before trying
    again (a 429 or 503 says); None when it does not say."""
    not_served: str | None
    """Not_served is the route the server declined (Jobgen-Not-Served),
    None for a refusal of a route it serves."""

    def __init__(
        self,
        status: int,
        reason: str,
        retry_after: float | None = None,
        not_served: str | None = None,
    ) -> None:
        super().__init__(f"jobhttp: {status}: {reason}")
        self.status = status
        self.reason = reason
        self.retry_after = retry_after
        self.not_served = not_served


NOT_SERVED_HEADER: Final = "Jobgen-Not-Served"
"""NOT_SERVED_HEADER names the route a server declines, on its 404."""


def refusal(
    status: int,
    phrase: str,
    body: bytes,
    headers: Mapping[str, str],
    message: Callable[[bytes], str],
) -> WireError:
    """Refusal is the WireError of a refused request: its status, the message
    its refusal record holds (message decodes the body as that record), and
    what its headers say (Retry-After, Jobgen-Not-Served)."""
    try:
        reason = message(body)
    except DecodeError:
        reason = body.decode("utf-8", "replace").strip() or phrase
    return WireError(
        status,
        reason,
        retry_after(headers.get("Retry-After")),
        headers.get(NOT_SERVED_HEADER),
    )


T = TypeVar("T", bound=Model)
X = TypeVar("X", bound=Model)


@dataclass(frozen=True)
class Placed(Generic[T, X]):
    """A Placed is an item of an answer whose route declares a with record:
    the item, and the record a server added to its object (a fleet's
    placement of a job), read from the same JSON object."""

    item: T
    extra: X


def decode_with(item: type[T], extra: type[X], data: str | bytes) -> Placed[T, X]:
    """Decode_with reads one object as item and as extra, each with its own
    decoder, which ignores the other's keys."""
    tree = parse(data)
    return Placed(validate(item, tree), validate(extra, tree))


def decode_list_with(
    item: type[T], extra: type[X], data: str | bytes
) -> list[Placed[T, X]]:
    """Decode_list_with reads a JSON array of objects as decode_with reads one;
    null is an empty list."""
    tree = parse(data)
    if tree is None:
        return []
    if not isinstance(tree, list):
        raise DecodeError(
            "wrongType",
            "$",
            f"want an array of {item.__name__}, got {_json_kind(tree)}",
        )
    return [
        Placed(validate(item, e, f"$[{i}]"), validate(extra, e, f"$[{i}]"))
        for i, e in enumerate(tree)
    ]


def decode_value(tp: Any, data: str | bytes) -> Any:
    """Decode_value reads a document as the annotation tp (a scalar, a list or
    map of them), strictly: for an answer or event that is no record."""
    tree = parse(data)
    try:
        return TypeAdapter(tp).validate_python(tree, strict=True, context=_WIRE)
    except ValidationError as e:
        err = e.errors(include_url=False)[0]
        raise DecodeError(
            _KINDS.get(err["type"], "wrongType"), "$", err["msg"]
        ) from None


@dataclass
class Event:
    """An Event is one dispatched event of a stream: its name and data lines."""

    event: str = "message"
    data: list[str] = _field(default_factory=list)

    @property
    def text(self) -> str:
        """Text is the event's data, its lines joined as the standard joins them."""
        return "\n".join(self.data)


_PRINTABLE: Final = re.compile("[\x20-\x7e]*")


class EventReader:
    """An EventReader turns the lines of an event stream into events.

    It keeps what the stream said for the next connection: the last event id
    and the reconnection delay a retry field asked for, in milliseconds. An
    id a header cannot carry as it came (anything but printable ASCII) is
    ignored, as by the TypeScript client, whose fetch would refuse it.
    """

    def __init__(self, last_id: str | None = None) -> None:
        self.current = Event()
        self.last_id = last_id
        self.retry_ms: int | None = None

    def line(self, text: str) -> Event | None:
        """Line reads one line; it returns the event a blank line completes."""
        if text == "":
            ev, self.current = self.current, Event()
            return ev if ev.data else None
        if text.startswith(":"):
            return None  # a comment: the server's keep-alive
        name, _, value = text.partition(":")
        value = value.removeprefix(" ")
        if name == "event":
            self.current.event = value
        elif name == "data":
            self.current.data.append(value)
        elif name == "id" and _PRINTABLE.fullmatch(value):
            self.last_id = value
        elif name == "retry" and (ms := digits(value)) is not None:
            self.retry_ms = ms
        return None


BYE: Final = "bye"
"""BYE is the event a server writes as it closes a stream (shutting down):
a client reconnects, as after a dropped connection."""


class Resume:
    """A Resume is what a stream keeps across its connections.

    It holds the stream's reader (the resume point and the server's delay)
    and the retry budget: ``retries`` reconnections in a row that make no
    progress, after which the last failure is raised (decision 0158).
    Progress is an event after the first of a connection that, for a
    stream with a resume point, moved the point past where the connection
    resumed: every connection opens with an event of its own (a follow's
    opened frame, a roster), so a server that drops each one right after it
    makes none.
    """

    def __init__(self, last_id: str | None, retries: int, resumable: bool) -> None:
        self.reader = EventReader(last_id)
        self.retries = retries
        self.resumable = resumable
        self.failures = 0
        self._resumed_from = last_id
        self._seen = 0

    def headers(self) -> dict[str, str]:
        """The headers of the next connection: where to resume from."""
        self._resumed_from = self.reader.last_id
        self._seen = 0
        h = {"Accept": "text/event-stream"}
        if self.reader.last_id is not None:
            h["Last-Event-ID"] = self.reader.last_id
        return h

    def dispatched(self, ev: Event) -> None:
        """Dispatched notes an event the stream delivers, and its progress."""
        self._seen += 1
        if self._seen > 1 and (
            not self.resumable or self.reader.last_id != self._resumed_from
        ):
            self.failures = 0

    def failed(self, err: Exception) -> float:
        """How long to wait, in seconds, before reconnecting after err.

        It raises err once the budget is spent: more than ``retries``
        failures in a row without progress.
        """
        self.failures += 1
        if self.failures > self.retries:
            raise err
        if self.reader.retry_ms is not None:
            return self.reader.retry_ms / 1000
        return float(min(0.05 * 2**self.failures, 2.0))
