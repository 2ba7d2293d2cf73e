package journal

import (
	"hash/crc32"
	"strings"
	"testing"
)

// The checksum is standard CRC-32C over the documented bytes, so readers in
// other languages can use their library's.
func TestChecksumIsCastagnoli(t *testing.T) {
	if got := crc32.Checksum([]byte("123456789"), castagnoli); got != 0xe3069283 {
		t.Fatalf("CRC-32C check value = %08x, want e3069283", got)
	}
	// Version 1: the payload, then the seq as eight big-endian bytes.
	want := crc32.Checksum([]byte("{}\x01\x02\x03\x04\x05\x06\x07\x08"), castagnoli)
	if got := checksumV1(0x0102030405060708, []byte("{}")); got != want {
		t.Fatalf("v1 checksum = %08x, want %08x", got, want)
	}
	// Version 2: the payload, the stream and the id each after its length as
	// four big-endian bytes, then the seq and the position as eight.
	want = crc32.Checksum([]byte("{}"+"\x00\x00\x00\x02s1"+"\x00\x00\x00\x01k"+
		"\x00\x00\x00\x00\x00\x00\x00\x07"+"\x00\x00\x00\x00\x00\x00\x01\x00"), castagnoli)
	if got := checksumV2(256, "s1", 7, "k", []byte("{}")); got != want {
		t.Fatalf("v2 checksum = %08x, want %08x", got, want)
	}
}

// A reader's checksum of a record, laid out in a buffer it reuses, is the
// writer's, whatever the lengths of its stream and id.
func TestReadersChecksumIsTheWriters(t *testing.T) {
	fact := []byte(`{"type":"x","v":1,"data":{"a":[1,2,3]}}`)
	var scratch []byte
	for ns := 1; ns <= MaxStreamBytes; ns += 7 {
		for _, ni := range []int{0, 1, 40, 71 - ns, 72 - ns, 73 - ns, MaxIDBytes} {
			if ni < 0 {
				continue
			}
			stream, id := Stream(strings.Repeat("s", ns)), strings.Repeat("i", ni)
			want := withU64(withU64(metaCRC(fact, stream, id), 1<<40+3), 1<<50+9)
			if got := checksumV2In(&scratch, 1<<50+9, stream, 1<<40+3, id, fact); got != want {
				t.Fatalf("stream of %d bytes, id of %d: checksum %08x, the writer's %08x", ns, ni, got, want)
			}
		}
	}
}

// A record is exactly the documented bytes, with and without an id, with
// `"` and `\` escaped in names.
func TestRecordBytes(t *testing.T) {
	fact := []byte(`{"type":"x","v":1,"data":{}}`)
	for _, tc := range []struct {
		stream   Stream
		id, want string
	}{
		{"s1", "", `{"pos":9,"stream":"s1","seq":42,"crc32c":"%s","fact":{"type":"x","v":1,"data":{}}}` + "\n"},
		{`a"b\c`, "k-1", `{"pos":9,"stream":"a\"b\\c","seq":42,"id":"k-1","crc32c":"%s","fact":{"type":"x","v":1,"data":{}}}` + "\n"},
	} {
		got := string(appendRecord(nil, 9, tc.stream, 42, tc.id, fact, metaCRC(fact, tc.stream, tc.id)))
		want := strings.Replace(tc.want, "%s", string(appendHex32(nil, checksumV2(9, tc.stream, 42, tc.id, fact))), 1)
		if got != want {
			t.Fatalf("record = %q, want %q", got, want)
		}
		fr, err := parseRecord([]byte(strings.TrimSuffix(got, "\n")), 2)
		if err != nil || fr.pos != 9 || fr.seq != 42 || fr.stream != tc.stream || fr.id != tc.id || string(fr.payload) != string(fact) {
			t.Fatalf("parseRecord = %+v, %v", fr, err)
		}
	}
	if len(header) != 40 || !strings.HasSuffix(header, "\n") || len(headerV1) != 40 {
		t.Fatalf("header %q is not the documented 39 bytes and a newline", header)
	}
}

// parseRecord accepts only the exact framing with a matching checksum over
// one JSON value.
func TestParseRecordRejects(t *testing.T) {
	good := strings.TrimSuffix(string(recLine(7, []byte(`{"a":1}`))), "\n")
	crc := good[strings.Index(good, `"crc32c":"`)+10:][:8]
	for _, tc := range []struct{ name, line, why string }{
		{"empty", "", "does not start"},
		{"space", `{ "pos":7` + good[len(`{"pos":7`):], "does not start"},
		{"leading zero", `{"pos":07` + good[len(`{"pos":7`):], "leading zeros"},
		{"zero pos", strings.Replace(good, `"pos":7`, `"pos":0`, 1), "positive"},
		{"negative seq", strings.Replace(good, `"seq":7`, `"seq":-7`, 1), "positive"},
		{"huge seq", strings.Replace(good, `"seq":7`, `"seq":99999999999999999999`, 1), "out of range"},
		{"other seq", strings.Replace(good, `"seq":7`, `"seq":8`, 1), "crc32c mismatch"},
		{"other pos", strings.Replace(good, `"pos":7`, `"pos":8`, 1), "crc32c mismatch"},
		{"other stream", strings.Replace(good, `"stream":"test"`, `"stream":"tess"`, 1), "crc32c mismatch"},
		{"empty stream", strings.Replace(good, `"stream":"test"`, `"stream":""`, 1), "stream"},
		{"bad escape", strings.Replace(good, `"stream":"test"`, `"stream":"te\nst"`, 1), "stream"},
		{"upper hex", strings.Replace(good, crc, strings.ToUpper(crc), 1), "hex"},
		{"short crc", strings.Replace(good, crc, crc[:7], 1), "hex"},
		{"no fact", good[:strings.Index(good, `,"fact"`)] + "}", "no fact field"},
		{"empty fact", good[:strings.Index(good, `"fact":`)+7] + "}", "does not end"},
		{"no brace", strings.TrimSuffix(good, "}"), "crc32c mismatch"},
		{"payload changed", strings.Replace(good, `{"a":1}`, `{"a":2}`, 1), "crc32c mismatch"},
		{"trailing", good + " ", "does not end"},
	} {
		if _, err := parseRecord([]byte(tc.line), 2); err == nil || !strings.Contains(err.Error(), tc.why) {
			t.Errorf("%s: parseRecord(%q) = %v, want an error containing %q", tc.name, tc.line, err, tc.why)
		}
	}
}
