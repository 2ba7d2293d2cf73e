"""What the generated decoders cost against json.loads alone.

Each case is a document the wire or the journal carries; the script times
decoding it with the generated package and parsing it with json.loads, in
interleaved runs, and prints the median of each and their ratio. Run it with
`make py-bench`; quote the ratios with the machine's load average.
"""

from __future__ import annotations

import json
import os
import statistics
import time
from collections.abc import Callable

from jobgen_vocab import jobs

SNAPSHOT = (
    '{"id":"6ba7b810-9dad-11d1-80b4-00c04fd430c8","name":"bash-1","kind":"bash","label":"ls",'
    '"ordinal":1,"record":true,"status":"running","startedAt":1700000000000}'
)


def chunk(i: int) -> str:
    return f'{{"offset":{i * 40},"at":1700000000{i:03d},"text":"line {i} of the output, forty bytes\\n","channel":"stdout"}}'


CASES: dict[str, str] = {
    "opened frame": '{"frame":"opened","job":'
    + SNAPSHOT
    + ',"from":0,"earliest":0,"total":120}',
    "output frame, 1 chunk": '{"frame":"output","chunks":[' + chunk(0) + '],"next":40}',
    "output frame, 32 chunks": '{"frame":"output","chunks":['
    + ",".join(chunk(i) for i in range(32))
    + '],"next":1280}',
    "output frame, 32 chunks with colons": '{"frame":"output","chunks":['
    + ",".join(chunk(i).replace("of the output", "error: output") for i in range(32))
    + '],"next":1280}',
    "status frame": '{"frame":"status","job":'
    + SNAPSHOT.replace('"running"', '"completed"')
    + "}",
}
SETTLED_V2 = (
    '{"type":"job/settled","v":2,"data":{"jobId":"6ba7b810-9dad-11d1-80b4-00c04fd430c8","at":1733000000000,'
    '"status":"completed","detail":"exit 0","producerReported":true,"registration":{"registeredAt":1732999990000,'
    '"owner":"session-1","kind":"bash","label":"go test ./...","ordinal":3,"record":true},"cause":"producer"}}'
)
# The facts a journal written by this build holds, at their newest version.
FACTS: dict[str, str] = {
    "job/settled v3 fact": SETTLED_V2.replace('"v":2', '"v":3'),
    "job/registered v3 fact": (
        '{"type":"job/registered","v":3,"data":{"jobId":"6ba7b810-9dad-11d1-80b4-00c04fd430c8",'
        '"at":1733000000000,"owner":"session-1","kind":"bash","label":"go test ./...","ordinal":3,'
        '"record":true,"labels":{"team":"infra"}}}'
    ),
}
# An older version, read from history written before the newest: decoding it
# validates it as written, then the newest version the upcasts make.
UPCAST = "job/settled v2 fact, upcast to v3"


def per_call(fn: Callable[[bytes], object], doc: bytes, n: int) -> float:
    start = time.perf_counter()
    for _ in range(n):
        fn(doc)
    return (time.perf_counter() - start) / n


def main() -> None:
    runs = int(os.environ.get("RUNS", "7"))
    n = int(os.environ.get("N", "2000"))
    print(
        f"load average {os.getloadavg()[0]:.2f}; {runs} interleaved runs of {n} decodes each; medians"
    )
    print(f"{'document':36} {'json.loads':>12} {'generated':>12} {'ratio':>7}")
    cases: list[tuple[str, bytes, Callable[[bytes], object]]] = [
        (name, doc.encode(), jobs.decode_follow_frame) for name, doc in CASES.items()
    ]
    cases += [(name, doc.encode(), jobs.decode_fact) for name, doc in FACTS.items()]
    cases.append((UPCAST, SETTLED_V2.encode(), jobs.decode_fact))
    for name, doc, decode in cases:
        decode(doc)  # warm: builds the models' validators
        base, gen = [], []
        for _ in range(runs):
            base.append(per_call(json.loads, doc, n))
            gen.append(per_call(decode, doc, n))
        b, g = statistics.median(base), statistics.median(gen)
        print(f"{name:36} {b * 1e6:10.1f}µs {g * 1e6:10.1f}µs {g / b:6.1f}x")


if __name__ == "__main__":
    main()
