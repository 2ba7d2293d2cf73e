package journal

import (
	"encoding/binary"
	"math/bits"
)

// validJSON reports whether b is one JSON value (RFC 8259), with optional
// whitespace around it: what encoding/json.Valid reports, including its
// nesting limit and its leniency about invalid UTF-8 inside strings, at a
// fraction of its cost. Append checks every payload with it, and so does
// every read, so it is on the hot path of both.
func validJSON(b []byte) bool {
	const maxDepth = 10000 // encoding/json's limit
	var buf [32]byte
	stack := buf[:0] // '{' or '[' for each open container
	i := skipSpace(b, 0)
	for {
		// A value starts at i.
		if i >= len(b) {
			return false
		}
		ok := true
		switch c := b[i]; {
		case c == '{' || c == '[':
			close := byte('}')
			if c == '[' {
				close = ']'
			}
			if len(stack) == maxDepth {
				return false
			}
			i = skipSpace(b, i+1)
			if i < len(b) && b[i] == close {
				i++
				break
			}
			stack = append(stack, c)
			if c == '{' {
				if i, ok = objectKey(b, i); !ok {
					return false
				}
			}
			continue
		case c == '"':
			i, ok = scanString(b, i)
		case c == '-' || '0' <= c && c <= '9':
			i, ok = scanNumber(b, i)
		case c == 't':
			i, ok = literal(b, i, "true")
		case c == 'f':
			i, ok = literal(b, i, "false")
		case c == 'n':
			i, ok = literal(b, i, "null")
		default:
			return false
		}
		if !ok {
			return false
		}
		// A value ended at i: close containers, or go on after a comma.
		for {
			i = skipSpace(b, i)
			if len(stack) == 0 {
				return i == len(b)
			}
			if i >= len(b) {
				return false
			}
			top := stack[len(stack)-1]
			if b[i] == ',' {
				i = skipSpace(b, i+1)
				if top == '{' {
					if i, ok = objectKey(b, i); !ok {
						return false
					}
				}
				break
			}
			if (top == '{' && b[i] == '}') || (top == '[' && b[i] == ']') {
				stack = stack[:len(stack)-1]
				i++
				continue
			}
			return false
		}
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// objectKey reads `"key" :` at i and returns where the value starts.
func objectKey(b []byte, i int) (int, bool) {
	if i >= len(b) || b[i] != '"' {
		return i, false
	}
	i, ok := scanString(b, i)
	if !ok {
		return i, false
	}
	i = skipSpace(b, i)
	if i >= len(b) || b[i] != ':' {
		return i, false
	}
	return skipSpace(b, i+1), true
}

// scanString reads the string that starts at b[i] == '"' and returns the
// index after its closing quote. It skips eight bytes at a time while none
// of them is a quote, a backslash or a control character: most of a fact's
// bytes are inside strings.
func scanString(b []byte, i int) (int, bool) {
	for i++; i < len(b); {
		if i+8 <= len(b) {
			m := specialBytes(binary.LittleEndian.Uint64(b[i:]))
			if m == 0 {
				i += 8
				continue
			}
			i += bits.TrailingZeros64(m) / 8
		} else if plainStringByte[b[i]] {
			i++
			continue
		}
		switch b[i] {
		case '"':
			return i + 1, true
		case '\\':
			if i+1 >= len(b) {
				return i, false
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) {
					return i, false
				}
				for _, h := range b[i+2 : i+6] {
					if !('0' <= h && h <= '9' || 'a' <= h && h <= 'f' || 'A' <= h && h <= 'F') {
						return i, false
					}
				}
				i += 6
			default:
				return i, false
			}
		default: // a control character
			return i, false
		}
	}
	return i, false
}

// specialBytes has the high bit set in the lowest byte of w (read little
// endian) that is a quote, a backslash or below 0x20, and nothing below it;
// zero when w has no such byte. Bits above the lowest set one may be false
// alarms (borrows), so only the lowest counts.
func specialBytes(w uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	q := w ^ (ones * '"')
	bs := w ^ (ones * '\\')
	return ((q-ones)&^q | (bs-ones)&^bs | (w-ones*0x20)&^w) & highs
}

// plainStringByte[c] is true for the bytes that stand for themselves inside a
// JSON string: not a quote, a backslash or a control character.
var plainStringByte = func() (t [256]bool) {
	for c := range t {
		t[c] = c >= 0x20 && c != '"' && c != '\\'
	}
	return t
}()

// scanNumber reads the number that starts at i.
func scanNumber(b []byte, i int) (int, bool) {
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		i = digits(b, i)
	default:
		return i, false
	}
	if i < len(b) && b[i] == '.' {
		j := digits(b, i+1)
		if j == i+1 {
			return i, false
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digits(b, i)
		if j == i {
			return i, false
		}
		i = j
	}
	return i, true
}

func digits(b []byte, i int) int {
	for i < len(b) && '0' <= b[i] && b[i] <= '9' {
		i++
	}
	return i
}

func literal(b []byte, i int, word string) (int, bool) {
	if len(b)-i < len(word) || string(b[i:i+len(word)]) != word {
		return i, false
	}
	return i + len(word), true
}
