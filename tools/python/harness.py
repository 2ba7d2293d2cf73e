"""The Python side of spec/python_test.go: decode and re-encode documents.

Each line of standard input is a type name, a tab and a JSON document, as
Go wrote it; each line of standard output is the answer, a JSON object:
{"ok": true, "out": <what Python writes for what it read>} or
{"ok": false, "kind": ..., "path": ..., "msg": ...}. The argument names the
module of the generated package to use (jobs, subagents, wire).
"""

from __future__ import annotations

import importlib
import json
import re
import sys
from collections.abc import Callable
from typing import Any

from jobgen_vocab.runtime import _KINDS, DecodeError, Model, UUIDIdentifier, parse
from pydantic import TypeAdapter, ValidationError


def decoders(module: Any) -> Callable[[str, str], bytes]:
    def snake(name: str) -> str:
        return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()

    def decode(type_name: str, doc: str) -> bytes:
        if type_name == "FactEnvelope":
            return bytes(module.decode_fact(doc).encode())
        union = getattr(module, "decode_" + snake(type_name), None)
        if union is not None:
            return bytes(union(doc).encode())
        tp = getattr(module, type_name)
        if isinstance(tp, type) and issubclass(tp, Model):
            return tp.decode(doc).encode()
        # An id or an enum: Go reads null as its zero value.
        tree = parse(doc)
        if tree is None:
            zero = (
                ""
                if not (isinstance(tp, type) and issubclass(tp, UUIDIdentifier))
                else "00000000-0000-0000-0000-000000000000"
            )
            return json.dumps(zero).encode()
        try:
            value = TypeAdapter(tp).validate_python(tree, strict=True)
        except ValidationError as e:
            err = e.errors(include_url=False)[0]
            raise DecodeError(
                _KINDS.get(err["type"], "wrongType"), "$", err["msg"]
            ) from None
        return json.dumps(str(value)).encode()

    return decode


def main() -> None:
    decode = decoders(importlib.import_module("jobgen_vocab." + sys.argv[1]))
    out = sys.stdout
    for line in sys.stdin:
        type_name, _, doc = line.rstrip("\n").partition("\t")
        try:
            answer = b'{"ok":true,"out":' + decode(type_name, doc) + b"}"
            out.write(answer.decode())
        except DecodeError as e:
            out.write(
                json.dumps({"ok": False, "kind": e.kind, "path": e.path, "msg": str(e)})
            )
        out.write("\n")


if __name__ == "__main__":
    main()
