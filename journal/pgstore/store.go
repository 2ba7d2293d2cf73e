package pgstore

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/jobgen/jobgen/journal"
)

// DefaultSchema is the schema a store lives in unless WithSchema names another.
const DefaultSchema = "jobgen_journal"

// An Option configures Open.
type Option func(*config)

type config struct {
	schema        string
	log           *slog.Logger
	committers    int
	maxBatch      int
	maxBatchBytes int
	poll          time.Duration
	ryw           time.Duration
	hooks         *hooks
	noMigrate     bool
	obs           journal.Observer
}

// WithSchema puts the store's tables in schema (created when missing).
// Stores in different schemas of one database are independent journals.
func WithSchema(schema string) Option { return func(c *config) { c.schema = schema } }

// WithLogger logs migrations, listener reconnects and tail retries to l. Without it, or with nil, nothing is logged: the library logs only to a logger it is given.
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.log = l } }

// WithCommitters sets how many append transactions of this store may be in
// flight at once (default 1). Each runs on a pooled connection and carries
// every append queued when it began, up to WithMaxBatch entries: one
// committer gives the largest batches (and so the most facts per commit
// flush); more overlap one transaction's statements with another's flush.
func WithCommitters(n int) Option { return func(c *config) { c.committers = n } }

// WithMaxBatch caps the entries of one append transaction (default 4096).
// An Append with more entries still commits whole, in a transaction of its own.
func WithMaxBatch(n int) Option { return func(c *config) { c.maxBatch = n } }

// DefaultMaxBatchBytes is how many bytes of entries (stream names, ids and
// payloads) one append transaction carries unless WithMaxBatchBytes says
// otherwise.
const DefaultMaxBatchBytes = 8 << 20

// WithMaxBatchBytes caps the bytes of entries one append transaction
// carries, and so what the client encodes and sends at once (default
// DefaultMaxBatchBytes). An Append larger than that still commits whole, in
// a transaction of its own sent in pieces of at most n bytes.
func WithMaxBatchBytes(n int) Option { return func(c *config) { c.maxBatchBytes = n } }

// WithPollInterval sets how often a tail re-reads when no notification came
// (default 500ms): the fallback for a lost LISTEN connection or a
// notification the server dropped. A tail that found committed records held
// back by an older transaction looks again sooner (see Tail).
func WithPollInterval(d time.Duration) Option { return func(c *config) { c.poll = d } }

// WithReadYourWritesWait bounds how long ReadAll waits for the snapshot
// horizon to pass the newest commit it must show, the store's own or another
// writer's (default 5s); see ReadAll.
func WithReadYourWritesWait(d time.Duration) Option { return func(c *config) { c.ryw = d } }

// WithoutMigrate opens an existing journal as it is: Open neither creates
// nor changes the schema. A production host whose schema an operator
// migrates (`jobgen journal migrate`, or Migrate) opens with it, and so do
// tools that only read. Open refuses a schema that is missing
// (ErrSchemaBehind and journal.ErrNotJournal), older than this build
// (ErrSchemaBehind) or newer (ErrSchemaTooNew).
func WithoutMigrate() Option { return func(c *config) { c.noMigrate = true } }

// A Store is a journal.Tailer on PostgreSQL. Create one with Open or
// OpenPool; it is safe for concurrent use.
type Store struct {
	pool    *pgxpool.Pool
	ownPool bool
	schema  string
	name    string // "pgstore SCHEMA", for errors
	channel string // the LISTEN/NOTIFY channel
	cfg     config
	log     *slog.Logger
	sql     statements

	lockSeed int64 // keys the streams' advisory locks to this schema; see lockSeed

	// explicitTx is set once append_facts refused the session's isolation
	// level: appends then run in a transaction that names READ COMMITTED.
	explicitTx atomic.Bool

	mu          sync.Mutex
	pending     []*request // appends not yet taken by a committer
	queued      int        // entries in pending
	queuedBytes int        // their entryBytes

	gatherTarget int           // requests the next transaction may wait for; see gather
	lastCommit   time.Duration // how long the last append transaction took
	closed       bool

	work      signal        // wakes a committer: appends are pending
	stop      chan struct{} // closed by Close once pending is drained
	committed sync.WaitGroup

	lastXid atomic.Uint64 // the xid of the store's latest committed append

	tails    *broadcast // wakes the tails: a notification or a reconnect
	listenOn sync.Once
	listenWG sync.WaitGroup
	cancel   context.CancelFunc // ends the listener
	bg       context.Context
}

var _ journal.Tailer = (*Store)(nil)

// Open connects a pool to dsn (a postgres:// URL or key=value string), applies
// the embedded migrations and returns the store. Close closes the pool.
func Open(ctx context.Context, dsn string, opts ...Option) (*Store, error) {
	pcfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("pgstore: parse DSN: %w", err)
	}
	pool, err := pgxpool.NewWithConfig(ctx, pcfg)
	if err != nil {
		return nil, fmt.Errorf("pgstore: connect: %w", err)
	}
	s, err := open(ctx, pool, true, opts)
	if err != nil {
		pool.Close()
		return nil, err
	}
	return s, nil
}

// OpenPool returns a store on a pool the caller owns: Close leaves the pool
// open. The pool must reach PostgreSQL 13 or newer directly (not through a
// transaction-pooling proxy, which loses LISTEN).
func OpenPool(ctx context.Context, pool *pgxpool.Pool, opts ...Option) (*Store, error) {
	return open(ctx, pool, false, opts)
}

func open(ctx context.Context, pool *pgxpool.Pool, own bool, opts []Option) (*Store, error) {
	cfg := config{schema: DefaultSchema, committers: 1, maxBatch: 4096, poll: 500 * time.Millisecond, ryw: 5 * time.Second}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.schema == "" || len(cfg.schema) > 63 || !utf8.ValidString(cfg.schema) {
		return nil, fmt.Errorf("pgstore: schema %q: want 1 to 63 bytes of UTF-8: %w", cfg.schema, journal.ErrInvalid)
	}
	if cfg.committers < 1 {
		cfg.committers = 1
	}
	if cfg.maxBatch < 1 {
		cfg.maxBatch = 1
	}
	if cfg.maxBatchBytes < 1 {
		cfg.maxBatchBytes = DefaultMaxBatchBytes
	}
	if cfg.log == nil {
		cfg.log = slog.New(slog.DiscardHandler)
	}
	if err := prepareSchema(ctx, pool, cfg); err != nil {
		return nil, err
	}
	bg, cancel := context.WithCancel(context.Background())
	s := &Store{
		pool:     pool,
		ownPool:  own,
		schema:   cfg.schema,
		name:     "pgstore " + cfg.schema,
		channel:  cfg.schema,
		cfg:      cfg,
		log:      cfg.log,
		sql:      newStatements(cfg.schema),
		lockSeed: lockSeed(cfg.schema),
		work:     newSignal(),
		tails:    newBroadcast(),
		stop:     make(chan struct{}),
		bg:       bg,
		cancel:   cancel,
	}
	for range cfg.committers {
		s.committed.Add(1)
		go s.committer()
	}
	return s, nil
}

// prepareSchema checks the schema's version (WithoutMigrate) or migrates it.
func prepareSchema(ctx context.Context, pool *pgxpool.Pool, cfg config) error {
	if cfg.noMigrate {
		return checkVersion(ctx, pool, cfg.schema)
	}
	applied, err := Migrate(ctx, pool, cfg.schema)
	if err != nil {
		return err
	}
	if len(applied) > 0 {
		versions := make([]int, len(applied))
		for i, m := range applied {
			versions[i] = m.Version
		}
		cfg.log.Info("pgstore: migrated", "schema", cfg.schema, "versions", versions)
	}
	return nil
}

// Schema returns the schema the store's tables are in.
func (s *Store) Schema() string { return s.schema }

// Pool returns the store's connection pool.
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

// Append commits entries to stream and returns their seqs: when it returns
// nil the entries are durable (the transaction holding them committed with
// synchronous_commit as the server has it). Concurrent appends share
// transactions (client-side group commit). A failed transaction fails every
// append in it and is not retried: if its COMMIT was cut off it may have
// committed, so retry with ids, which make the retry a no-op that answers the
// first seqs. An Append whose ctx ends while queued appends nothing; once its
// transaction is in flight it returns ctx's error and the transaction
// commits or not, whole.
//
// The store reads the payloads where they are, without copying them, until
// they are sent; Append does not return before then.
func (s *Store) Append(ctx context.Context, stream journal.Stream, entries ...journal.Entry) ([]uint64, error) {
	if s.cfg.obs == nil {
		_, seqs, err := s.append(ctx, stream, entries)
		return seqs, err
	}
	began := time.Now()
	r, seqs, err := s.append(ctx, stream, entries)
	s.observeAppend(r, began, err)
	return seqs, err
}

// append is Append; it also returns the request it queued, nil when it
// queued none.
func (s *Store) append(ctx context.Context, stream journal.Stream, entries []journal.Entry) (*request, []uint64, error) {
	if err := checkStream(stream); err != nil {
		return nil, nil, fmt.Errorf("%s: append to %q: %w", s.name, stream, err)
	}
	bytes := 0
	for i, e := range entries {
		if err := checkEntry(e); err != nil {
			return nil, nil, fmt.Errorf("%s: append to %q: entry %d: %w", s.name, stream, i, err)
		}
		bytes += entryBytes(string(stream), e)
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, fmt.Errorf("%s: append to %q: %w", s.name, stream, err)
	}
	if len(entries) == 0 {
		if s.isClosed() {
			return nil, nil, s.errClosed()
		}
		return nil, []uint64{}, nil
	}
	r := &request{stream: string(stream), entries: slices.Clone(entries), bytes: bytes,
		released: make(chan struct{}), done: make(chan struct{})}
	seqs, err := s.await(ctx, r)
	return r, seqs, err
}

// AppendBatch commits every part of batch in one transaction of its own
// and returns each part's seqs; see journal.Store. It is all or nothing: a
// stream it would take past the largest seq fails every part with ErrFull.
// Like Append, it returns once the transaction committed, so the records
// are durable, and ctx's end withdraws it only while it is queued.
func (s *Store) AppendBatch(ctx context.Context, batch ...journal.Batch) ([][]uint64, error) {
	began := time.Now()
	reqs, seqs, err := s.appendBatch(ctx, batch)
	if s.cfg.obs != nil {
		if err != nil {
			s.cfg.obs.AppendFailed(err)
		}
		for _, r := range reqs {
			s.observeAppend(r, began, nil)
		}
	}
	return seqs, err
}

func (s *Store) appendBatch(ctx context.Context, batch []journal.Batch) ([]*request, [][]uint64, error) {
	var reqs []*request
	at := make([]int, len(batch)) // each part's request, or -1 for none
	for i, b := range batch {
		if err := checkStream(b.Stream); err != nil {
			return nil, nil, fmt.Errorf("%s: append batch: part %d, stream %q: %w", s.name, i, b.Stream, err)
		}
		bytes := 0
		for j, e := range b.Entries {
			if err := checkEntry(e); err != nil {
				return nil, nil, fmt.Errorf("%s: append batch: part %d, stream %q, entry %d: %w", s.name, i, b.Stream, j, err)
			}
			bytes += entryBytes(string(b.Stream), e)
		}
		at[i] = -1
		if len(b.Entries) > 0 {
			at[i] = len(reqs)
			reqs = append(reqs, &request{stream: string(b.Stream), entries: slices.Clone(b.Entries), bytes: bytes,
				released: make(chan struct{}), done: make(chan struct{})})
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, fmt.Errorf("%s: append batch: %w", s.name, err)
	}
	seqs := make([][]uint64, len(batch))
	if len(reqs) == 0 {
		if s.isClosed() {
			return nil, nil, s.errClosed()
		}
		for i := range seqs {
			seqs[i] = []uint64{}
		}
		return nil, seqs, nil
	}
	reqs[0].tied = len(reqs)
	if err := s.awaitTied(ctx, reqs); err != nil {
		return nil, nil, err
	}
	for i, k := range at {
		if k < 0 {
			seqs[i] = []uint64{}
			continue
		}
		if err := reqs[k].err; err != nil {
			return nil, nil, err
		}
		seqs[i] = reqs[k].seqs
	}
	return reqs, seqs, nil
}

// awaitTied queues the requests of one AppendBatch together and waits for
// their transaction, or withdraws them all when ctx ends first.
func (s *Store) awaitTied(ctx context.Context, reqs []*request) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return s.errClosed()
	}
	for _, r := range reqs {
		s.pending = append(s.pending, r)
		s.queued += len(r.entries)
		s.queuedBytes += r.bytes
	}
	s.mu.Unlock()
	s.work.raise()
	last := reqs[len(reqs)-1]
	select {
	case <-last.done:
		return nil
	case <-ctx.Done():
	}
	s.mu.Lock()
	if i := slices.Index(s.pending, reqs[0]); i >= 0 {
		s.pending = slices.Delete(s.pending, i, i+len(reqs))
		for _, r := range reqs {
			s.queued -= len(r.entries)
			s.queuedBytes -= r.bytes
		}
		s.mu.Unlock()
		return fmt.Errorf("%s: append batch: %w", s.name, ctx.Err())
	}
	s.mu.Unlock()
	<-last.released
	return fmt.Errorf("%s: append batch: its transaction is in flight and commits or not, whole: %w", s.name, ctx.Err())
}

// await queues r and waits for its transaction, or withdraws it when ctx
// ends first.
func (s *Store) await(ctx context.Context, r *request) ([]uint64, error) {
	stream := r.stream
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, s.errClosed()
	}
	s.pending = append(s.pending, r)
	s.queued += len(r.entries)
	s.queuedBytes += r.bytes
	s.mu.Unlock()
	s.work.raise()
	select {
	case <-r.done:
		return r.seqs, r.err
	case <-ctx.Done():
	}
	// Withdraw the request if no committer took it yet.
	s.mu.Lock()
	if i := slices.Index(s.pending, r); i >= 0 {
		s.pending = slices.Delete(s.pending, i, i+1)
		s.queued -= len(r.entries)
		s.queuedBytes -= r.bytes
		s.mu.Unlock()
		return nil, fmt.Errorf("%s: append to %q: %w", s.name, stream, ctx.Err())
	}
	s.mu.Unlock()
	<-r.released // the payloads are the caller's again
	return nil, fmt.Errorf("%s: append to %q: its transaction is in flight and commits or not, whole: %w", s.name, stream, ctx.Err())
}

// lockSeed returns the seed that keys the advisory locks of the streams of
// the store in schema, so that stores in different schemas do not share
// locks (a collision would only make two appends wait for each other).
func lockSeed(schema string) int64 {
	h := fnv.New64a()
	h.Write([]byte("jobgen.pgstore/" + schema))
	return int64(h.Sum64())
}

// Flush returns nil at once on an open store: every Append that returned nil
// committed before it returned, so nothing is left to wait for. A failed
// commit is not sticky here: it failed the appends it held, which reported it,
// and acknowledged nothing that could be lost.
func (s *Store) Flush(ctx context.Context) error {
	if s.cfg.obs == nil {
		return s.flush(ctx)
	}
	began := time.Now()
	err := s.flush(ctx)
	s.cfg.obs.Flushed(time.Since(began), err)
	return err
}

func (s *Store) flush(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s: flush: %w", s.name, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return fmt.Errorf("%s: %w", s.name, journal.ErrClosed)
	}
	return nil
}

// Close commits what is queued, stops the committers and the listener, and
// closes the pool when Open made it. It returns the error of the first failed
// queued append, if any. A second Close returns nil.
func (s *Store) Close(ctx context.Context) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	last := append([]*request(nil), s.pending...)
	s.mu.Unlock()
	// Committers drain pending before they stop.
	close(s.stop)
	s.committed.Wait()
	s.cancel()
	s.listenWG.Wait()
	s.tails.raise()
	if s.ownPool {
		s.pool.Close()
	}
	for _, r := range last {
		<-r.done
		if r.err != nil {
			return fmt.Errorf("%s: close: %w", s.name, r.err)
		}
	}
	return nil
}

// isClosed reports whether Close began.
func (s *Store) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

// checkStream reports why name cannot be a stream, or nil.
func checkStream(name journal.Stream) error {
	if len(name) == 0 || len(name) > journal.MaxStreamBytes {
		return fmt.Errorf("stream name of %d bytes, want 1 to %d: %w", len(name), journal.MaxStreamBytes, journal.ErrInvalid)
	}
	return checkText("stream name", string(name))
}

// checkText refuses invalid UTF-8 and control characters (PostgreSQL's text
// holds no NUL byte, and names are printed by tools).
func checkText(what, s string) error {
	if !utf8.ValidString(s) {
		return fmt.Errorf("%s is not valid UTF-8: %w", what, journal.ErrInvalid)
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return fmt.Errorf("%s holds control character %U: %w", what, r, journal.ErrInvalid)
		}
	}
	return nil
}

// checkEntry reports why e cannot be appended, or nil.
func checkEntry(e journal.Entry) error {
	if len(e.ID) > journal.MaxIDBytes {
		return fmt.Errorf("id of %d bytes, want at most %d: %w", len(e.ID), journal.MaxIDBytes, journal.ErrInvalid)
	}
	if err := checkText("id", e.ID); err != nil {
		return err
	}
	p := e.Payload
	switch {
	case len(p) == 0:
		return fmt.Errorf("empty payload: %w", journal.ErrInvalid)
	case len(p) > journal.MaxPayloadBytes:
		return fmt.Errorf("payload of %d bytes, want at most %d: %w", len(p), journal.MaxPayloadBytes, journal.ErrTooLarge)
	}
	for _, b := range p {
		if b == '\n' {
			return fmt.Errorf("payload holds a newline: %w", journal.ErrInvalid)
		}
	}
	if !utf8.Valid(p) || !json.Valid(p) {
		return fmt.Errorf("payload is not one JSON value in UTF-8: %w", journal.ErrInvalid)
	}
	return nil
}

// errClosed reports a method called after Close.
func (s *Store) errClosed() error { return fmt.Errorf("%s: %w", s.name, journal.ErrClosed) }
