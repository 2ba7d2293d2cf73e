package pgstore

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/jobgen/jobgen/journal"
)

func errorsIsClosed(err error) bool { return errors.Is(err, journal.ErrClosed) }

// terminate ends the server process behind conn from another connection, as
// a network cut or a server-side kill would.
func terminate(ctx context.Context, t *testing.T, s *Store, conn *pgx.Conn) {
	var ok bool
	if err := s.Pool().QueryRow(ctx, `SELECT pg_terminate_backend($1)`, int32(conn.PgConn().PID())).Scan(&ok); err != nil || !ok {
		t.Errorf("pg_terminate_backend: %v %v", ok, err)
	}
}

func TestAConnectionDroppedBeforeCommitFailsEveryAppendInItAndARetryAppendsOnce(t *testing.T) {
	ctx := context.Background()
	var calls atomic.Int32
	queued := make(chan struct{})
	var s *Store
	s = openTest(t, WithCommitters(1), withHooks(&hooks{
		beforeCommit: func(ctx context.Context, conn *pgx.Conn) error {
			switch calls.Add(1) {
			case 1:
				<-queued // the other appends queue behind this transaction
				terminate(ctx, t, s, conn)
			case 2:
				terminate(ctx, t, s, conn)
			}
			return nil
		},
	}))
	const appenders = 8
	var wg sync.WaitGroup
	errs := make([]error, appenders)
	batch := func(i int) []journal.Entry { return entries(string(rune('a'+i)), 3, true) }
	wg.Go(func() {
		_, errs[0] = s.Append(ctx, "s", batch(0)...)
	})
	for calls.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	for i := 1; i < appenders; i++ {
		wg.Go(func() {
			_, errs[i] = s.Append(ctx, "s", batch(i)...)
		})
	}
	for {
		s.mu.Lock()
		n := len(s.pending)
		s.mu.Unlock()
		if n == appenders-1 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	close(queued)
	wg.Wait()
	for i, err := range errs {
		if err == nil {
			t.Fatalf("append %d succeeded through a dropped connection", i)
		}
	}
	if calls.Load() != 2 {
		t.Fatalf("%d transactions for %d appends, want 2 (the queued ones share one)", calls.Load(), appenders)
	}
	if n := len(readStream(t, s, "s", 0)); n != 0 {
		t.Fatalf("%d records after two rolled-back transactions", n)
	}
	// The store is not wedged; the retries, with their ids, append once.
	for i := range appenders {
		if _, err := s.Append(ctx, "s", batch(i)...); err != nil {
			t.Fatalf("retry %d: %v", i, err)
		}
		if _, err := s.Append(ctx, "s", batch(i)...); err != nil {
			t.Fatalf("second retry %d: %v", i, err)
		}
	}
	recs := readGapFree(t, s, "s")
	if len(recs) != appenders*3 {
		t.Fatalf("%d records, want %d", len(recs), appenders*3)
	}
}

func TestACommitWhoseReplyIsLostIsRetriedWithIDsWithoutDuplicates(t *testing.T) {
	ctx := context.Background()
	var lost atomic.Bool
	lost.Store(true)
	s := openTest(t, withHooks(&hooks{
		afterCommit: func() error {
			if lost.Swap(false) {
				return errors.New("connection reset by peer (injected after COMMIT)")
			}
			return nil
		},
	}))
	es := entries("e", 4, true)
	if _, err := s.Append(ctx, "s", es...); err == nil {
		t.Fatal("the append whose reply was lost succeeded")
	}
	seqs, err := s.Append(ctx, "s", es...)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(seqs, []uint64{1, 2, 3, 4}) {
		t.Fatalf("retry answered %v, want the first attempt's [1 2 3 4]", seqs)
	}
	recs := readGapFree(t, s, "s")
	if len(recs) != 4 {
		t.Fatalf("%d records, want 4", len(recs))
	}
}

func TestAppendWithdrawnByItsContextWhileQueuedAppendsNothing(t *testing.T) {
	inTx, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	s := openTest(t, WithCommitters(1), withHooks(&hooks{
		beforeCommit: func(context.Context, *pgx.Conn) error {
			once.Do(func() { close(inTx); <-release })
			return nil
		},
	}))
	bg := context.Background()
	done := make(chan error, 1)
	go func() {
		_, err := s.Append(bg, "s", journal.Entry{Payload: fact("first")})
		done <- err
	}()
	<-inTx
	ctx, cancel := context.WithTimeout(bg, 50*time.Millisecond)
	defer cancel()
	if _, err := s.Append(ctx, "s", journal.Entry{Payload: fact("withdrawn")}); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("queued append past its deadline: %v", err)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if _, err := s.Append(bg, "s", journal.Entry{Payload: fact("second")}); err != nil {
		t.Fatal(err)
	}
	recs := readGapFree(t, s, "s")
	if len(recs) != 2 || string(recs[1].Payload) != string(fact("second")) {
		t.Fatalf("records %v", recs)
	}
}
