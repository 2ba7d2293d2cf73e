package codec

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math/bits"
	"strconv"
	"strings"
	"unicode/utf8"
)

// A Decoder reads JSON in one pass, checking its syntax as it reads, the way
// generated fact decoders read a fact: each byte is looked at once, instead
// of being validated by encoding/json for the envelope, again for the data,
// and again by every nested UnmarshalJSON and key check. It accepts exactly
// the JSON (RFC 8259) encoding/json accepts, nests at most as deep, and reads
// strings as it does: escapes resolved, invalid UTF-8 and lone surrogates
// replaced by U+FFFD.
//
// Generated code drives it; a Decoder holds no state but its input and
// position, and its errors say at which byte offset the input went wrong.
type Decoder struct {
	data  []byte
	i     int
	depth int // the objects open around the position: Object opened them, Next has not closed them
}

// NewDecoder returns a Decoder at the start of data.
func NewDecoder(data []byte) *Decoder { return &Decoder{data: data} }

// maxDepth is how deep values nest in a document before the Decoder
// refuses it, as encoding/json does: counted from the document's top, so a
// value skipped inside objects that Object opened has less room.
const maxDepth = 10000

func (d *Decoder) space() {
	for d.i < len(d.data) {
		switch d.data[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

func (d *Decoder) syntax(what string) error {
	if d.i >= len(d.data) {
		return errors.New("unexpected end of JSON input")
	}
	return fmt.Errorf("invalid character %s %s at offset %d", quoteChar(d.data[d.i]), what, d.i)
}

func quoteChar(c byte) string {
	if c == '\'' {
		return `'\''`
	}
	if c == '"' {
		return `'"'`
	}
	s := strconv.Quote(string(rune(c)))
	return "'" + s[1:len(s)-1] + "'"
}

// kind names the JSON kind of the next value, for type errors.
func (d *Decoder) kind() string {
	if d.i >= len(d.data) {
		return "nothing"
	}
	switch c := d.data[d.i]; {
	case c == '"':
		return "string"
	case c == '{':
		return "object"
	case c == '[':
		return "array"
	case c == 't' || c == 'f':
		return "bool"
	case c == 'n':
		return "null"
	default:
		return "number"
	}
}

// typeError reports a value of the wrong kind; it checks the value's syntax
// first, so damaged JSON is reported as such.
func (d *Decoder) typeError(want string) error {
	kind := d.kind()
	if _, err := d.Skip(); err != nil {
		return err
	}
	return fmt.Errorf("cannot unmarshal %s into %s", kind, want)
}

// Null consumes a null and reports whether there was one.
func (d *Decoder) Null() bool {
	d.space()
	if len(d.data)-d.i >= 4 && string(d.data[d.i:d.i+4]) == "null" {
		d.i += 4
		return true
	}
	return false
}

// Object begins an object and reports whether it has keys, which Next then
// reads. A null is read as an empty object, as encoding/json leaves a struct
// unchanged by null; any other value is an error.
func (d *Decoder) Object() (bool, error) {
	d.space()
	if d.i < len(d.data) && d.data[d.i] == '{' {
		if d.depth >= maxDepth {
			return false, errors.New("exceeded max depth")
		}
		d.i++
		d.space()
		if d.i < len(d.data) && d.data[d.i] == '}' {
			d.i++
			return false, nil
		}
		d.depth++
		return true, nil
	}
	if d.Null() {
		return false, nil
	}
	if d.i >= len(d.data) {
		return false, d.syntax("")
	}
	return false, d.typeError("an object")
}

// Next reads the next key of an object that Object reported has keys, and
// the colon after it, leaving the decoder at the key's value; first says
// that no key was read yet, and more is false at the object's end. The key
// is unescaped as encoding/json matches it; it may share memory with the
// input.
func (d *Decoder) Next(first bool) (key []byte, more bool, err error) {
	d.space()
	if !first {
		if d.i < len(d.data) && d.data[d.i] == '}' {
			d.i++
			d.depth--
			return nil, false, nil
		}
		if d.i >= len(d.data) || d.data[d.i] != ',' {
			return nil, false, d.syntax("after object key:value pair")
		}
		d.i++
		d.space()
	}
	if d.i >= len(d.data) || d.data[d.i] != '"' {
		return nil, false, d.syntax("looking for beginning of object key string")
	}
	key, err = d.StringBytes()
	if err != nil {
		return nil, false, err
	}
	d.space()
	if d.i >= len(d.data) || d.data[d.i] != ':' {
		return nil, false, d.syntax("after object key")
	}
	d.i++
	return key, true, nil
}

// StringBytes reads a string and returns it unescaped; it shares memory with
// the input when the string holds no escape and only ASCII.
func (d *Decoder) StringBytes() ([]byte, error) {
	d.space()
	if d.i >= len(d.data) || d.data[d.i] != '"' {
		if d.i >= len(d.data) {
			return nil, d.syntax("")
		}
		return nil, d.typeError("a string")
	}
	start := d.i
	j := start + 1
	for j+8 <= len(d.data) {
		m := stringStops(binary.LittleEndian.Uint64(d.data[j:]))
		if m != 0 {
			j += bits.TrailingZeros64(m) / 8
			break
		}
		j += 8
	}
	for ; j < len(d.data); j++ {
		switch c := d.data[j]; {
		case c == '"':
			d.i = j + 1
			return d.data[start+1 : j], nil
		case c == '\\' || c >= utf8.RuneSelf:
			return d.slowString(start)
		case c < ' ':
			d.i = j
			return nil, d.syntax("in string literal")
		}
	}
	d.i = len(d.data)
	return nil, d.syntax("")
}

// stringStops has the high bit set in the lowest byte of w (read little
// endian) where StringBytes must stop and look: a quote, a backslash, a
// control character or a byte of a multi-byte rune. Bits above the lowest
// set one may be false alarms (borrows), so only the lowest counts.
func stringStops(w uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	q := w ^ (ones * '"')
	bs := w ^ (ones * '\\')
	return ((q-ones)&^q | (bs-ones)&^bs | (w - ones*0x20) | w) & highs
}

// slowString reads a string with escapes or non-ASCII bytes: it checks the
// syntax, then lets encoding/json unescape it, so the result is what it
// reads.
func (d *Decoder) slowString(start int) ([]byte, error) {
	d.i = start
	if err := d.skipString(); err != nil {
		return nil, err
	}
	raw := d.data[start:d.i]
	if utf8.Valid(raw) && !containsByte(raw, '\\') {
		return raw[1 : len(raw)-1], nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, err
	}
	return []byte(s), nil
}

func containsByte(b []byte, c byte) bool {
	for _, x := range b {
		if x == c {
			return true
		}
	}
	return false
}

// skipString moves past a string, checking its escapes and that it holds no
// control character.
func (d *Decoder) skipString() error {
	d.i++ // the opening quote
	for d.i < len(d.data) {
		c := d.data[d.i]
		switch {
		case c == '"':
			d.i++
			return nil
		case c == '\\':
			d.i++
			if d.i >= len(d.data) {
				return d.syntax("")
			}
			switch d.data[d.i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				d.i++
			case 'u':
				d.i++
				for range 4 {
					if d.i >= len(d.data) {
						return d.syntax("")
					}
					if !isHex(d.data[d.i]) {
						return d.syntax("in \\u hexadecimal character escape")
					}
					d.i++
				}
			default:
				return d.syntax("in string escape code")
			}
		case c < ' ':
			return d.syntax("in string literal")
		default:
			d.i++
		}
	}
	return d.syntax("")
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// String reads a string.
func (d *Decoder) String() (string, error) {
	b, err := d.StringBytes()
	return string(b), err
}

// Bool reads true or false.
func (d *Decoder) Bool() (bool, error) {
	d.space()
	switch {
	case len(d.data)-d.i >= 4 && string(d.data[d.i:d.i+4]) == "true":
		d.i += 4
		return true, nil
	case len(d.data)-d.i >= 5 && string(d.data[d.i:d.i+5]) == "false":
		d.i += 5
		return false, nil
	}
	if d.i >= len(d.data) {
		return false, d.syntax("")
	}
	return false, d.typeError("a bool")
}

// number moves past a number, checking its grammar, and returns it and
// whether it is an integer literal (no fraction or exponent).
func (d *Decoder) number() ([]byte, bool, error) {
	start := d.i
	integer := true
	if d.i < len(d.data) && d.data[d.i] == '-' {
		d.i++
	}
	switch {
	case d.i < len(d.data) && d.data[d.i] == '0':
		d.i++
	case d.i < len(d.data) && '1' <= d.data[d.i] && d.data[d.i] <= '9':
		for d.i < len(d.data) && '0' <= d.data[d.i] && d.data[d.i] <= '9' {
			d.i++
		}
	default:
		return nil, false, d.syntax("in numeric literal")
	}
	if d.i < len(d.data) && d.data[d.i] == '.' {
		integer = false
		d.i++
		if d.i >= len(d.data) || d.data[d.i] < '0' || d.data[d.i] > '9' {
			return nil, false, d.syntax("after decimal point in numeric literal")
		}
		for d.i < len(d.data) && '0' <= d.data[d.i] && d.data[d.i] <= '9' {
			d.i++
		}
	}
	if d.i < len(d.data) && (d.data[d.i] == 'e' || d.data[d.i] == 'E') {
		integer = false
		d.i++
		if d.i < len(d.data) && (d.data[d.i] == '+' || d.data[d.i] == '-') {
			d.i++
		}
		if d.i >= len(d.data) || d.data[d.i] < '0' || d.data[d.i] > '9' {
			return nil, false, d.syntax("in exponent of numeric literal")
		}
		for d.i < len(d.data) && '0' <= d.data[d.i] && d.data[d.i] <= '9' {
			d.i++
		}
	}
	return d.data[start:d.i], integer, nil
}

// Int reads an integer that fits in a signed integer of bits bits, as
// encoding/json reads one into an int type: a fraction or an exponent is an
// error, even 1.0.
func (d *Decoder) Int(bits int) (int64, error) {
	d.space()
	if d.i >= len(d.data) || (d.data[d.i] != '-' && (d.data[d.i] < '0' || d.data[d.i] > '9')) {
		if d.i >= len(d.data) {
			return 0, d.syntax("")
		}
		return 0, d.typeError("an integer")
	}
	num, integer, err := d.number()
	if err != nil {
		return 0, err
	}
	if integer && len(num) <= 18 && num[0] != '-' {
		var n int64
		for _, c := range num {
			n = n*10 + int64(c-'0')
		}
		if bits == 64 || n < 1<<(bits-1) {
			return n, nil
		}
	}
	n, err := strconv.ParseInt(string(num), 10, bits)
	if err != nil || !integer {
		return 0, fmt.Errorf("cannot unmarshal number %s into an int%d", num, bits)
	}
	return n, nil
}

// Skip moves past one value of any kind, checking its syntax, and returns
// its bytes. It keeps a stack of the containers open instead of recursing,
// so deep input costs no Go stack: each turn reads the start of a value (a
// container's opening, or a whole scalar) and then what follows the value.
func (d *Decoder) Skip() ([]byte, error) {
	d.space()
	start := d.i
	// stack holds whether each open container is an object; after a
	// container opens or a value ends, what may follow depends on it.
	var stackBuf [32]bool
	stack := stackBuf[:0]
	for {
		d.space()
		if d.i >= len(d.data) {
			return nil, d.syntax("")
		}
		if c := d.data[d.i]; c == '{' || c == '[' {
			var opened bool
			var err error
			if stack, opened, err = d.open(stack, c == '{'); err != nil {
				return nil, err
			}
			if opened {
				continue
			}
		} else if err := d.skipScalar(c); err != nil {
			return nil, err
		}
		var err error
		if stack, err = d.afterValue(stack); err != nil {
			return nil, err
		}
		if len(stack) == 0 {
			return d.data[start:d.i], nil
		}
	}
}

// open moves past the brace or bracket that opens a container inside the
// containers of stack, and past its close when it is empty. A container
// with elements is pushed on stack and, in an object, its first key is read
// too; opened reports that, and that the container's first value follows.
func (d *Decoder) open(stack []bool, obj bool) (_ []bool, opened bool, err error) {
	if d.depth+len(stack) >= maxDepth {
		return nil, false, errors.New("exceeded max depth")
	}
	d.i++
	d.space()
	if d.i < len(d.data) && (obj && d.data[d.i] == '}' || !obj && d.data[d.i] == ']') {
		d.i++
		return stack, false, nil
	}
	if obj {
		if err := d.key(); err != nil {
			return nil, false, err
		}
	}
	return append(stack, obj), true, nil
}

// skipScalar moves past the string, number or literal that starts with c.
func (d *Decoder) skipScalar(c byte) error {
	switch {
	case c == '"':
		return d.skipString()
	case c == '-' || '0' <= c && c <= '9':
		_, _, err := d.number()
		return err
	case c == 't':
		return d.literal("true")
	case c == 'f':
		return d.literal("false")
	case c == 'n':
		return d.literal("null")
	}
	return d.syntax("looking for beginning of value")
}

// afterValue moves past what follows a value inside the containers of
// stack: the closes of the containers the value ends, then the comma (and
// in an object the key) before the next value. It returns the containers
// still open, none once the outermost value has ended.
func (d *Decoder) afterValue(stack []bool) ([]bool, error) {
	for len(stack) > 0 {
		d.space()
		if d.i >= len(d.data) {
			return nil, d.syntax("")
		}
		obj, c := stack[len(stack)-1], d.data[d.i]
		if obj && c == '}' || !obj && c == ']' {
			d.i++
			stack = stack[:len(stack)-1]
			continue
		}
		if c != ',' {
			if obj {
				return nil, d.syntax("after object key:value pair")
			}
			return nil, d.syntax("after array element")
		}
		d.i++
		if obj {
			d.space()
			if err := d.key(); err != nil {
				return nil, err
			}
		}
		return stack, nil
	}
	return stack, nil
}

// key moves past an object key and its colon.
func (d *Decoder) key() error {
	if d.i >= len(d.data) || d.data[d.i] != '"' {
		return d.syntax("looking for beginning of object key string")
	}
	if err := d.skipString(); err != nil {
		return err
	}
	d.space()
	if d.i >= len(d.data) || d.data[d.i] != ':' {
		return d.syntax("after object key")
	}
	d.i++
	return nil
}

func (d *Decoder) literal(lit string) error {
	for j := 0; j < len(lit); j++ {
		if d.i >= len(d.data) {
			return d.syntax("")
		}
		if d.data[d.i] != lit[j] {
			return d.syntax("in literal " + lit + " (expecting " + quoteChar(lit[j]) + ")")
		}
		d.i++
	}
	return nil
}

// End checks that nothing but white space follows the value read.
func (d *Decoder) End() error {
	d.space()
	if d.i < len(d.data) {
		return d.syntax("after top-level value")
	}
	return nil
}

// Unmarshal reads one value with encoding/json into v: for the types a
// generated decoder does not read itself. The value's syntax is checked
// once more, by encoding/json, but only that value's.
func (d *Decoder) Unmarshal(v any) error {
	raw, err := d.Skip()
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, v)
}

// A KeySet tracks the keys of one object that a generated decoder does not
// know, to refuse what CheckKeys refuses: a key twice, or a key that differs
// from a field's name only in case.
type KeySet struct {
	seen [][]byte
	many map[string]bool
}

// Other records key, a key of typ that is none of fields, and refuses it
// when it appeared before in the object or matches a field but for case.
func (k *KeySet) Other(typ string, key []byte, fields []string) error {
	for _, f := range fields {
		if strings.EqualFold(string(key), f) {
			return fmt.Errorf("%s: key %q differs from field %q only in case: %w", typ, key, f, ErrAmbiguousKey)
		}
	}
	dup := k.many[string(key)]
	for _, s := range k.seen {
		dup = dup || string(s) == string(key)
	}
	if dup {
		return DuplicateKey(typ, key)
	}
	switch {
	case k.many != nil:
		k.many[string(key)] = true
	case len(k.seen) < 16:
		k.seen = append(k.seen, key)
	default:
		k.many = map[string]bool{string(key): true}
		for _, s := range k.seen {
			k.many[string(s)] = true
		}
		k.seen = nil
	}
	return nil
}

// DuplicateKey reports that key appears twice in an object of typ.
func DuplicateKey(typ string, key []byte) error {
	return fmt.Errorf("%s: key %q appears twice: %w", typ, key, ErrAmbiguousKey)
}

// FieldError wraps err, an error decoding field of typ.
func FieldError(typ, field string, err error) error {
	return fmt.Errorf("%s: field %q: %w", typ, field, err)
}
