package codec

import (
	"errors"
	"fmt"
	"strconv"
)

var envelopeFields = []string{"type", "v", "data"}

// DecodeFact reads the envelope of a fact in data and calls decode with its
// type and version and a Decoder at its data, which decode must read (or
// Skip) as one value; the fact is what decode returns. It is the body of
// every generated DecodeFact, and reads data once: when the envelope names
// type and v before data, as AppendEnvelope writes it, decode reads the data
// in place, and otherwise from the data's bytes once the envelope is read.
// It refuses what DecodeEnvelope refuses, with errors prefixed "PKG: decode
// fact: ", and returns decode's errors as they are.
func DecodeFact[F any](pkg string, data []byte, decode func(typ string, v int, d *Decoder) (F, error)) (F, error) {
	f, err, envelope := readFact(data, decode)
	if err != nil && envelope {
		return f, fmt.Errorf("%s: decode fact: %w", pkg, err)
	}
	return f, err
}

// readFact is DecodeFact; envelope reports that an error is the envelope's,
// not decode's.
func readFact[F any](data []byte, decode func(typ string, v int, d *Decoder) (F, error)) (_ F, _ error, envelope bool) {
	var zero F
	d := NewDecoder(data)
	fail := func(err error) (F, error, bool) { return zero, err, true }
	var typ string
	var v int
	var seen [3]bool // type, v, data
	var others KeySet
	var raw []byte // the data, when it came before type or v
	var fact F
	decoded, nullData := false, false
	var unknown error // decode's, for a fact this build does not know
	more, err := d.Object()
	if err != nil {
		return fail(fmt.Errorf("envelope: %w", err))
	}
	for first := true; more; first = false {
		var key []byte
		key, more, err = d.Next(first)
		if err != nil {
			return fail(err)
		}
		if !more {
			break
		}
		i := -1
		switch string(key) {
		case "type":
			i = 0
		case "v":
			i = 1
		case "data":
			i = 2
		}
		if i < 0 {
			if err := others.Other("envelope", key, envelopeFields); err != nil {
				return fail(err)
			}
			if _, err := d.Skip(); err != nil {
				return fail(err)
			}
			continue
		}
		if seen[i] {
			return fail(DuplicateKey("envelope", key))
		}
		seen[i] = true
		switch i {
		case 0:
			if d.Null() {
				continue
			}
			if typ, err = d.String(); err != nil {
				return fail(FieldError("envelope", "type", err))
			}
		case 1:
			if d.Null() {
				continue
			}
			n, err := d.Int(strconv.IntSize)
			if err != nil {
				return fail(FieldError("envelope", "v", err))
			}
			v = int(n)
		case 2:
			if d.Null() {
				nullData = true
				continue
			}
			if seen[0] && seen[1] {
				fact, unknown = decode(typ, v, d)
				if unknown != nil && !errors.Is(unknown, ErrUnknownFact) {
					return zero, unknown, false
				}
				// An unknown fact is unknown only if the rest of its
				// envelope is sound: read on.
				decoded = true
				continue
			}
			if raw, err = d.Skip(); err != nil {
				return fail(err)
			}
		}
	}
	if err := d.End(); err != nil {
		return fail(err)
	}
	if !seen[2] || nullData {
		return fail(MissingField("envelope", "data"))
	}
	if decoded {
		return fact, unknown, false
	}
	fact, err = decode(typ, v, NewDecoder(raw))
	return fact, err, false
}

// DecodeEnvelope reads a fact's envelope without decoding its data. It
// refuses input that is not such an object, or that lacks data.
func DecodeEnvelope(data []byte) (Envelope, error) {
	env, err, _ := readFact(data, func(typ string, v int, d *Decoder) (Envelope, error) {
		raw, err := d.Skip()
		return Envelope{Type: typ, V: v, Data: raw}, err
	})
	return env, err
}

// SkipUnknown skips the data at d of a fact this build does not decode and
// returns err, which says so; when the data is not JSON it returns that
// error instead, prefixed "PKG: decode fact: ", since a damaged fact is not an
// unknown one.
func SkipUnknown(d *Decoder, pkg string, err error) error {
	if _, serr := d.Skip(); serr != nil {
		return fmt.Errorf("%s: decode fact: %w", pkg, serr)
	}
	return err
}
