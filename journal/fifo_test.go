//go:build unix

package journal

import (
	"errors"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestFIFOIsRefused: a FIFO passed to Open, Check or ReadFile is refused at
// once, not read forever.
func TestFIFOIsRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fifo.journal")
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Fatal(err)
	}
	for name, call := range map[string]func() error{
		"Open":  func() error { _, err := Open(path, WithLogger(discard())); return err },
		"Check": func() error { _, err := Check(path); return err },
		"ReadFile": func() error {
			for _, err := range ReadFile(path) {
				return err
			}
			return nil
		},
	} {
		done := make(chan error, 1)
		go func() { done <- call() }()
		select {
		case err := <-done:
			if !errors.Is(err, ErrNotJournal) {
				t.Errorf("%s of a FIFO = %v, want ErrNotJournal", name, err)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s of a FIFO hangs", name) // the goroutine stays blocked; the test binary exits
		}
	}
}
