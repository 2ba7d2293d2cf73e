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
	r := envelopeReader[F]{d: NewDecoder(data), decode: decode}
	more, err := r.d.Object()
	if err != nil {
		return zero, fmt.Errorf("envelope: %w", err), true
	}
	for first := true; more; first = false {
		var key []byte
		key, more, err = r.d.Next(first)
		if err != nil {
			return zero, err, true
		}
		if !more {
			break
		}
		if err, envelope := r.field(key); err != nil {
			return zero, err, envelope
		}
	}
	if err := r.d.End(); err != nil {
		return zero, err, true
	}
	if !r.seen[2] || r.nullData {
		return zero, MissingField("envelope", "data"), true
	}
	if r.decoded {
		return r.fact, r.unknown, false
	}
	fact, err := decode(r.typ, r.v, NewDecoder(r.raw))
	return fact, err, false
}

// An envelopeReader is what readFact knows while it reads an envelope's
// fields: which it has seen, the type and version, and the data, decoded in
// place when type and v came before it and kept raw otherwise.
type envelopeReader[F any] struct {
	d        *Decoder
	decode   func(typ string, v int, d *Decoder) (F, error)
	typ      string
	v        int
	seen     [3]bool // type, v, data
	others   KeySet
	raw      []byte // the data, when it came before type or v
	fact     F
	decoded  bool
	nullData bool
	unknown  error // decode's, for a fact this build does not know
}

// field reads the value of the envelope field key; envelope reports that an
// error is the envelope's, not decode's.
func (r *envelopeReader[F]) field(key []byte) (_ error, envelope bool) {
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
		if err := r.others.Other("envelope", key, envelopeFields); err != nil {
			return err, true
		}
		_, err := r.d.Skip()
		return err, true
	}
	if r.seen[i] {
		return DuplicateKey("envelope", key), true
	}
	r.seen[i] = true
	if r.d.Null() {
		if i == 2 {
			r.nullData = true
		}
		return nil, true
	}
	switch i {
	case 0:
		typ, err := r.d.String()
		if err != nil {
			return FieldError("envelope", "type", err), true
		}
		r.typ = typ
	case 1:
		n, err := r.d.Int(strconv.IntSize)
		if err != nil {
			return FieldError("envelope", "v", err), true
		}
		r.v = int(n)
	case 2:
		return r.data()
	}
	return nil, true
}

// data reads the envelope's data: through decode in place when type and v
// are known, and otherwise as raw bytes for decode once the envelope is
// read. envelope reports that an error is the envelope's, not decode's.
func (r *envelopeReader[F]) data() (_ error, envelope bool) {
	if !r.seen[0] || !r.seen[1] {
		var err error
		r.raw, err = r.d.Skip()
		return err, true
	}
	r.fact, r.unknown = r.decode(r.typ, r.v, r.d)
	if r.unknown != nil && !errors.Is(r.unknown, ErrUnknownFact) {
		return r.unknown, false
	}
	// An unknown fact is unknown only if the rest of its envelope is sound:
	// read on.
	r.decoded = true
	return nil, true
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
