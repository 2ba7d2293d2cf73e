package registry_test

import (
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/registry"
)

// The record holds valid UTF-8. Invalid bytes are
// replaced at append, each by U+FFFD (as encoding/json and a Go range loop
// read them), so offsets counted in Go are the offsets a reader of the JSON
// wire counts: Offset+len(Text) == Next after a round trip.
func TestAppendReplacesInvalidUTF8(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
	}{
		{"valid", "héllo", "héllo"},
		{"stray byte", "ok\xffok", "ok\uFFFDok"},
		{"truncated rune", "日\xe6\x9c", "日\uFFFD\uFFFD"},
		{"surrogate half", "a\xed\xa0\x80b", "a\uFFFD\uFFFD\uFFFDb"},
		{"replacement char kept", "\uFFFD", "\uFFFD"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := registry.New()
			var face jobs.RecordingJob
			snap := mustStart(t, r, recordingStart("", "bash", newProducer(), &face))
			face.Append(tc.in, jobs.AppendOptions{})
			rd, err := r.ReadRecord("", snap.ID, 0)
			if err != nil || len(rd.Chunks) != 1 {
				t.Fatalf("ReadRecord = %+v, %v", rd, err)
			}
			c := rd.Chunks[0]
			if c.Text != tc.want || !utf8.ValidString(c.Text) {
				t.Fatalf("chunk text %q; want %q", c.Text, tc.want)
			}
			if rd.Next != int64(len(tc.want)) {
				t.Fatalf("Next = %d; want %d, the stored bytes", rd.Next, len(tc.want))
			}
			wire, err := json.Marshal(rd)
			if err != nil {
				t.Fatal(err)
			}
			var back jobs.RecordRead
			if err := json.Unmarshal(wire, &back); err != nil {
				t.Fatal(err)
			}
			last := back.Chunks[len(back.Chunks)-1]
			if last.Offset+int64(len(last.Text)) != back.Next {
				t.Fatalf("on the wire Offset %d + len(Text) %d != Next %d", last.Offset, len(last.Text), back.Next)
			}
		})
	}
}

// A replaced append that is larger than the retention keeps a tail that is
// still valid UTF-8.
func TestOversizedInvalidAppendKeepsValidTail(t *testing.T) {
	r := registry.New(registry.WithLimits(registry.Limits{RetainBytes: 8}))
	var face jobs.RecordingJob
	snap := mustStart(t, r, recordingStart("", "bash", newProducer(), &face))
	face.Append("\xff\xff\xff\xff\xff", jobs.AppendOptions{})
	rd, err := r.ReadRecord("", snap.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	if rd.Next != 15 || len(rd.Chunks) != 1 || rd.Chunks[0].Text != "\uFFFD\uFFFD" || !rd.Chunks[0].GapBefore {
		t.Fatalf("ReadRecord = %+v; want the last two replacement characters, gap before, Next 15", rd)
	}
}
