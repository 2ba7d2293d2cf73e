package journal_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/jobgen/jobgen/journal"
)

// A file store is opened, two records are appended to a stream (one of them
// retried with the same id, which appends nothing), flushed to disk, and read
// back after the store is closed and opened again.
func Example() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "journal-example-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "jobs.journal")

	store, err := journal.Open(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	const session journal.Stream = "session-1"
	seqs, err := store.Append(ctx, session,
		journal.Entry{ID: "job-1/registered", Payload: []byte(`{"fact":"job/registered","job":"job-1"}`)},
		journal.Entry{ID: "job-1/settled", Payload: []byte(`{"fact":"job/settled","job":"job-1"}`)})
	fmt.Println("appended at seqs", seqs, err)
	again, err := store.Append(ctx, session, journal.Entry{ID: "job-1/settled", Payload: []byte(`{"fact":"job/settled","job":"job-1"}`)})
	fmt.Println("retried append answers", again, err)
	// Appends are durable once a Flush that began after them returns.
	if err := store.Flush(ctx); err != nil {
		fmt.Println(err)
		return
	}
	if err := store.Close(ctx); err != nil {
		fmt.Println(err)
		return
	}

	store, err = journal.Open(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer store.Close(ctx)
	for rec, err := range store.ReadStream(ctx, session, 0) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s #%d %s %s\n", rec.Stream, rec.Seq, rec.ID, rec.Payload)
	}
	// Output:
	// appended at seqs [1 2] <nil>
	// retried append answers [2] <nil>
	// session-1 #1 job-1/registered {"fact":"job/registered","job":"job-1"}
	// session-1 #2 job-1/settled {"fact":"job/settled","job":"job-1"}
}
