package journal

import "time"

// An Observer receives a FileStore's metric events (WithObserver), for a
// metrics adapter such as package otelmetrics. The store calls it after
// unlocking, on the caller's goroutine, so it may be called concurrently and
// must return promptly.
type Observer interface {
	// Appended reports an Append that accepted records: how many were new
	// (entries whose id the stream already held add none) and the bytes their
	// records take in the file, framing included. An Append that accepted
	// records and then failed to write its full buffer reports both this and
	// AppendFailed.
	Appended(records int, bytes int64)
	// AppendFailed reports an Append that returned err: refused input
	// (ErrInvalid, ErrTooLarge, ErrFull), a failed store (ErrFailed,
	// ErrClosed) or an ended context.
	AppendFailed(err error)
	// Flushed reports a Flush that returned err after d, the time its caller
	// waited for durability (the write and sync, or another flusher's).
	Flushed(d time.Duration, err error)
}
