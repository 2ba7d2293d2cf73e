package journal

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
)

// Cat prints each record as {"pos","stream","seq","fact"} JSON lines, the
// position as the string "MAJOR.MINOR" and the fact verbatim, then reports
// damage after the records before it.
func TestCat(t *testing.T) {
	path, off := makeJournal(t, 2)
	var out bytes.Buffer
	if err := Cat(&out, ReadFile(path)); err != nil {
		t.Fatal(err)
	}
	want := `{"pos":"0.1","stream":"test","seq":1,"fact":` + string(payload(t, 1)) + "}\n" +
		`{"pos":"0.2","stream":"test","seq":2,"fact":` + string(payload(t, 2)) + "}\n"
	if out.String() != want {
		t.Fatalf("Cat printed\n%s\nwant\n%s", out.String(), want)
	}
	for line := range strings.Lines(out.String()) {
		if !json.Valid([]byte(line)) {
			t.Fatalf("line %q is not JSON", line)
		}
	}
	full, _ := os.ReadFile(path)
	os.WriteFile(path, full[:off[2]-5], 0o644)
	out.Reset()
	err := Cat(&out, ReadFile(path))
	if !errors.Is(err, ErrTornTail) || strings.Count(out.String(), "\n") != 1 {
		t.Fatalf("Cat of a torn file printed %q and returned %v", out.String(), err)
	}
}

// Check passes an intact file with a summary and names the first bad record.
func TestCheck(t *testing.T) {
	path, off := makeJournal(t, 3)
	sum, err := Check(path)
	if err != nil || sum != (Summary{Version: 2, Records: 3, Streams: 1, FirstPos: 1, LastPos: 3, Good: off[3]}) {
		t.Fatalf("Check = %+v, %v", sum, err)
	}
	full, _ := os.ReadFile(path)
	os.WriteFile(path, full[:off[3]-1], 0o644)
	if _, err := Check(path); !errors.Is(err, ErrTornTail) || !strings.Contains(err.Error(), "offset "+itoa(off[2])) {
		t.Fatalf("Check of a torn file = %v, want ErrTornTail at %d", err, off[2])
	}
	empty := t.TempDir() + "/empty"
	os.WriteFile(empty, nil, 0o644)
	if _, err := Check(empty); !errors.Is(err, ErrNotJournal) || !strings.Contains(err.Error(), "empty") {
		t.Fatalf("Check of an empty file = %v", err)
	}
	if _, err := Check(t.TempDir()); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Fatalf("Check of a directory = %v", err)
	}
}

// Cat prints a store's global order as it prints the store's file, ids
// included.
func TestCatOverStore(t *testing.T) {
	path := t.TempDir() + "/cat.journal"
	s := open(t, path)
	ctx := context.Background()
	if _, err := s.Append(ctx, "a", Entry{ID: `k"1`, Payload: payload(t, 1)}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Append(ctx, "b", Entry{Payload: payload(t, 2)}); err != nil {
		t.Fatal(err)
	}
	var fromStore, fromFile bytes.Buffer
	if err := Cat(&fromStore, s.ReadAll(ctx, Position{})); err != nil {
		t.Fatal(err)
	}
	if err := s.close(); err != nil {
		t.Fatal(err)
	}
	if err := Cat(&fromFile, ReadFile(path)); err != nil {
		t.Fatal(err)
	}
	want := `{"pos":"0.1","stream":"a","seq":1,"id":"k\"1","fact":` + string(payload(t, 1)) + "}\n" +
		`{"pos":"0.2","stream":"b","seq":1,"fact":` + string(payload(t, 2)) + "}\n"
	if fromStore.String() != want || fromFile.String() != want {
		t.Fatalf("Cat of the store:\n%s\nof the file:\n%s\nwant:\n%s", fromStore.String(), fromFile.String(), want)
	}
}

// TestCatPrintsOnePositionType (decision 0092): whatever the store, a
// position is the JSON string Position.String writes, which ParsePosition
// reads back: a file's (major 0) as a PostgreSQL store's (major and minor).
func TestCatPrintsOnePositionType(t *testing.T) {
	positions := []Position{{Minor: 17}, {Major: 752, Minor: 1}, {Major: 1 << 40, Minor: 1<<64 - 1}}
	records := func(yield func(Record, error) bool) {
		for i, p := range positions {
			if !yield(Record{Pos: p, Stream: "s", Seq: uint64(i + 1), Payload: []byte(`{"type":"t","v":1,"data":{}}`)}, nil) {
				return
			}
		}
	}
	var out bytes.Buffer
	if err := Cat(&out, records); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != len(positions) {
		t.Fatalf("Cat printed %d lines, want %d:\n%s", len(lines), len(positions), out.String())
	}
	for i, line := range lines {
		var got struct {
			Pos any `json:"pos"`
		}
		if err := json.Unmarshal([]byte(line), &got); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		s, ok := got.Pos.(string)
		if !ok {
			t.Errorf("line %q: pos is a %T, want the string %q", line, got.Pos, positions[i].String())
			continue
		}
		if p, err := ParsePosition(s); err != nil || p != positions[i] || s != positions[i].String() {
			t.Errorf("line %q: pos %q reads back as %v, %v; want %v", line, s, p, err, positions[i])
		}
	}
}
