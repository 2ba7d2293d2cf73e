package agenttools_test

import (
	"testing"
	"unicode/utf8"

	"pgregory.net/rapid"

	"github.com/jobgen/jobgen/generated/jobs"
)

// perByte is the rule the record and job_output share: each byte that
// begins no valid UTF-8 sequence is one U+FFFD, as a Go range loop and
// encoding/json read it.
func perByte(b []byte) string {
	var out []rune
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		out = append(out, r) // RuneError for an invalid byte, size 1
		b = b[size:]
	}
	return string(out)
}

// The text job_output hands out is the same whichever way the producer's
// reads split the bytes: a run of invalid bytes read in one read or in
// several gives one U+FFFD per byte, and a rune split across reads is
// joined, as the package doc promises.
func TestJobOutputTextDoesNotDependOnHowReadsSplit(t *testing.T) {
	pieces := [][]byte{[]byte("a"), []byte("é"), []byte("€"), []byte("𝄞"), {0xff}, {0xe2, 0x82}, {0xf0, 0x9d}, {0x80}, {0xed, 0xa0, 0x80}}
	rapid.Check(t, func(rt *rapid.T) {
		var written []byte
		for _, i := range rapid.SliceOfN(rapid.IntRange(0, len(pieces)-1), 1, 12).Draw(rt, "pieces") {
			written = append(written, pieces[i]...)
		}
		f := newFixture(t)
		j := f.start(jobSpec{owner: "a", consuming: true})
		s := f.tools.For("a")
		var got string
		for rest := written; len(rest) > 0; {
			n := rapid.IntRange(1, len(rest)).Draw(rt, "read")
			j.write(string(rest[:n]))
			rest = rest[n:]
			got += output(t, s, j.snap.ID, 0).Output
		}
		j.settle(jobs.JobStatusCompleted, "", "")
		got += output(t, s, j.snap.ID, 0).Output
		if want := perByte(written); got != want {
			rt.Fatalf("% x read as %q, want %q (one U+FFFD per invalid byte)", written, got, want)
		}
	})
}
