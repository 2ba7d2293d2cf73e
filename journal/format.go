package journal

import (
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"strconv"
)

// header is the first line of every journal file, newline included.
const header = `{"format":"jobgen-journal","version":1}` + "\n"

// headerFamily is the part of the header that every version shares; a first
// line that starts with it but is not header comes from another version.
const headerFamily = `{"format":"jobgen-journal",`

// MaxRecordBytes is the largest record line, framing and newline included.
// Append refuses a payload that would make a longer line, and a reader treats
// a longer line as damage.
const MaxRecordBytes = 1 << 20

// The fixed framing of a record line around its seq, checksum and payload.
const (
	prefixSeq   = `{"seq":`
	prefixCRC   = `,"crc32c":"`
	prefixFact  = `","fact":`
	suffix      = "}\n"
	maxSeqDigit = 20 // digits in the largest uint64
	framing     = len(prefixSeq) + len(prefixCRC) + 8 + len(prefixFact) + len(suffix)
)

// MaxSeq is the largest seq a stream holds, the contract's 2^63-1 (a signed
// 64-bit integer, so every backend can keep it): an append that would pass it
// is refused with ErrFull. A v1 file may hold larger seqs; it reads, and
// takes no appends.
const MaxSeq = 1<<63 - 1

// MaxPayloadBytes is the largest payload whose record, with the largest seq,
// still fits in MaxRecordBytes.
const MaxPayloadBytes = MaxRecordBytes - framing - maxSeqDigit

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// checksum is the CRC32C (Castagnoli) of the payload followed by seq as
// eight big-endian bytes.
func checksum(seq uint64, payload []byte) uint32 {
	return withSeq(crc32.Update(0, castagnoli, payload), seq)
}

// withSeq extends crc, the CRC32C of a payload, over seq as eight big-endian
// bytes. The payload's part can so be computed before the seq is known.
func withSeq(crc uint32, seq uint64) uint32 {
	c := ^crc
	for shift := 56; shift >= 0; shift -= 8 {
		c = castagnoli[byte(c)^byte(seq>>uint(shift))] ^ c>>8
	}
	return ^c
}

// checkPayload reports why payload cannot be a record's fact, or nil.
func checkPayload(payload []byte) error {
	switch {
	case len(payload) == 0:
		return errors.New("empty payload")
	case len(payload) > MaxPayloadBytes:
		return fmt.Errorf("payload of %d bytes exceeds %d", len(payload), MaxPayloadBytes)
	case bytes.IndexByte(payload, '\n') >= 0:
		return errors.New("payload contains a newline byte")
	}
	return nil
}

// appendRecord appends the record line for seq and payload to dst.
func appendRecord(dst []byte, seq uint64, payload []byte) []byte {
	return appendRecordCRC(dst, seq, payload, crc32.Update(0, castagnoli, payload))
}

// appendRecordCRC is appendRecord given the CRC32C of payload alone.
func appendRecordCRC(dst []byte, seq uint64, payload []byte, payloadCRC uint32) []byte {
	dst = append(dst, prefixSeq...)
	dst = strconv.AppendUint(dst, seq, 10)
	dst = append(dst, prefixCRC...)
	dst = appendHex32(dst, withSeq(payloadCRC, seq))
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

func badFrame(format string, args ...any) error {
	return fmt.Errorf(format, args...)
}

// parseRecord parses one record line, newline excluded. It checks the framing
// and the checksum, not the seq's place in the file. The payload aliases line.
func parseRecord(line []byte) (seq uint64, payload []byte, err error) {
	if len(line)+1 > MaxRecordBytes {
		return 0, nil, badFrame("record longer than %d bytes", MaxRecordBytes)
	}
	rest, ok := bytes.CutPrefix(line, []byte(prefixSeq))
	if !ok {
		return 0, nil, badFrame("does not start with %s", prefixSeq)
	}
	n := 0
	for n < len(rest) && n <= maxSeqDigit && '0' <= rest[n] && rest[n] <= '9' {
		n++
	}
	if n == 0 || n > maxSeqDigit || (rest[0] == '0') {
		return 0, nil, badFrame("seq is not a positive decimal without leading zeros")
	}
	seq, perr := strconv.ParseUint(string(rest[:n]), 10, 64)
	if perr != nil {
		return 0, nil, badFrame("seq out of range")
	}
	rest, ok = bytes.CutPrefix(rest[n:], []byte(prefixCRC))
	if !ok {
		return 0, nil, badFrame("no crc32c field after seq")
	}
	if len(rest) < 8 {
		return 0, nil, badFrame("crc32c field cut short")
	}
	stored, ok := parseHex32(rest[:8])
	if !ok {
		return 0, nil, badFrame("crc32c is not eight lowercase hex digits")
	}
	rest, ok = bytes.CutPrefix(rest[8:], []byte(prefixFact))
	if !ok {
		return 0, nil, badFrame("no fact field after crc32c")
	}
	payload, ok = bytes.CutSuffix(rest, []byte("}"))
	if !ok || len(payload) == 0 {
		return 0, nil, badFrame("record does not end with a fact and }")
	}
	if sum := checksum(seq, payload); sum != stored {
		return 0, nil, badFrame("crc32c mismatch: stored %08x, computed %08x", stored, sum)
	}
	return seq, payload, nil
}
