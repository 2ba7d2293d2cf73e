package journal

import (
	"hash/crc32"
	"strings"
	"testing"
)

// The checksum is standard CRC-32C, so readers in other languages can use
// their library's.
func TestChecksumIsCastagnoli(t *testing.T) {
	if got := crc32.Checksum([]byte("123456789"), castagnoli); got != 0xe3069283 {
		t.Fatalf("CRC-32C check value = %08x, want e3069283", got)
	}
	// The payload, then the seq as eight big-endian bytes.
	want := crc32.Checksum([]byte("{}\x01\x02\x03\x04\x05\x06\x07\x08"), castagnoli)
	if got := checksum(0x0102030405060708, []byte("{}")); got != want {
		t.Fatalf("checksum = %08x, want %08x", got, want)
	}
}

// A record is exactly the documented bytes.
func TestRecordBytes(t *testing.T) {
	got := string(appendRecord(nil, 42, []byte(`{"type":"x","v":1,"data":{}}`)))
	sum := checksum(42, []byte(`{"type":"x","v":1,"data":{}}`))
	want := `{"seq":42,"crc32c":"` + string(appendHex32(nil, sum)) + `","fact":{"type":"x","v":1,"data":{}}}` + "\n"
	if got != want {
		t.Fatalf("record = %q, want %q", got, want)
	}
	if len(header) != 40 || !strings.HasSuffix(header, "\n") {
		t.Fatalf("header %q is not the documented 39 bytes and a newline", header)
	}
	seq, p, err := parseRecord([]byte(strings.TrimSuffix(got, "\n")))
	if err != nil || seq != 42 || string(p) != `{"type":"x","v":1,"data":{}}` {
		t.Fatalf("parseRecord = %d, %q, %v", seq, p, err)
	}
}

// parseRecord accepts only the exact framing with a matching checksum.
func TestParseRecordRejects(t *testing.T) {
	good := strings.TrimSuffix(string(appendRecord(nil, 7, []byte(`{"a":1}`))), "\n")
	crc := good[len(`{"seq":7,"crc32c":"`):][:8]
	for _, tc := range []struct{ name, line, why string }{
		{"empty", "", "does not start"},
		{"space", `{ "seq":7` + good[len(`{"seq":7`):], "does not start"},
		{"leading zero", `{"seq":07` + good[len(`{"seq":7`):], "leading zeros"},
		{"zero seq", strings.Replace(good, `"seq":7`, `"seq":0`, 1), "positive"},
		{"negative seq", strings.Replace(good, `"seq":7`, `"seq":-7`, 1), "positive"},
		{"huge seq", strings.Replace(good, `"seq":7`, `"seq":99999999999999999999`, 1), "out of range"},
		{"other seq", strings.Replace(good, `"seq":7`, `"seq":8`, 1), "crc32c mismatch"},
		{"upper hex", strings.Replace(good, crc, strings.ToUpper(crc), 1), "hex"},
		{"short crc", strings.Replace(good, crc, crc[:7], 1), "hex"},
		{"no fact", good[:strings.Index(good, `,"fact"`)] + "}", "no fact field"},
		{"empty fact", good[:strings.Index(good, `"fact":`)+7] + "}", "does not end"},
		{"no brace", strings.TrimSuffix(good, "}"), "crc32c mismatch"},
		{"payload changed", strings.Replace(good, `{"a":1}`, `{"a":2}`, 1), "crc32c mismatch"},
		{"trailing", good + " ", "does not end"},
	} {
		if _, _, err := parseRecord([]byte(tc.line)); err == nil || !strings.Contains(err.Error(), tc.why) {
			t.Errorf("%s: parseRecord(%q) = %v, want an error containing %q", tc.name, tc.line, err, tc.why)
		}
	}
}
