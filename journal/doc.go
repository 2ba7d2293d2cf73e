/*
Package journal keeps durable lifecycle facts: the Store contract every
backend implements (streams, one per session, each with its own gap-free seq,
and one global order), the file backend FileStore, the session flush barrier,
and reading back.

The journal stores opaque payloads and knows no vocabulary. A payload is one
generated fact envelope, {"type","v","data"}, of whatever union the caller
records; the typed layers take the union's codec and say which stream a fact
goes to:

	store, err := journal.Open("jobs.journal", journal.WithLogger(log))
	rec := journal.NewRecorder(store, jobs.EncodeFact, jobhistory.StreamOf) // a Recorder; jobhistory.NewRecorder retries with ids
	...
	err = store.Flush(ctx) // the durability barrier
	...
	for fact, err := range journal.Facts(store.ReadStream(ctx, stream, 0), jobs.DecodeFact) { ... }
	for fact, err := range journal.Facts(journal.ReadFile(path), jobs.DecodeFact) { ... }
	for fact, err := range journal.FileFacts(path, jobs.DecodeFact) { ... } // the same, with less work: decode checks the facts are JSON

# The Store contract

See [Store]. In short: Append(ctx, stream, entries...) gives the entries of
one call consecutive seqs in the stream (1, 2, … with no gaps) and
consecutive places in the global order, and returns them; an entry whose id
the stream already holds appends nothing and returns the seq that holds it.
Bad input (a stream name or id that is empty, too long, not UTF-8 or holding
a control character; a payload that is not one JSON value or holds a
newline) is ErrInvalid, a record too long ErrTooLarge, a stream or store
without seqs or positions left ErrFull; none of them changes anything.
Flush is the durability barrier. AppendBatch(ctx, batch...) is the call of a
caller holding many facts, for one stream or several: every part appended as
Append would, in the order given, all or nothing, and durable when it
returns, the barrier paid once for all of them (decision 0182). ReadStream and
ReadAll are iterators that see everything Append has returned, even while others append. ReadStream
yields every seq after its cursor in order, or, where the store no longer
holds seqs (retention moved them into an archive, before the read or while
it read) or never did (a file holding a copy of a stream from a later seq
on), an *ArchivedError in place of the first one it misses, naming the seqs
missed with the archive of each run (ErrArchived); it never jumps over
them, nor ends as if the stream ended there. LastSeq
answers a stream's last seq as ReadStream sees it, without reading the
stream, so that ReadStream(ctx, stream, last-1) reads its last record alone;
Close flushes, and after it every method fails with ErrClosed.
journal/storetest checks all of it against any backend. A FileStore is also an EncodedAppender: its
AppendEncoded is Append for payloads a generated encoder wrote, which it
checks only for their shape (a JSON object without newlines), not by
parsing them.

# File format

A journal file is UTF-8 JSON lines: every line, header included, is one JSON
object ending with a newline byte (0x0A) and holding no other newline (no
carriage return before it either), so jq reads it line by line. All numbers
below are ASCII decimal without sign or leading zeros; offsets count bytes
from the start of the file.

The first line is the header, exactly these 39 bytes and a newline:

	{"format":"jobgen-journal","version":2}

Every further line is a record, exactly this byte sequence:

	{"pos":POS,"stream":"STREAM","seq":SEQ,"id":"ID","crc32c":"CRC","fact":FACT}

where the `,"id":"ID"` part is there only when the record has an id, and:

  - POS is the record's position in the file's global order, 1 to 2^64-1.
    The first record of a file may have any position (a new file starts at
    1); each later record has the position before it plus one.
  - STREAM is the stream's name and ID the record's id (each 1 to 256 bytes
    of UTF-8 without control characters, U+0000–U+001F and U+007F–U+009F),
    written as the inside of a JSON string in which `"` is written `\"`, `\`
    is written `\\`, and nothing else is escaped: no \u escapes, no \/.
  - SEQ is the record's seq in its stream, 1 to 2^64-1 (a writer stops at
    2^63-1). The first record of a stream in a file may have any seq (a new
    stream starts at 1); each later record of that stream has its stream's
    seq before it plus one. No two records of a stream have the same ID.
  - FACT is the payload, one JSON value (RFC 8259) without newline bytes,
    exactly as the writer appended it. A record line, newline included, is
    at most MaxRecordBytes (1 MiB) long.
  - CRC is the CRC-32C (Castagnoli polynomial 0x1EDC6F41, reflected, initial
    value and final xor 0xFFFFFFFF: the checksum of iSCSI, SSE4.2 and Go's
    crc32.Castagnoli; "123456789" checks as e3069283), written as eight
    lowercase hex digits, of these bytes in this order: FACT; the length of
    the stream name in bytes as four big-endian bytes, then the name (raw,
    unescaped); the length of the id (0 when there is none) as four
    big-endian bytes, then the id; SEQ as eight big-endian bytes; POS as
    eight big-endian bytes. The numbers enter last, in binary, so that a
    writer can checksum the rest before it knows them.

Nothing else is allowed: no spaces, no other fields, no field order but this
one. A writer produces these bytes directly rather than through a JSON
encoder, and a reader matches them byte for byte: the fact is the bytes
between `,"fact":` and the line's final `}`.

A line is a valid record when it has this framing, its CRC matches, its fact
is one JSON value, and it ends with a newline.

After the last record a file may hold zero bytes (0x00), and nothing else,
to its end: space a writer preallocated and had not filled when it stopped
(see Durability). They are not a line: a reader that meets a zero byte
where a line starts, and only zero bytes from there to the end of the file,
has read every record, with no damage. A file closed cleanly has no such
tail, and files written without preallocation read as before. The facts of
one stream, unchecked, are

	jq -c 'select(.stream == "session-1") | .fact' FILE

# Version 1

Files of the first release have the header

	{"format":"jobgen-journal","version":1}

and records

	{"seq":SEQ,"crc32c":"CRC","fact":FACT}

with CRC the CRC-32C of FACT followed by SEQ as eight big-endian bytes, and
the same rules otherwise (SEQ plays POS's part). They still read: every
record belongs to the one stream V1Stream ("jobgen-v1") and keeps its seq,
which is also its position. The journal knows no vocabulary, so it does not
sort v1 facts into their owners' streams; a reader that needs a job's owner
reads it from the fact. ReadFile, Read and Check read a v1 file as it is;
Open rewrites it as version 2 first, record for record, into a new file that
it syncs and renames over the old one.

# Recovery

A reader checks the header, then the records in order. The first line that is
not a valid record in sequence is damage, at the offset of the line's first
byte. What the damage means depends on what follows it:

  - Corruption, in three cases. First, the damaged line is a valid record
    whose place does not follow (a position, or its stream's seq, out of
    sequence, or an id its stream already holds). Second, the damaged line
    is a whole record: it ends with a newline and has the framing above
    complete, from `{"pos":` to the final `}`, but its CRC does not match
    or its fact is not JSON; it was written in full once, so it may have
    been flushed, and it is not a write cut short. Third, a record with the
    framing and a matching CRC (its fact need not be JSON) begins somewhere
    after the damage's first byte: inside the damaged line (looking for
    `{"pos":` at every position, the record running to the end of the line)
    or in a later line. Searching inside the damaged line catches a flipped
    newline, which merges two records into one bad line. Records that were
    once whole are bad, so Open refuses the file with an error naming the
    offset (ErrCorrupt, "journal PATH: record at offset N: ..."), changes
    nothing, and skips nothing.
  - A torn tail otherwise: what a crash during a buffered write leaves, a
    last line without its newline, or with garbage or zeros where unsynced
    bytes were lost (a record cut short and the preallocated zeros after it
    are one torn line). Open cuts the file at the damage (truncate, then
    fsync), logs the cut with its offset and size, and appends after the
    last valid record; records cut off were never flushed, since a
    successful Flush synced every byte before them. Only a write cut short
    is cut, as etcd's WAL repairs only an unexpected EOF: cutting a whole
    bad record too would lose a flushed record silently.

The search costs a pass over the file: a candidate's framing is bounded, and
the CRC of its fact, which runs to the end of the line, is derived from CRCs
of prefixes of the line (zlib's crc32_combine), not computed again for each
candidate. Capping the number of candidates instead would bound the time by
giving a wrong answer on crafted input.

A zero tail alone (the bytes after the last record are all 0x00) is neither
corruption nor a torn tail: Open cuts it without reporting a repair, and
the next write preallocates afresh. Zeros followed by anything else are
damage like any other: zeros then a record with a matching CRC are
corruption, zeros then a newline or garbage a torn tail.

A file that is empty, or a strict prefix of the header, is a journal whose
creation was cut short: Open writes the header afresh. Any other file whose
first line is not a header is not a journal (ErrNotJournal; the error says
when the lines end in CRLF); Open neither repairs nor truncates it. A path
that is not a regular file (a FIFO, a device) is refused before it is
opened.

ReadFile, Read, FileFacts and Check apply the same rules without repairing:
a torn tail or corruption ends the records with a *RecordError naming the
offset. FileFacts leaves the check that a fact is JSON to its decoder, which
parses the fact anyway, and checks a fact itself only when the decoder refused
it, so the damage it reports is ReadFile's.

Recovery rebuilds the store's index of the file, and a record's place is
checked against it: a position that does not follow, a seq that does not
follow its stream's, or an id its stream already holds is corruption.

Out-of-order writeback can, after a power loss, persist a later page of
unflushed records and not an earlier one. That leaves damage followed by
valid records, which these rules call corruption: Open refuses rather than
guess, and an operator who knows the damaged records were never flushed can
cut the file at the reported offset with `jobgen journal repair
--truncate-at OFFSET FILE` (TruncateAt), which cuts only at the end of an
intact prefix.

# Durability

Append encodes records into a buffer and returns their seqs; the buffer reaches
the file when it fills or at a flush. Flush writes the buffer and syncs the
file (fdatasync on Linux), so that when it returns nil every record appended
before the call is durable. Concurrent flushers share syncs (group commit):
one writes and syncs while the rest wait, and each returns once a sync that
covers its records completed. Before it writes, the leader of a sync waits,
for at most as long as the last sync took (and 1 ms), until as many flushers
are pending as were waiting when the last sync ended, so that committers
released by one sync are covered by the next rather than by the one after.
AppendBatch checks every part, takes the lock once, encodes every record
into the buffer, and then flushes as Flush does: one write, one sync, shared
with the concurrent flushers. A failed write or sync is sticky — every
flush waiting on it, every later flush and append fails — because after a
failed fsync the kernel may have dropped the dirty pages, and a second fsync
would report success without them. Open fsyncs the directory after creating
the file, so the file's name is durable too. Close flushes.

The writer preallocates: before a write would pass the file's end, it
extends the file with zero bytes (fallocate; a quarter of the file ahead,
at least 1 MiB and at most 8 MiB), writes zeros over the new space and
syncs them once, then writes records over them, so that most syncs make
only data durable: not a new file size (on ext4 that makes an fdatasync
about a third cheaper), and not the conversion of allocated-but-unwritten
blocks, which a sync of a batch reaching new blocks would otherwise pay
every time (a quarter cheaper again; decision 0246). Close cuts the
unfilled tail off. A file system without fallocate, or a File from
WithOpenFile without an Allocate method, grows as it is written; one
without WriteAt is allocated but not filled.

One FileStore writes a journal at a time: on Linux, Open takes an exclusive
flock and a second writer fails to open. Elsewhere Open takes no lock, so
nothing stops a second writer there; locking with flock on the BSDs and
macOS, or LockFileEx on Windows, is not done yet.

# Session flush barrier

A SessionStore collects, per live session, the flush listeners of the
participants holding that session's data — a Store takes part with its Flush.
SessionStore.Flush runs them all in parallel and reports whether any took
part and the first failure in registration order. Participation means each
listener did what its contract says, nothing more: it is not proof that a
backend stored the data.

# Reading back

A FileStore keeps, per stream, the offset of each record, so ReadStream reads
a stream by offset and costs what the stream costs, and LastSeq answers from
the index without reading the file. A stream whose first record in the file
is past seq 1 (an archive's copy of a later run, a file continuing another)
holds nothing before it: a ReadStream from before it yields an ArchivedError
of the seqs before it, naming no archive, and a read after them reads the
copy (decision 0148). ReadAll reads the file in
order from the nearest of the offsets it keeps for every 256th position.
Records still in the write buffer are written to the file (not synced)
before they are read, so readers see every record Append returned.

ReadFile yields the records of a file without opening it as a store (no
lock, no repair), reading ahead in a goroutine of its own; Facts decodes payloads with a union's codec; Cat is the
body of `jobgen journal cat` and Check of `jobgen journal check`. Job
intervals are the job vocabulary's, in package jobhistory.
*/
package journal
