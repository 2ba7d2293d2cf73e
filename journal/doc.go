/*
Package journal keeps durable lifecycle facts: an append-only file of
checksummed records, the session flush barrier, and reading back — facts in
order and, for jobs, their execution intervals.

The journal stores opaque payloads. A payload is one generated fact
envelope, {"type","v","data"}, of whatever union the caller records; the typed
layers take the union's codec:

	store, err := journal.Open("jobs.journal", journal.WithLogger(log))
	rec := journal.NewRecorder(store, jobs.EncodeFact) // the registry's Recorder
	...
	err = store.Flush(ctx) // the durability barrier
	...
	for fact, err := range journal.Facts(journal.ReadFile(path), jobs.DecodeFact) { ... }

# File format

A journal file is UTF-8 JSON lines: every line, header included, is one JSON
object ending with a newline byte (0x0A), so jq reads it line by line. All
numbers below are ASCII decimal; offsets count bytes from the start of the
file.

The first line is the header, exactly these 39 bytes and a newline:

	{"format":"jobgen-journal","version":1}

Every further line is a record, exactly this byte sequence:

	{"seq":SEQ,"crc32c":"CRC","fact":FACT}

where:

  - SEQ is the record's sequence number, 1 to 2^64-1, in decimal without sign
    or leading zeros. The first record of a file may have any seq (a new file
    starts at 1); each later record has the seq before it plus one, and a
    reopened journal continues the sequence.
  - FACT is the payload, one JSON value without newline bytes, exactly as the
    writer appended it. A record line, newline included, is at most
    MaxRecordBytes (1 MiB) long.
  - CRC is the CRC-32C (Castagnoli polynomial 0x1EDC6F41, reflected, initial
    value and final xor 0xFFFFFFFF: the checksum of iSCSI, SSE4.2 and Go's
    crc32.Castagnoli; "123456789" checks as e3069283) of the bytes of FACT
    followed by SEQ as eight big-endian bytes, written as eight lowercase hex
    digits. The seq enters in binary, after the fact, so that no two (seq,
    fact) pairs share an input and a writer can checksum the fact before it
    knows the seq.

Nothing else is allowed: no spaces, no other fields, no field order but this
one. A writer produces these bytes directly rather than through a JSON
encoder, and a reader matches them byte for byte: the fact is the bytes
between `,"fact":` and the line's final `}`.

A line is a valid record when it has this framing, its CRC matches, and it
ends with a newline. The facts of a journal, unchecked, are

	jq -c 'select(.seq) | .fact' FILE

# Recovery

A reader checks the header, then the records in order. The first line that is
not a valid record in sequence is damage, at the offset of the line's first
byte. What the damage means depends on what follows it:

  - A torn tail: no valid record begins anywhere after the damage's first
    byte — neither inside the damaged line nor in a later line. This is what a
    crash during a buffered write leaves: a partial last line, a last line
    with garbage or zeros where unsynced bytes were lost. Open cuts the file
    at the damage (truncate, then fsync), logs the cut with its offset and
    size, and appends after the last valid record; records cut off were never
    flushed, since a successful Flush synced every byte before them.
  - Corruption: a valid record begins somewhere after the damage's first byte
    (looking for `{"seq":` at every position, and checking the framing and CRC
    up to the next newline), or a line is a valid record whose seq does not
    follow the one before. Records that were once whole are bad, so Open
    refuses the file with an error naming the offset (ErrCorrupt, "journal
    PATH: record at offset N: ..."), changes nothing, and skips nothing.
    Searching inside the damaged line catches a flipped newline, which merges
    two records into one bad line.

A file that is empty, or a strict prefix of the header, is a journal whose
creation was cut short: Open writes the header afresh. Any other file whose
first line is not the header is not a journal (ErrNotJournal); Open neither
repairs nor truncates it.

ReadFile, Read and Check apply the same rules without repairing: a torn tail
or corruption ends the records with a *RecordError naming the offset.

Out-of-order writeback can, after a power loss, persist a later page of
unflushed records and not an earlier one. That leaves damage followed by
valid records, which these rules call corruption: Open refuses rather than
guess, and an operator who knows the damaged records were never flushed can
cut the file at the reported offset.

# Durability

Append encodes a record into a buffer and returns its seq; the buffer reaches
the file when it fills or at a flush. Flush writes the buffer and syncs the
file (fdatasync on Linux), so that when it returns nil every record appended
before the call is durable. Concurrent flushers share syncs (group commit):
one writes and syncs while the rest wait, and each returns once a sync that
covers its records completed. A failed write or sync is sticky — every
flush waiting on it, every later flush and append fails — because after a
failed fsync the kernel may have dropped the dirty pages, and a second fsync
would report success without them. Open fsyncs the directory after creating
the file, so the file's name is durable too. Close flushes.

One Store writes a journal at a time: on Linux, Open takes an exclusive
flock and a second writer fails to open.

# Session flush barrier

A SessionStore collects, per live session, the flush listeners of the
participants holding that session's data — a Store takes part with its Flush.
SessionStore.Flush runs them all in parallel and reports whether any took
part and the first failure in registration order. Participation means each
listener did what its contract says, nothing more: it is not proof that a
backend stored the data.

# Reading back

ReadFile yields records; Facts decodes their payloads with a union's codec;
Intervals projects job facts to execution intervals; Cat and WriteIntervals
are the bodies of `jobgen journal cat` and `jobgen journal intervals`, and
Check of `jobgen journal check`.
*/
package journal
