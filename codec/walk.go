package codec

import "errors"

// The primitives a decoder that knows no Go type walks a value with: one
// driven by a spec's model (package factspec) chooses how to read each value
// by its first byte, and reads arrays and numbers as generated code leaves
// them to encoding/json.

// Peek returns the first byte of the next value, past white space, without
// consuming it: '{', '[', '"', 't', 'f', 'n', '-' or a digit for a value
// that starts well, and 0 at the end of the input. A decoder that knows no
// Go type (one driven by a spec's model) chooses how to read a value by it.
func (d *Decoder) Peek() byte {
	d.space()
	if d.i >= len(d.data) {
		return 0
	}
	return d.data[d.i]
}

// Array begins an array and reports whether it has elements; the decoder
// is then at the first, and More moves to each next one. Any other value,
// null included, is an error: a caller that reads null as an empty or absent
// array tests for it first (Null).
func (d *Decoder) Array() (bool, error) {
	d.space()
	if d.i >= len(d.data) {
		return false, d.syntax("")
	}
	if d.data[d.i] != '[' {
		return false, d.typeError("an array")
	}
	if d.depth >= maxDepth {
		return false, errors.New("exceeded max depth")
	}
	d.i++
	d.space()
	if d.i < len(d.data) && d.data[d.i] == ']' {
		d.i++
		return false, nil
	}
	d.depth++
	return true, nil
}

// More moves past the end of an element of an array that Array reported
// has elements: it reports whether another element follows, at which the
// decoder then is, and at the array's end consumes its bracket.
func (d *Decoder) More() (bool, error) {
	d.space()
	if d.i < len(d.data) && d.data[d.i] == ']' {
		d.i++
		d.depth--
		return false, nil
	}
	if d.i >= len(d.data) || d.data[d.i] != ',' {
		return false, d.syntax("after array element")
	}
	d.i++
	return true, nil
}

// Number reads a number and returns its literal, for a caller that parses
// it as encoding/json would for a type of its own (an unsigned integer, a
// float); any other value is an error.
func (d *Decoder) Number() ([]byte, error) {
	d.space()
	if d.i >= len(d.data) {
		return nil, d.syntax("")
	}
	if c := d.data[d.i]; c != '-' && (c < '0' || c > '9') {
		return nil, d.typeError("a number")
	}
	num, _, err := d.number()
	return num, err
}
