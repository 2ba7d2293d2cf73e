"""Run by gen/python's TestDecodersRefuseWhatIsBeyondABound beside the
package the Python backend generates from the tools-table case (bv.waiter,
bv.menu): it reads gentest.BoundDocuments from stdin, a JSON list of
{type, text} with each document as its text, and writes, per document,
whether the generated decoder took it and, when it did not, the error's kind
and path."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable

from bv import waiter
from bv.runtime import DecodeError

DECODE: dict[str, Callable[[str], object]] = {
    "ListOrders": waiter.ListOrders.decode,
    "CookOrder": waiter.CookOrder.decode,
    "Order": waiter.Order.decode,
    "FactEnvelope": waiter.decode_fact,
}


def main() -> None:
    answers = []
    for d in json.load(sys.stdin):
        try:
            DECODE[d["type"]](d["text"])
            answers.append({"ok": True})
        except DecodeError as e:
            answers.append({"ok": False, "kind": e.kind, "path": e.path, "msg": str(e)})
    json.dump(answers, sys.stdout)


main()
