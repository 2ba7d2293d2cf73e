package httproute

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
)

// The parsers of parameters written as text. A number must be written as
// a server writes one, in canonical decimal: no sign on a positive number,
// no leading zero, nothing around the digits, so that one value has one
// spelling and a client's "+3" or "007" is refused rather than guessed at.

// ParseInt parses a signed integer of bits bits in canonical decimal.
func ParseInt(s string, bits int) (int64, error) {
	v, err := strconv.ParseInt(s, 10, bits)
	if err != nil || strconv.FormatInt(v, 10) != s {
		return 0, notInteger(s, bits, "")
	}
	return v, nil
}

// ParseUint parses an unsigned integer of bits bits in canonical decimal.
func ParseUint(s string, bits int) (uint64, error) {
	v, err := strconv.ParseUint(s, 10, bits)
	if err != nil || strconv.FormatUint(v, 10) != s {
		return 0, notInteger(s, bits, "u")
	}
	return v, nil
}

func notInteger(s string, bits int, u string) error {
	return fmt.Errorf("%q is not an %sint%d in decimal as a server writes one (digits, no sign on a positive, no leading zero)", s, u, bits)
}

// ParseBool parses true or false, and nothing else.
func ParseBool(s string) (bool, error) {
	switch s {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, fmt.Errorf("%q is not true or false", s)
}

// A With is an object with a second record's keys beside its own: Item's
// JSON object with Extra's keys added, as the spec's with declares (a
// fleet adds each job's placement to the job). Extra's fields are all
// optional, so a With whose Extra is zero is Item's JSON as it is, and
// reading one decodes both from the same object.
type With[T, X any] struct {
	Item  T
	Extra X
}

// MarshalJSON writes Item's object with Extra's keys added at its end.
func (w With[T, X]) MarshalJSON() ([]byte, error) {
	obj, err := json.Marshal(w.Item)
	if err != nil {
		return nil, err
	}
	extra, err := json.Marshal(w.Extra)
	if err != nil {
		return nil, err
	}
	if len(extra) <= 2 { // {}: nothing to add
		return obj, nil
	}
	if len(obj) < 2 || obj[0] != '{' || obj[len(obj)-1] != '}' || extra[0] != '{' {
		return nil, errors.New("httproute: With holds a value that is not a JSON object")
	}
	if len(obj) > 2 {
		obj[len(obj)-1] = ','
	} else {
		obj = obj[:1]
	}
	return append(obj, extra[1:]...), nil
}

// UnmarshalJSON reads Item and Extra from the same object, each with its
// own decoder, which ignores the other's keys.
func (w *With[T, X]) UnmarshalJSON(data []byte) error {
	if err := json.Unmarshal(data, &w.Item); err != nil {
		return err
	}
	return json.Unmarshal(data, &w.Extra)
}

// The typed parsers generated code calls, one per kind of text, each
// returning the parameter's own type.

// Int parses a signed integer of bits bits as T.
func Int[T ~int | ~int8 | ~int16 | ~int32 | ~int64](s string, bits int) (T, error) {
	v, err := ParseInt(s, bits)
	return T(v), err
}

// Uint parses an unsigned integer of bits bits as T.
func Uint[T ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64](s string, bits int) (T, error) {
	v, err := ParseUint(s, bits)
	return T(v), err
}

// String reads text as T, a string or a string id, as it is.
func String[T ~string](s string) (T, error) { return T(s), nil }

// Enum reads text as one of an enum's values, which its generated
// UnmarshalText checks.
func Enum[T any, P interface {
	*T
	UnmarshalText([]byte) error
}](s string) (T, error) {
	var v T
	err := P(&v).UnmarshalText([]byte(s))
	return v, err
}

// EncodeJSON encodes an answer or an event's data: v's JSON, a nil list
// as [].
func EncodeJSON(v any) ([]byte, error) {
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Slice && rv.IsNil() {
		return []byte("[]"), nil
	}
	return json.Marshal(v)
}
