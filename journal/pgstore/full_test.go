package pgstore

import (
	"context"
	"errors"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/jobgen/jobgen/journal"
)

func TestAFullStreamRefusesWhatDoesNotFitAndTheRestOfItsTransactionCommits(t *testing.T) {
	ctx := context.Background()
	inTx, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	var armed atomic.Bool
	s := openTest(t, WithCommitters(1), withHooks(&hooks{
		beforeCommit: func(context.Context, *pgx.Conn) error {
			if !armed.Load() {
				return nil
			}
			once.Do(func() { close(inTx); <-release })
			return nil
		},
	}))
	if _, err := s.Append(ctx, "full", journal.Entry{Payload: fact("first")}); err != nil {
		t.Fatal(err)
	}
	// Wind the counter to two short of the largest seq (forward moves are allowed).
	if _, err := s.Pool().Exec(ctx, `UPDATE `+s.sql.table("stream")+` SET head = $1 WHERE name = 'full'`, int64(math.MaxInt64-2)); err != nil {
		t.Fatal(err)
	}
	// Hold a transaction open so that the next two appends share one.
	armed.Store(true)
	held := make(chan error, 1)
	go func() {
		_, err := s.Append(ctx, "other", journal.Entry{Payload: fact("holder")})
		held <- err
	}()
	<-inTx
	type result struct {
		seqs []uint64
		err  error
	}
	tooMany, fits := make(chan result, 1), make(chan result, 1)
	go func() {
		seqs, err := s.Append(ctx, "full", entries("x", 3, false)...)
		tooMany <- result{seqs, err}
	}()
	go func() {
		seqs, err := s.Append(ctx, "other", journal.Entry{Payload: fact("fits")})
		fits <- result{seqs, err}
	}()
	for {
		s.mu.Lock()
		n := len(s.pending)
		s.mu.Unlock()
		if n == 2 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	close(release)
	if err := <-held; err != nil {
		t.Fatal(err)
	}
	if r := <-tooMany; !errors.Is(r.err, journal.ErrFull) {
		t.Fatalf("three entries past the largest seq: %v %v, want ErrFull", r.seqs, r.err)
	}
	if r := <-fits; r.err != nil || !slices.Equal(r.seqs, []uint64{2}) {
		t.Fatalf("the other append of the same transaction: %v %v, want [2]", r.seqs, r.err)
	}
	seqs, err := s.Append(ctx, "full", entries("y", 2, false)...)
	if err != nil || !slices.Equal(seqs, []uint64{math.MaxInt64 - 1, math.MaxInt64}) {
		t.Fatalf("the last two seqs: %v %v", seqs, err)
	}
	if _, err := s.Append(ctx, "full", journal.Entry{Payload: fact("z")}); !errors.Is(err, journal.ErrFull) {
		t.Fatalf("an append to a full stream: %v, want ErrFull", err)
	}
	recs := readStream(t, s, "full", 0)
	if len(recs) != 3 || recs[2].Seq != math.MaxInt64 {
		t.Fatalf("full stream holds %d records, last %v", len(recs), recs[len(recs)-1].Seq)
	}
}
