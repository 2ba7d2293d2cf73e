package journal

import (
	"errors"
	"path/filepath"
	"testing"
)

// AppendEncoded does not parse payloads, but still refuses what cannot be a
// generated encoder's object, and everything Append refuses for its names
// and length; what it appends reads back like Append's.
func TestAppendEncoded(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "encoded.journal"))
	defer s.close()
	ctx := t.Context()
	for _, tc := range []struct {
		name    string
		stream  Stream
		payload string
		want    error
	}{
		{"empty", testStream, ``, ErrInvalid},
		{"not an object", testStream, `[1,2]`, ErrInvalid},
		{"cut short", testStream, `{"type":"x"`, ErrInvalid},
		{"a newline", testStream, "{\"a\":\n1}", ErrInvalid},
		{"a control character in the stream", "s\x7f", `{}`, ErrInvalid},
		{"too long", testStream, `{"a":"` + string(make([]byte, MaxRecordBytes)) + `"}`, ErrTooLarge},
	} {
		if _, err := s.AppendEncoded(ctx, tc.stream, Entry{Payload: []byte(tc.payload)}); !errors.Is(err, tc.want) {
			t.Errorf("%s: AppendEncoded = %v, want %v", tc.name, err, tc.want)
		}
	}
	if lastSeq(t, s, testStream) != 0 {
		t.Fatal("a refused entry was appended")
	}
	for i := 1; i <= 3; i++ {
		if seqs, err := s.AppendEncoded(ctx, testStream, Entry{Payload: payload(t, i)}); err != nil || seqs[0] != uint64(i) {
			t.Fatalf("AppendEncoded = %v, %v; want seq %d", seqs, err, i)
		}
	}
	if err := s.close(); err != nil {
		t.Fatal(err)
	}
	wantPayloads(t, records(t, s.Path()), 3)
}
