/*
Package pgstore is the journal on PostgreSQL: a journal.Store (and
journal.Tailer) for runtimes that outgrow one machine, where many hosts append
facts and tools tail the history. It uses pgx v5 and needs PostgreSQL 13 or
newer (xid8), reached directly: a transaction-pooling proxy loses LISTEN.

	store, err := pgstore.Open(ctx, "postgres://host/db", pgstore.WithSchema("jobgen_journal"))
	seqs, err := store.Append(ctx, journal.Stream(owner), journal.Entry{ID: id, Payload: fact})
	for rec, err := range store.Tail(ctx, journal.Position{}) { ... }

# Schema

Open applies the embedded migrations (migrations/NNNN_name.sql) in one
transaction under an advisory lock keyed by the schema, records each in
schema_version, and refuses a schema newer than the build (ErrSchemaTooNew).
That suits development, tests and one host. In production, every host of a
new build racing to migrate a shared schema is what operators forbid: a host
opens WithoutMigrate, which changes nothing and refuses a missing or older
schema (ErrSchemaBehind, naming both versions), and the operator migrates
once per release with `jobgen journal migrate` and reads the version with
`jobgen journal status` (Migrate, Pending, Script and Inspect beneath them).
The migrations are the store's own rather than an external tool's (goose,
atlas): that would be a dependency, and the store must know its version to
refuse a mismatch anyway.
A store's tables live in its schema (WithSchema; default jobgen_journal):

	stream(name PK, head, archived)             one row per stream; head a floor
	fact(stream, seq, id, xid, pos, at, payload) PRIMARY KEY (stream, seq),
	                                            UNIQUE (stream, id) where id is set
	archive(stream, first, through, target, digest, at)
	                                            one row per run of seqs archived

ReadStream pages through a stream by its primary key and LastSeq is one
backward probe of it: a stream's last seq is greatest(head, its last fact's
seq), head being a floor that only Archive raises, to the last seq it moves
(decision 0134). Reading a stream's last record costs the same however long
the stream or large the store.

payload is json (validated, kept byte for byte; jsonb would reorder it). Triggers
refuse UPDATE, DELETE and TRUNCATE of facts, and deleting a stream or moving
its head back: the journal is append-only even for a hand-typed statement,
but for the one delete retention makes (see Retention).

# Appending: seqs, ids, group commit

Append queues its entries and waits for the committer (WithCommitters,
default 1) to carry them in a transaction with whatever else is queued (up to
WithMaxBatch entries and WithMaxBatchBytes bytes): client-side group commit,
many facts per commit flush. After a commit the committer waits briefly (at
most half a commit, 10ms) for the appenders it released to queue again, so
that a steady set of appenders shares every transaction instead of
alternating between two. One transaction is one statement, in one
pipelined round trip (schema version 6; decision 0181), both statements
prepared on the connection, so the server binds and runs them without
parsing (decision 0244):

 1. SELECT * FROM append_facts(...), in an implicit transaction of its own
    that commits at the Sync after it. The function, installed by the
    migrations and run from plans cached in the session, takes the batch's
    stream locks (pg_advisory_xact_lock on a 64-bit hash of each stream's
    name, keyed by the schema, in key order, so concurrent transactions
    never deadlock), then, in a statement of its own whose READ COMMITTED
    snapshot follows the locks, finds each stream's last seq (one backward
    probe of the primary key, and head), looks up the entries' ids (one
    index probe each), inserts the entries whose id is not held as
    last+1, last+2, … in batch order, creates the rows of new streams and
    answers every entry's seq and the transaction's xid; no row is updated
    (decision 0132). An entry whose id is held takes no seq and answers the
    held fact's. Since schema version 7 these are three small statements
    (the ids' only when an entry has one) rather than one of six
    materialized CTEs, which version 6 still runs when a stream is within a
    chunk's size of the largest seq (decision 0244);
 2. pg_notify, after the Sync, a transaction of its own, waking the tails
    (decision 0133). The appends are answered at the Sync before it, which
    proves the commit; its reply is read after them (decision 0244).

A session whose isolation is not READ COMMITTED is refused by the function
(its snapshot would precede the locks); the store then names the level in
an explicit transaction (BEGIN ISOLATION LEVEL READ COMMITTED, the call,
COMMIT, the notify), as it does for an append cut into chunks (below).

The locks are held to commit, so appends to one stream serialize on them:
seqs are gap-free (a rolled-back transaction inserts nothing) and commit
order is seq order; UNIQUE (stream, seq) is the backstop.
An entry whose id the stream holds, or that an earlier entry of the batch
took, is not inserted and answers the first seq; ids are looked up under
the locks before numbering, so a duplicate leaves no gap and costs no
second round.

AppendBatch hands many facts for several streams over in one call: its
parts are queued together and taken alone, as one transaction of their
own (never shared with other appends, never split), in the call's order,
all or nothing: a stream it would take past the largest seq fails every
part with ErrFull (decision 0182).

If a stream would pass the largest seq, the statement inserts none of that
stream's entries and its appends fail with ErrFull; the rest of the
transaction commits. A single Append larger than WithMaxBatchBytes is cut
into statements of at most that size, one round trip each, inside one
transaction, so that no message outgrows what the protocol carries and the
client encodes one piece at a time; it rolls back whole if its stream is
full.

The payloads are not copied: the committer reads them where the caller has
them, and Append does not return before they are sent, so the client holds
the payloads in flight once, plus the batches being encoded (at most
WithMaxBatchBytes each, one per committer).

Durability: Append returns once the transaction holding its entries
committed (with the server's synchronous_commit; keep it on), so every Append
that returned nil is durable and Flush has nothing left to wait for: it returns
nil on an open store. Concurrent flushes trivially share the commit that
preceded them. A failed transaction fails every Append in it, with the error;
the store does not retry it, since a COMMIT cut off by a dropped connection may
have committed: the caller retries, with ids, and the retry answers the seqs
the first attempt got. A failure is not sticky: nothing acknowledged can be
lost, so the next Append tries a new transaction. See
docs/decisions/0030-pgstore-durable-appends.md.

# Global order and tailing

A Record's Pos is (xid, pos): Major is the appending transaction's id (xid8),
Minor the row's insertion counter, so the entries of one Append are
consecutive and a later Append (one that began after another returned) is
after it. The global order agrees with every stream's order: a transaction
gets its xid only after it holds every stream lock it appends under (an
advisory lock assigns no xid, where a row lock would), so of two
transactions appending to one stream, the one that committed there first
has the lower xid. Transactions commit out of xid order, so ReadAll and Tail hand out
only rows of transactions below the snapshot's xmin, the oldest transaction
still running in the cluster: every such transaction has ended, so no row can
appear later before a position already handed out. The cost is lag: any long
transaction anywhere in the cluster holds the tail back until it ends. ReadAll
first waits (WithReadYourWritesWait) until the horizon passes the newest commit
made before it began, so a caller reads its own appends and a reader in another
process (`jobgen journal cat`) reads everything already committed. The wait is
bounded (5 s by default): past it ReadAll logs a warning and reads what is
safe, since an unbounded wait would let one idle-in-transaction session hang
every reader, and a short read that said nothing would print a shorter journal
as if it were all.

Tail is woken by NOTIFY on the channel named like the schema, heard on a
dedicated connection (not from the pool) that reconnects with backoff; a
reconnect wakes the tails, which re-read, and they also poll
(WithPollInterval) for what no notification announced. The notification is
sent by a goroutine of its own after commits (coalescing those that land
while it sends), not inside the append transaction: PostgreSQL holds a
cluster-wide lock from a notifying transaction's pre-commit to its end, which
would serialize every writer's commit flush. A notification lost in between
costs a tail one poll interval, never a record. Records committed past a
tail's cursor that an older transaction still holds back, whose end sends
no notification, make the tail look again after 5ms, doubling up to the
poll interval. A tail outlives a server
restart: a lost connection, and the errors of a server going down (57P01,
57P02) or starting up (57P03), are retried with backoff; another error the
server reports for its query ends the tail.

# Retention

A stream whose history is over may leave the store into a journal file
(`jobgen journal archive`; which streams are over is package retention's to
judge, by their vocabulary). Archive takes each stream with the seq its
judge read (a Judged) and moves the seqs after those archived before
through that seq, never a fact appended since: a job registered in a
session after the judgement stays in the store, live (decision 0147). For
each batch of streams it copies the facts into the file with their seqs
and ids, syncs it, reads every copy back and compares it, and only then, in
one short transaction, removes them through archive_streams, the one delete
the triggers allow, raising the stream's head to at least the last seq
moved and its archived seq to it, and notes the run of seqs, the file and
the copy's digest in archive (schema version 5; decision 0127). It holds no
stream's append lock at any point: what it moves is a prefix of immutable
facts and appends only add after the last seq, so appends to every stream,
those being archived included, neither wait for an archive nor share a
transaction with one that waits (decision 0149); archivers of one schema
take turns on an advisory lock of their own (the two-key space, apart from
every stream's). The transaction gets an xid only at the removal, so it
holds the tails back for that statement alone.

Afterwards a stream's seqs 1 to archived are in one or more archive files
and the store holds archived+1 to its last seq. ReadStream promises every
seq after its cursor, in order, or a *journal.ArchivedError in place of the
first one it misses, naming the seqs missed run by run with the file that
holds each (ArchivedError.Ranges, from the archive table; decisions 0148
and 0151): every page must go on at the seq after the last one yielded, so
a read that an archive overtook (past its first page) never jumps to what
was appended since, nor ends as if the stream ended there. A read after
the archived seq reads what the stream holds since. ReadAll and Tail no
longer yield the moved facts, and a retried append with the id of a moved
fact appends it again.

# Observing

WithObserver takes the file store's journal.Observer (otelmetrics'
JournalObserver is one): Appended counts the new entries of each Append
that committed, AppendFailed its refusals and failures, Flushed each Flush.
An observer that is also a pgstore.Observer hears what only this store has:
each append transaction's duration and batch size (Committed), how long an
Append waited for its commit (AppendWaited), how old the records a tail
delivers are (TailLagged, one question to the server per page delivered),
and lost connections tried again (Reconnected). Without an observer the
store makes none of these calls and reads no clock for them. Extending the
file store's observer by interface, rather than a second option for a
pgstore-only observer, keeps one option for one concern, so a caller that
switches stores keeps its metrics wired; widening journal.Observer instead
would give every implementation methods that mean nothing for a file.

# Vocabularies

The store knows no vocabulary. SQL over the job facts it holds (the
execution intervals, for tools reading the database directly) lives with the
job history, in jobhistory/pgsql, next to the Go projection
jobhistory.Intervals.
*/
package pgstore
