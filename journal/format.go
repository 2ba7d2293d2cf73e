package journal

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"strconv"
	"unicode/utf8"
	"unsafe"
)

// The first line of every journal file, newline included: header for the
// version this build writes, headerV1 for files of the first release, which
// still read.
const (
	header   = `{"format":"jobgen-journal","version":2}` + "\n"
	headerV1 = `{"format":"jobgen-journal","version":1}` + "\n"
)

// headerFamily is the part of the header that every version shares; a first
// line that starts with it but is no known header comes from another version.
const headerFamily = `{"format":"jobgen-journal",`

// MaxRecordBytes is the largest record line, framing and newline included.
// Append refuses an entry that would make a longer line (ErrTooLarge), and a
// reader treats a longer line as damage.
const MaxRecordBytes = 1 << 20

// V1Stream is the stream that the records of a version 1 file, written before
// journals had streams, belong to. Each keeps its seq, which is also its
// position. The journal knows no vocabulary, so it cannot tell whose session a
// v1 fact belongs to; a reader that needs that reads the fact's owner.
const V1Stream Stream = "jobgen-v1"

// The fixed framing of a version 2 record line.
const (
	prefixPos    = `{"pos":`
	prefixStream = `,"stream":"`
	prefixSeq2   = `","seq":`
	prefixID     = `,"id":"`
	prefixCRC2   = `,"crc32c":"`
	prefixFact   = `","fact":`
	suffix       = "}\n"
	maxSeqDigits = 20 // digits in the largest uint64
	// framing is the length of a record line without its numbers, stream,
	// id and fact, with the id's field.
	framing = len(prefixPos) + len(prefixStream) + len(prefixSeq2) + len(prefixID) + len(`"`) +
		len(prefixCRC2) + 8 + len(prefixFact) + len(suffix)
)

// MaxPayloadBytes is the largest payload whose record, with the largest
// position, seq, stream name and id, still fits in MaxRecordBytes. A payload
// with a shorter stream name or id may be longer, up to what fits.
const MaxPayloadBytes = MaxRecordBytes - framing - 2*maxSeqDigits - 2*MaxStreamBytes - 2*MaxIDBytes

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// recordBytes is the length of the record line of payload in stream with
// id, at the largest position and seq.
func recordBytes(stream Stream, id string, payload []byte) int {
	return framing + 2*maxSeqDigits + escapedLen(string(stream)) + escapedLen(id) + len(payload)
}

// checkName reports why s cannot be a stream name or record id of at most max
// bytes, or nil.
func checkName(what, s string, max int) error {
	if len(s) <= max && plainASCII(s) {
		return nil
	}
	switch {
	case s == "":
		return fmt.Errorf("empty %s: %w", what, ErrInvalid)
	case len(s) > max:
		return fmt.Errorf("%s of %d bytes exceeds %d: %w", what, len(s), max, ErrInvalid)
	case !utf8.ValidString(s):
		return fmt.Errorf("%s %q is not valid UTF-8: %w", what, s, ErrInvalid)
	}
	for _, r := range s {
		if isControl(r) {
			return fmt.Errorf("%s %q holds a control character: %w", what, s, ErrInvalid)
		}
	}
	return nil
}

// plainASCII reports whether s is non-empty and all printable ASCII, the
// common case that needs no decoding.
func plainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f {
			return false
		}
	}
	return s != ""
}

func isControl(r rune) bool { return r < 0x20 || (0x7f <= r && r <= 0x9f) }

// checkPayload reports why payload cannot be a record's fact, or nil. An
// encoded payload, from a generated encoder, is checked to be shaped as one
// JSON object and not parsed.
func checkPayload(payload []byte, encoded bool) error {
	switch {
	case len(payload) == 0:
		return fmt.Errorf("empty payload: %w", ErrInvalid)
	case len(payload) > MaxRecordBytes:
		return fmt.Errorf("payload of %d bytes exceeds a record's %d: %w", len(payload), MaxRecordBytes, ErrTooLarge)
	case bytes.IndexByte(payload, '\n') >= 0:
		return fmt.Errorf("payload contains a newline byte: %w", ErrInvalid)
	case encoded && (payload[0] != '{' || payload[len(payload)-1] != '}'):
		return fmt.Errorf("encoded payload is not a JSON object: %w", ErrInvalid)
	case !encoded && !validJSON(payload):
		return fmt.Errorf("payload is not one JSON value: %w", ErrInvalid)
	}
	return nil
}

// escapedLen is the length of s in a record's JSON string, quotes excluded.
func escapedLen(s string) int {
	n := len(s)
	for i := 0; i < len(s); i++ {
		if s[i] == '"' || s[i] == '\\' {
			n++
		}
	}
	return n
}

// appendEscaped appends s as the inside of a JSON string: a stream name or an
// id holds no control characters, so only `"` and `\` take a backslash.
func appendEscaped(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '"' || c == '\\' {
			dst = append(dst, '\\', c)
		} else {
			dst = append(dst, c)
		}
	}
	return dst
}

// cutString reads a JSON string's inside as appendEscaped writes it, up to
// and excluding its closing quote, and returns the string and the bytes after
// the quote.
func cutString(b []byte, max int) (string, []byte, bool) {
	var out []byte
	for i := 0; i < len(b) && i <= 2*max; i++ { // escaped, at most 2*max bytes
		switch c := b[i]; {
		case c == '"':
			s := b[:i]
			if out != nil {
				s = out
			}
			if len(s) == 0 || len(s) > max || !utf8.Valid(s) {
				return "", nil, false
			}
			for _, r := range string(s) {
				if isControl(r) {
					return "", nil, false
				}
			}
			return string(s), b[i+1:], true
		case c == '\\':
			if i+1 == len(b) || (b[i+1] != '"' && b[i+1] != '\\') {
				return "", nil, false
			}
			if out == nil {
				out = append([]byte(nil), b[:i]...)
			}
			out = append(out, b[i+1])
			i++
		case c < 0x20:
			return "", nil, false
		default:
			if out != nil {
				out = append(out, c)
			}
		}
	}
	return "", nil, false
}

// metaCRC is the CRC-32C of a version 2 record's fact followed by its stream
// and id, each as a four-byte big-endian length and its bytes: the part of the
// checksum known before the record has a seq and a position.
func metaCRC(payload []byte, stream Stream, id string) uint32 {
	return extendMeta(crc32.Update(0, castagnoli, payload), stream, id)
}

// extendMeta extends crc, the CRC-32C of a fact, over its stream and id.
func extendMeta(crc uint32, stream Stream, id string) uint32 {
	var n [4]byte
	binary.BigEndian.PutUint32(n[:], uint32(len(stream)))
	crc = crc32.Update(crc, castagnoli, n[:])
	crc = crc32.Update(crc, castagnoli, stringBytes(string(stream)))
	binary.BigEndian.PutUint32(n[:], uint32(len(id)))
	crc = crc32.Update(crc, castagnoli, n[:])
	return crc32.Update(crc, castagnoli, stringBytes(id))
}

// stringBytes returns the bytes of s without copying them, for the checksum,
// which only reads them: a copy would cost an allocation per append.
func stringBytes(s string) []byte {
	return unsafe.Slice(unsafe.StringData(s), len(s))
}

// checksumV2 is a version 2 record's checksum: metaCRC followed by its seq and
// its position, each as eight big-endian bytes.
func checksumV2(pos uint64, stream Stream, seq uint64, id string, payload []byte) uint32 {
	return withU64(withU64(metaCRC(payload, stream, id), seq), pos)
}

// checksumV2In is checksumV2 computed with the bytes after the fact laid
// out in *scratch, a buffer the caller reuses, and checksummed in one
// update: a reader checksums every record, and an update of four bytes, or
// the eight of a number a byte at a time, costs about what the fact does.
func checksumV2In(scratch *[]byte, pos uint64, stream Stream, seq uint64, id string, payload []byte) uint32 {
	b := binary.BigEndian.AppendUint32((*scratch)[:0], uint32(len(stream)))
	b = append(b, stream...)
	b = binary.BigEndian.AppendUint32(b, uint32(len(id)))
	b = append(b, id...)
	b = binary.BigEndian.AppendUint64(b, seq)
	b = binary.BigEndian.AppendUint64(b, pos)
	*scratch = b
	return crc32.Update(crc32.Update(0, castagnoli, payload), castagnoli, b)
}

// checksumV1 is a version 1 record's checksum: the CRC-32C of its fact
// followed by its seq as eight big-endian bytes.
func checksumV1(seq uint64, payload []byte) uint32 {
	return withU64(crc32.Update(0, castagnoli, payload), seq)
}

// withU64 extends crc over v as eight big-endian bytes.
func withU64(crc uint32, v uint64) uint32 {
	c := ^crc
	for shift := 56; shift >= 0; shift -= 8 {
		c = castagnoli[byte(c)^byte(v>>uint(shift))] ^ c>>8
	}
	return ^c
}

// appendRecord appends the version 2 record line of one entry to dst, given
// metaCRC of its payload, stream and id.
func appendRecord(dst []byte, pos uint64, stream Stream, seq uint64, id string, payload []byte, meta uint32) []byte {
	dst = append(dst, prefixPos...)
	dst = strconv.AppendUint(dst, pos, 10)
	dst = append(dst, prefixStream...)
	dst = appendEscaped(dst, string(stream))
	dst = append(dst, prefixSeq2...)
	dst = strconv.AppendUint(dst, seq, 10)
	if id != "" {
		dst = append(dst, prefixID...)
		dst = appendEscaped(dst, id)
		dst = append(dst, '"')
	}
	dst = append(dst, prefixCRC2...)
	dst = appendHex32(dst, withU64(withU64(meta, seq), pos))
	dst = append(dst, prefixFact...)
	dst = append(dst, payload...)
	return append(dst, suffix...)
}

const hexDigits = "0123456789abcdef"

func appendHex32(dst []byte, v uint32) []byte {
	var b [8]byte
	for i := 7; i >= 0; i-- {
		b[i] = hexDigits[v&0xf]
		v >>= 4
	}
	return append(dst, b[:]...)
}

// parseHex32 parses exactly eight lowercase hex digits.
func parseHex32(b []byte) (uint32, bool) {
	if len(b) != 8 {
		return 0, false
	}
	var v uint32
	for _, c := range b {
		switch {
		case '0' <= c && c <= '9':
			v = v<<4 | uint32(c-'0')
		case 'a' <= c && c <= 'f':
			v = v<<4 | uint32(c-'a'+10)
		default:
			return 0, false
		}
	}
	return v, true
}

// cutUint reads a positive decimal without sign or leading zeros.
func cutUint(b []byte, what string) (uint64, []byte, error) {
	n := 0
	for n < len(b) && n <= maxSeqDigits && '0' <= b[n] && b[n] <= '9' {
		n++
	}
	if n == 0 || n > maxSeqDigits || b[0] == '0' {
		return 0, nil, fmt.Errorf("%s is not a positive decimal without leading zeros", what)
	}
	v, err := strconv.ParseUint(string(b[:n]), 10, 64)
	if err != nil {
		return 0, nil, fmt.Errorf("%s out of range", what)
	}
	return v, b[n:], nil
}

// A frame is a record line's fields; Payload aliases the line.
type frame struct {
	pos, seq uint64
	stream   Stream
	st       *streamIndex // the stream's index, when parseFrameIn found it there
	id       string
	crc      uint32 // the stored checksum
	payload  []byte
}

// parseFrame parses a record line of the given version, newline excluded,
// without checking its checksum or its fact: the framing alone, which costs in
// proportion to the framing, not the fact. A version 1 record gets V1Stream
// and its seq as its position.
func parseFrame(line []byte, version int) (frame, error) { return parseFrameIn(line, version, nil) }

// parseFrameIn is parseFrame, taking a stream name that known already
// holds (written without escapes) from known, neither checked nor copied
// again: a scan meets the same few streams a million times.
func parseFrameIn(line []byte, version int, known *index) (frame, error) {
	var fr frame
	if len(line)+1 > MaxRecordBytes {
		return fr, fmt.Errorf("record longer than %d bytes", MaxRecordBytes)
	}
	var err error
	rest := line
	var ok bool
	if version == 1 {
		if rest, ok = bytes.CutPrefix(rest, []byte(`{"seq":`)); !ok {
			return fr, errors.New(`does not start with the {"seq" field`)
		}
		if fr.seq, rest, err = cutUint(rest, "seq"); err != nil {
			return fr, err
		}
		fr.pos, fr.stream = fr.seq, V1Stream
		if rest, ok = bytes.CutPrefix(rest, []byte(`,"crc32c":"`)); !ok {
			return fr, errors.New("no crc32c field after seq")
		}
	} else {
		if rest, ok = bytes.CutPrefix(rest, []byte(prefixPos)); !ok {
			return fr, fmt.Errorf("does not start with %s", prefixPos)
		}
		if fr.pos, rest, err = cutUint(rest, "pos"); err != nil {
			return fr, err
		}
		if rest, ok = bytes.CutPrefix(rest, []byte(prefixStream)); !ok {
			return fr, errors.New("no stream field after pos")
		}
		if st, n := known.stream(rest); st != nil {
			fr.stream, fr.st, rest = st.name, st, rest[n:]
		} else {
			var s string
			if s, rest, ok = cutString(rest, MaxStreamBytes); !ok {
				return fr, errors.New("stream is not a valid stream name")
			}
			fr.stream = Stream(s)
		}
		if rest, ok = bytes.CutPrefix(rest, []byte(prefixSeq2[1:])); !ok {
			return fr, errors.New("no seq field after stream")
		}
		if fr.seq, rest, err = cutUint(rest, "seq"); err != nil {
			return fr, err
		}
		if r, ok := bytes.CutPrefix(rest, []byte(prefixID)); ok {
			if fr.id, rest, ok = cutString(r, MaxIDBytes); !ok {
				return fr, errors.New("id is not a valid record id")
			}
		}
		if rest, ok = bytes.CutPrefix(rest, []byte(prefixCRC2)); !ok {
			return fr, errors.New("no crc32c field after seq")
		}
	}
	if len(rest) < 8 {
		return fr, errors.New("crc32c field cut short")
	}
	if fr.crc, ok = parseHex32(rest[:8]); !ok {
		return fr, errors.New("crc32c is not eight lowercase hex digits")
	}
	if rest, ok = bytes.CutPrefix(rest[8:], []byte(prefixFact)); !ok {
		return fr, errors.New("no fact field after crc32c")
	}
	if fr.payload, ok = bytes.CutSuffix(rest, []byte("}")); !ok || len(fr.payload) == 0 {
		return fr, errors.New("record does not end with a fact and }")
	}
	return fr, nil
}

// sum computes the checksum the frame's record should carry, laying out
// what it checksums in known's scratch buffer when known is not nil.
func (fr *frame) sum(version int, known *index) uint32 {
	switch {
	case version == 1:
		return checksumV1(fr.seq, fr.payload)
	case known != nil:
		return checksumV2In(&known.scratch, fr.pos, fr.stream, fr.seq, fr.id, fr.payload)
	}
	return checksumV2(fr.pos, fr.stream, fr.seq, fr.id, fr.payload)
}

// parseRecord parses one record line of the given version, newline
// excluded: its framing, its checksum and that its fact is one JSON value.
// It does not check the record's place in the file. The payload aliases
// line.
func parseRecord(line []byte, version int) (frame, error) {
	fr, err := parseSummed(line, version, nil)
	if err == nil {
		err = checkFact(fr.payload)
	}
	return fr, err
}

// parseSummed is parseRecord but for the fact: the framing and the
// checksum, for a reader that has the fact checked where it is decoded
// (FileFacts). It takes the stream names known holds from it (parseFrameIn).
func parseSummed(line []byte, version int, known *index) (frame, error) {
	fr, err := parseFrameIn(line, version, known)
	if err != nil {
		return fr, err
	}
	if sum := fr.sum(version, known); sum != fr.crc {
		return fr, fmt.Errorf("crc32c mismatch: stored %08x, computed %08x", fr.crc, sum)
	}
	return fr, nil
}

// errFactNotJSON is the damage of a record whose checksum matches a fact
// that is not one JSON value.
var errFactNotJSON = errors.New("checksum matches, but the fact is not one JSON value")

// checkFact reports errFactNotJSON unless payload, a record's fact, is one
// JSON value without a newline byte.
func checkFact(payload []byte) error {
	if !validJSON(payload) || bytes.IndexByte(payload, '\n') >= 0 {
		return errFactNotJSON
	}
	return nil
}
