package codec

import (
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// Tolerant reading (decision 0174): a reader meeting what its build does not
// know — a fact type, a version, a union variant, an enum value — keeps it as
// an Unknown, counts it, and goes on; damage stays an error. The strict
// decoders stay as they are: tolerance is a reading mode (each generated
// package's ReadFact), never what a build writes.

// An UnknownReason says what a build did not know about a fact.
type UnknownReason string

// The reasons.
const (
	// UnknownType is a fact type no spec of the build declares.
	UnknownType UnknownReason = "type"
	// UnknownVersion is a known type at a version the build does not
	// decode: newer, or retired.
	UnknownVersion UnknownReason = "version"
	// UnknownVariant is a union variant the build does not know, inside a
	// fact it otherwise knows.
	UnknownVariant UnknownReason = "variant"
	// UnknownValue is an enum value the build does not know, inside a fact
	// it otherwise knows.
	UnknownValue UnknownReason = "value"
)

// An Unknown is what a tolerant reader keeps of a fact its build does not
// know: the fact's type and version as its envelope names them, why, the
// strict decoder's error, and the fact's bytes as they were read.
type Unknown struct {
	Type string
	V    int
	Why  UnknownReason
	// Raw is the whole envelope, byte for byte as read: never rewritten.
	Raw []byte
	// Err is the strict decoder's error, wrapping ErrUnknownFact,
	// ErrUnknownVariant or ErrInvalidEnum.
	Err error
}

// Kind is the fact's type and version.
func (u Unknown) Kind() FactKind { return FactKind{Type: u.Type, V: u.V} }

// String describes it: "job/registered v3 (a version this build does not know)".
func (u Unknown) String() string {
	what := map[UnknownReason]string{
		UnknownType:    "a type this build does not know",
		UnknownVersion: "a version this build does not know",
		UnknownVariant: "a union variant this build does not know",
		UnknownValue:   "an enum value this build does not know",
	}[u.Why]
	return u.Type + " v" + strconv.Itoa(u.V) + " (" + what + ")"
}

// held makes a type that embeds an Unknown (each generated package's
// UnknownFact) recognizable to AsUnknown.
func (u Unknown) held() Unknown { return u }

// AsUnknown returns the Unknown v holds, when v is one (a generated
// package's UnknownFact, which embeds it).
func AsUnknown(v any) (Unknown, bool) {
	h, ok := v.(interface{ held() Unknown })
	if !ok {
		return Unknown{}, false
	}
	return h.held(), true
}

// IsUnknown reports whether err, from a strict decoder, says data holds
// something the build does not know rather than damage: an error wrapping
// ErrUnknownFact (and so ErrUnknownVersion), ErrUnknownVariant or
// ErrInvalidEnum.
func IsUnknown(err error) bool {
	return errors.Is(err, ErrUnknownFact) || errors.Is(err, ErrUnknownVariant) || errors.Is(err, ErrInvalidEnum)
}

// Tolerate returns the Unknown a tolerant reader keeps of data, whose strict
// decoding failed with err, when err says the build does not know it; ok is
// false for damage (including an envelope that does not decode).
func Tolerate(data []byte, err error) (u Unknown, ok bool) {
	if err == nil || !IsUnknown(err) {
		return Unknown{}, false
	}
	env, eerr := DecodeEnvelope(data)
	if eerr != nil {
		return Unknown{}, false
	}
	u = Unknown{Type: env.Type, V: env.V, Raw: slices.Clone(data), Err: err}
	switch {
	case errors.Is(err, ErrUnknownVersion):
		u.Why = UnknownVersion
	case errors.Is(err, ErrUnknownFact):
		u.Why = UnknownType
	case errors.Is(err, ErrUnknownVariant):
		u.Why = UnknownVariant
	default:
		u.Why = UnknownValue
	}
	return u, true
}

// Salvage reads the fields of the fact data data (an envelope's data) into
// out, a pointer to a generated fact struct, each on its own: a field whose
// JSON is present and decodes is set, any other is left zero. It returns the
// JSON names of the fields it could not give a value: required ones absent,
// and any whose value does not decode (a value or variant this build does
// not know). It is what a generated UnknownFact's Salvage reads with: what
// a reader can show of a fact a newer build wrote, never what it writes.
func Salvage(data []byte, out any) (missing []string) {
	v := reflect.ValueOf(out).Elem()
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		fields = nil
	}
	for i := range v.NumField() {
		sf := v.Type().Field(i)
		name, opts, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if !sf.IsExported() || name == "" || name == "-" {
			continue
		}
		raw, ok := fields[name]
		if !ok || string(raw) == "null" {
			if !strings.Contains(opts, "omitzero") && sf.Type.Kind() != reflect.Slice && sf.Type.Kind() != reflect.Map {
				missing = append(missing, name)
			}
			continue
		}
		p := reflect.New(sf.Type)
		if err := json.Unmarshal(raw, p.Interface()); err != nil {
			missing = append(missing, name)
			continue
		}
		v.Field(i).Set(p.Elem())
	}
	return missing
}
