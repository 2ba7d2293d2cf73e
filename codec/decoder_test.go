package codec

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// referenceEnvelope is DecodeEnvelope as it was before the one-pass decoder:
// encoding/json, then a key check. The decoder must refuse what it refused
// and read what it read.
func referenceEnvelope(data []byte) (Envelope, error) {
	var env Envelope
	if err := json.Unmarshal(data, &env); err != nil {
		return Envelope{}, err
	}
	if err := CheckKeys("envelope", data, "type", "v", "data"); err != nil {
		return Envelope{}, err
	}
	if env.Data == nil || bytes.Equal(env.Data, []byte("null")) {
		return Envelope{}, MissingField("envelope", "data")
	}
	return env, nil
}

var decoderSeeds = []string{
	`{"type":"a/x","v":1,"data":{"k":[1,2.5e3,-0,"s\u00e9\n",true,false,null,{}]}}`,
	`{"data":{"x":1},"v":2,"type":"a/x"}`,
	`{"type":"a/x","v":1.0,"data":{}}`,
	`{"type":"a/x","v":1,"data":{},"Data":1}`,
	`{"type":"a/x","v":1,"data":{},"data":{}}`,
	`{"type":"a/x","v":1,"data":null}`,
	`{"type":null,"v":null,"data":[]}`,
	`{"type":"a\"x","v":-3,"data":"x"} `,
	`{"type":"a/x","v":1,"data":{}}x`,
	`{"type":"\ud800","v":1,"data":{"a":"\xff"}}`,
	`{"type":"a","v":1,"data":{"a":01}}`,
	`{"type":"a","v":99999999999999999999,"data":1}`,
	`[1,2,3]`, `"s"`, `null`, `{`, `{"type"`, `{"x":1,"x":2,"data":1}`,
}

// FuzzDecoderMatchesEncodingJSON: the one-pass decoder accepts the JSON
// encoding/json accepts, reads strings and integers as it does, and reads
// envelopes as DecodeEnvelope did with encoding/json.
func FuzzDecoderMatchesEncodingJSON(f *testing.F) {
	for _, s := range decoderSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d := NewDecoder(data)
		_, err := d.Skip()
		if err == nil {
			err = d.End()
		}
		if valid := json.Valid(data); valid != (err == nil) {
			t.Fatalf("Skip+End of %q: err = %v; json.Valid = %v", data, err, valid)
		}

		if string(bytes.TrimSpace(data)) == "null" {
			return // generated code reads null before it reads a value: d.Null
		}
		var s string
		serr := json.Unmarshal(data, &s)
		got, err := NewDecoder(data).String()
		if serr == nil && (err != nil || got != s) {
			t.Fatalf("String of %q = %q, %v; encoding/json reads %q", data, got, err, s)
		}

		var n int64
		nerr := json.Unmarshal(data, &n)
		d = NewDecoder(data)
		m, err := d.Int(64)
		if err == nil {
			err = d.End()
		}
		if (nerr == nil) != (err == nil) || nerr == nil && m != n {
			t.Fatalf("Int of %q = %d, %v; encoding/json: %d, %v", data, m, err, n, nerr)
		}

		want, werr := referenceEnvelope(data)
		env, err := DecodeEnvelope(data)
		if (werr == nil) != (err == nil) {
			t.Fatalf("DecodeEnvelope(%q): err = %v; before: %v", data, err, werr)
		}
		if err == nil && (env.Type != want.Type || env.V != want.V || !bytes.Equal(env.Data, want.Data)) {
			t.Fatalf("DecodeEnvelope(%q) = %+v; before: %+v", data, env, want)
		}
	})
}

// TestDecoderNestsAsDeepAsEncodingJSON: the nesting limit counts from the
// document's top, as encoding/json's does, whether the deep value is
// skipped under an envelope key, kept as data, or read as data in place.
func TestDecoderNestsAsDeepAsEncodingJSON(t *testing.T) {
	deep := func(n int) string { return strings.Repeat("[", n) + "0" + strings.Repeat("]", n) }
	for _, n := range []int{maxDepth - 2, maxDepth - 1, maxDepth} {
		for _, doc := range []string{
			deep(n + 1),
			`{"type":"a/x","v":1,"x":` + deep(n) + `,"data":{}}`,
			`{"data":` + deep(n) + `,"type":"a/x","v":1}`,
			`{"type":"a/x","v":1,"data":` + deep(n) + `}`,
			`{"type":"a/x","v":1,"data":{"a":` + deep(n-1) + `}}`,
		} {
			jerr := json.Unmarshal([]byte(doc), new(any))
			_, err, _ := readFact([]byte(doc), func(typ string, v int, d *Decoder) (any, error) {
				if d.Null() {
					return nil, nil
				}
				if d.data[d.i] != '{' {
					return d.Skip()
				}
				more, err := d.Object()
				for first := true; more && err == nil; first = false {
					if _, more, err = d.Next(first); more && err == nil {
						_, err = d.Skip()
					}
				}
				return nil, err
			})
			if _, serr := NewDecoder([]byte(doc)).Skip(); doc[0] == '[' {
				err = serr
			}
			if (jerr == nil) != (err == nil) {
				t.Errorf("%d deep: the decoder says %v, encoding/json %v", n, err, jerr)
			}
		}
	}
}

// TestDecoderReadsArraysAndNumbersForModelDrivenDecoders: Peek, Array, More
// and Number, which a decoder without Go types (package factspec) walks a
// value with, read what they say and refuse what they do not.
func TestDecoderReadsArraysAndNumbersForModelDrivenDecoders(t *testing.T) {
	d := NewDecoder([]byte(` [ 1.5e3 , -2 ,[]] `))
	if c := d.Peek(); c != '[' {
		t.Fatalf("Peek = %q, want '['", c)
	}
	more, err := d.Array()
	if !more || err != nil {
		t.Fatalf("Array = %v, %v", more, err)
	}
	var nums []string
	for more && d.Peek() != '[' {
		n, err := d.Number()
		if err != nil {
			t.Fatal(err)
		}
		nums = append(nums, string(n))
		if more, err = d.More(); err != nil {
			t.Fatal(err)
		}
	}
	if strings.Join(nums, " ") != "1.5e3 -2" {
		t.Errorf("numbers = %q", nums)
	}
	if more, err := d.Array(); more || err != nil {
		t.Errorf("an empty array: %v, %v", more, err)
	}
	if more, err := d.More(); more || err != nil {
		t.Errorf("the end of the outer array: %v, %v", more, err)
	}
	if err := d.End(); err != nil || d.Peek() != 0 {
		t.Errorf("End = %v, Peek = %q", err, d.Peek())
	}
	for _, bad := range []string{`"1"`, `{}`, `null`} {
		if _, err := NewDecoder([]byte(bad)).Number(); err == nil {
			t.Errorf("Number(%s) read it", bad)
		}
		if _, err := NewDecoder([]byte(bad)).Array(); err == nil {
			t.Errorf("Array(%s) read it", bad)
		}
	}
	d = NewDecoder([]byte(`[1 2]`))
	d.Array()
	d.Number()
	if _, err := d.More(); err == nil {
		t.Error("More read an array without a comma between its elements")
	}
}

// StringBytes reads what encoding/json reads and refuses what it refuses
// with a quote, a backslash, a control character, a multi-byte rune or a
// byte that is not UTF-8 at any offset of the eight bytes it looks at
// once, and with the string cut short at any length.
func TestStringBytesStopsAtEveryByteThatMatters(t *testing.T) {
	for _, special := range []string{`"`, `\\`, `\"`, `\u00e9`, "\x00", "\x1f", "\t", "\x7f", "é", "日", "\xff", "\xc3", "\x80", "\x9f", `\`, `\x`} {
		for at := range 20 {
			for tail := range 10 {
				doc := `"` + strings.Repeat("a", at) + special + strings.Repeat("b", tail) + `"`
				for _, in := range []string{doc, doc[:len(doc)-1], doc + ` `, doc[:len(doc)/2]} {
					var want string
					werr := json.Unmarshal([]byte(in), &want)
					d := NewDecoder([]byte(in))
					got, err := d.StringBytes()
					if err == nil {
						err = d.End()
					}
					if (werr == nil) != (err == nil) || werr == nil && string(got) != want {
						t.Fatalf("StringBytes(%q) = %q, %v; encoding/json: %q, %v", in, got, err, want, werr)
					}
				}
			}
		}
	}
}
