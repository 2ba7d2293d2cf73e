package journal_test

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/jobgen/jobgen/journal"
	"github.com/jobgen/jobgen/journal/storetest"
)

// The file backend keeps every promise of journal.Store.
func TestFileStoreConformance(t *testing.T) {
	var mu sync.Mutex
	dirs := map[*testing.T]string{}
	files := map[string]*syncedFile{}
	openFile := func(path string) (journal.File, error) {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return nil, err
		}
		sf := &syncedFile{File: f}
		mu.Lock()
		files[path] = sf
		mu.Unlock()
		return sf, nil
	}
	open := func(t *testing.T) journal.Store {
		mu.Lock()
		dir, ok := dirs[t]
		if !ok {
			dir = t.TempDir()
			dirs[t] = dir
		}
		mu.Unlock()
		return openAt(t, filepath.Join(dir, "conformance.journal"), journal.WithBufferSize(512), journal.WithOpenFile(openFile))
	}
	// A crash keeps what the store synced: a copy of the file's synced
	// prefix, opened as a process restarting on it would.
	crash := func(t *testing.T, s journal.Store) journal.Store {
		path := s.(*journal.FileStore).Path()
		mu.Lock()
		sf := files[path]
		mu.Unlock()
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		copyPath := filepath.Join(t.TempDir(), "crashed.journal")
		if err := os.WriteFile(copyPath, data[:sf.durable()], 0o644); err != nil {
			t.Fatal(err)
		}
		return openAt(t, copyPath)
	}
	storetest.Run(t, open, storetest.WithCrash(crash), storetest.WithFull(func(t *testing.T, stream journal.Stream) journal.Store {
		path := filepath.Join(t.TempDir(), "full.journal")
		file := `{"format":"jobgen-journal","version":2}` + "\n" + docRecord(1, stream, journal.MaxSeq, `{"full":true}`)
		if err := os.WriteFile(path, []byte(file), 0o644); err != nil {
			t.Fatal(err)
		}
		return openAt(t, path)
	}))
}

// A syncedFile is a journal file that knows how much of it a Sync made
// durable: the offset its writes reached when the last Sync returned.
type syncedFile struct {
	*os.File
	mu     sync.Mutex
	synced int64
}

func (f *syncedFile) Sync() error {
	end, err := f.File.Seek(0, io.SeekCurrent)
	if err != nil {
		return err
	}
	if err := f.File.Sync(); err != nil {
		return err
	}
	f.mu.Lock()
	f.synced = max(f.synced, end)
	f.mu.Unlock()
	return nil
}

func (f *syncedFile) durable() int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.synced
}

func openAt(t *testing.T, path string, opts ...journal.Option) *journal.FileStore {
	t.Helper()
	s, err := journal.Open(path, append(opts, journal.WithLogger(slog.New(slog.DiscardHandler)))...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// docRecord writes a record line without an id the way journal/doc.go lays
// it out, for a stream name that needs no escaping.
func docRecord(pos uint64, stream journal.Stream, seq uint64, fact string) string {
	b := []byte(fact)
	b = binary.BigEndian.AppendUint32(b, uint32(len(stream)))
	b = append(b, stream...)
	b = binary.BigEndian.AppendUint32(b, 0)
	b = binary.BigEndian.AppendUint64(b, seq)
	b = binary.BigEndian.AppendUint64(b, pos)
	crc := crc32.Checksum(b, crc32.MakeTable(crc32.Castagnoli))
	return fmt.Sprintf(`{"pos":%d,"stream":"%s","seq":%d,"crc32c":"%08x","fact":%s}`+"\n", pos, stream, seq, crc, fact)
}
