"""Run by gen/python's TestDecodersAreLinearInSize beside the package the
Python backend generates from the kitchen-sink spec (kv.kitchen): decoding a
document of 4n units of each hostile shape takes about 4 times as long as
one of n; more than 8 times fails (quadratic code takes 16). Each cost is
the process's CPU time, the least of several interleaved runs. Dish holds itself, so pydantic-core
would reuse its class's validator in the fast one; first, a key spelled as
the Python field must still be unknown there. It prints one line per check
and exits 1 when one failed."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable

from kv import kitchen
from kv.runtime import decode_list

DISH = '"name":"x","course":"main-course","priceCents":1,"allergens":{}'


def nested(n: int) -> str:
    return ("{" + DISH + ',"parent":') * n + "{" + DISH + "}" + "}" * n


SHAPES: list[tuple[str, int, Callable[[int], str], Callable[[str], object]]] = [
    # 160 deep at most: pydantic-core's parser reads 200 (decision 0157).
    ("a record nested in itself", 40, nested, kitchen.Dish.decode),
    (
        "many small records",
        4000,
        lambda n: "[" + ",".join("{" + DISH + "}" for _ in range(n)) + "]",
        lambda d: decode_list(kitchen.Dish, d),
    ),
    (
        "a long string with many escapes",
        20000,
        lambda n: "{" + DISH.replace('"x"', '"' + '\\n\\u00e9\\"' * n + '"') + "}",
        kitchen.Dish.decode,
    ),
    (
        "many keys",
        4000,
        lambda n: "{" + DISH + "," + ",".join(f'"k{i}":{i}' for i in range(n)) + "}",
        kitchen.Dish.decode,
    ),
    (
        "many keys given twice",
        4000,
        lambda n: (
            "{"
            + DISH
            + ","
            + ",".join(f'"k{i}":{i},"k{i}":{i}' for i in range(n))
            + "}"
        ),
        kitchen.Dish.decode,
    ),
]


def fastest(decode: Callable[[str], object], doc: str, best: float) -> float:
    start = time.process_time()
    try:
        decode(doc)
    except ValueError as e:
        if "twice" not in str(e):  # the one shape refused, as Go refuses it
            raise
    return min(best, time.process_time() - start)


def python_names_are_no_keys() -> bool:
    try:
        kitchen.Dish.decode(DISH.replace('"priceCents"', '"price_cents"').join("{}"))
    except ValueError as e:
        return getattr(e, "kind", "") == "missingField"
    return False


def main() -> None:
    failed = not python_names_are_no_keys()
    print(f"{'not ok' if failed else 'ok'} - a Python name is no key of a Dish")
    for name, unit, doc, decode in SHAPES:
        small, large = doc(unit), doc(4 * unit)
        s = big = float("inf")
        for _ in range(7):
            s = fastest(decode, small, s)
            big = fastest(decode, large, big)
        ratio = big / max(s, 1e-6)
        ok = ratio <= 8
        failed = failed or not ok
        print(
            f"{'ok' if ok else 'not ok'} - {name}: 4 times the size took {ratio:.1f} times as long"
        )
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
