"""Properties of the generated package, checked with Hypothesis.

The cross-language proofs are in spec/python_test.go (Go writes, Python
reads and writes back, Go compares); these hold the Python side alone to
what they rest on: what Python writes it reads back unchanged, a damaged
document is refused with a DecodeError and nothing else, and a key that
differs from a field's name only in case is refused wherever it is.
"""

from __future__ import annotations

import json
import string

from hypothesis import given, settings
from hypothesis import strategies as st
from jobgen_vocab import jobs, subagents
from jobgen_vocab.runtime import DecodeError, fold

INT64 = st.integers(min_value=-(1 << 63), max_value=(1 << 63) - 1)
UUIDS = (
    st.uuids().map(str).filter(lambda u: u != "00000000-0000-0000-0000-000000000000")
)
TEXT = st.text()

chunks = st.builds(
    jobs.RecordChunk,
    offset=INT64,
    at=INT64,
    text=TEXT,
    channel=st.none() | st.sampled_from(jobs.CHANNEL_VALUES),
    gap_before=st.booleans(),
)
snapshots = st.builds(
    jobs.JobSnapshot,
    id=UUIDS.map(jobs.JobID),
    name=TEXT,
    kind=TEXT,
    label=TEXT,
    ordinal=INT64,
    owner=TEXT.map(jobs.SessionID),
    record=st.booleans(),
    status=st.sampled_from(jobs.JOB_STATUS_VALUES),
    started_at=INT64,
    finished_at=INT64,
    output_bytes=INT64,
)
frames = st.one_of(
    st.builds(
        jobs.OpenedFrame, job=snapshots, from_=INT64, earliest=INT64, total=INT64
    ),
    st.builds(
        jobs.OutputFrame,
        chunks=st.lists(chunks, max_size=4),
        next=INT64,
        lossy=st.booleans(),
    ),
    st.builds(jobs.StatusFrame, job=snapshots),
)
messages = st.builds(
    subagents.Message,
    id=UUIDS.map(subagents.MessageID),
    source=st.builds(
        subagents.MessageSource,
        kind=st.sampled_from(subagents.SOURCE_KIND_VALUES),
        sender=TEXT.map(jobs.SessionID),
    ),
    content=st.lists(
        st.builds(
            subagents.ContentBlock,
            kind=st.sampled_from(subagents.CONTENT_KIND_VALUES),
            text=TEXT,
        ),
        max_size=3,
    ),
)


@given(frames)
def test_what_python_writes_it_reads_back(frame: jobs.FollowFrame) -> None:
    data = frame.encode()
    assert jobs.decode_follow_frame(data) == frame
    assert type(frame).decode(data) == frame
    assert json.loads(data)["frame"] == frame.frame


@given(messages)
def test_a_message_of_the_importing_vocabulary_reads_back(
    message: subagents.Message,
) -> None:
    assert subagents.Message.decode(message.encode()) == message


@given(frames, st.data())
@settings(max_examples=300)
def test_damage_is_refused_with_a_decode_error_or_read(
    frame: jobs.FollowFrame, data: st.DataObject
) -> None:
    doc = bytearray(frame.encode())
    for _ in range(data.draw(st.integers(1, 3))):
        i = data.draw(st.integers(0, len(doc) - 1))
        doc[i] = data.draw(st.sampled_from(b'{}[]",:0-9aeE\\ \xff\x00'))
    try:
        read = jobs.decode_follow_frame(bytes(doc))
    except DecodeError as e:
        assert e.kind and e.path.startswith("$")
    else:
        assert jobs.decode_follow_frame(read.encode()) == read


@given(chunks, st.data())
def test_a_key_in_another_case_is_refused(
    chunk: jobs.RecordChunk, data: st.DataObject
) -> None:
    wire = json.loads(chunk.encode())
    key = data.draw(st.sampled_from(sorted(wire)))
    other = "".join(data.draw(st.sampled_from([c, c.swapcase()])) for c in key)
    if other == key:
        other = key.swapcase() if key.swapcase() != key else key
    if other == key or fold(other) != fold(key):
        return
    wire[other] = wire.pop(key)
    try:
        jobs.RecordChunk.decode(json.dumps(wire))
    except DecodeError as e:
        assert e.kind == "ambiguousKey"
    else:
        raise AssertionError(f"{other!r} for {key!r} was read")


@given(st.text(alphabet=string.ascii_letters, min_size=1))
def test_fold_is_ascii_upper_case(name: str) -> None:
    assert fold(name) == name.upper()
    assert fold("ſ") == "S" and fold("\u212a") == "K" and fold("ı") == "ı"


def test_only_ascii_digits_are_digits_in_a_time() -> None:
    """Go reads RFC 3339 digits 0-9 alone; Python's \\d is any script's."""
    from jobgen_vocab.runtime import Timestamp
    from pydantic import TypeAdapter, ValidationError

    times = TypeAdapter(Timestamp)
    assert times.validate_python("2024-01-02T03:04:05Z") == "2024-01-02T03:04:05Z"
    for bad in ("２０２４-01-02T03:04:05Z", "2024-01-02T03:04:05.٣Z"):
        try:
            times.validate_python(bad)
        except ValidationError as e:
            assert e.errors()[0]["type"] == "invalidValue"
        else:
            raise AssertionError(f"{bad!r} was read as a time")


def test_only_ascii_digits_are_digits_in_a_deep_document() -> None:
    """A document too deep for json.loads is read by the runtime's own parser."""
    from jobgen_vocab.runtime import parse

    deep = "[" * 3000 + "1٣" + "]" * 3000
    try:
        parse(deep)
    except DecodeError as e:
        assert e.kind == "invalidJSON"
    else:
        raise AssertionError("a number with a non-ASCII digit was read")


def test_minus_zero_is_no_unsigned_integer() -> None:
    """Go refuses -0 for a uint; pydantic-core's parser reads it as 0."""
    assert jobs.TerminalSize.decode('{"rows":24,"cols":80}').rows == 24
    for doc in (
        '{"rows":-0,"cols":80}',
        '{"rows":1,"cols":-0}',
        '{"cols":80,"rows":-0 }',
    ):
        try:
            jobs.TerminalSize.decode(doc)
        except DecodeError as e:
            assert e.kind == "invalidValue", doc
        else:
            raise AssertionError(f"{doc} was read")


def test_a_variant_without_its_tag_is_refused() -> None:
    """The fast path requires the tag pydantic would default."""
    try:
        jobs.OutputFrame.decode('{"chunks":[],"next":1}')
    except DecodeError as e:
        assert e.kind == "missingField"
    else:
        raise AssertionError("an output frame without its tag was read")


def test_python_names_are_no_keys() -> None:
    """A key spelled as the Python field (gap_before) is unknown to Go."""
    opts = jobs.AppendOptions.decode('{"gap_before":true}')
    assert opts.gap_before is False
