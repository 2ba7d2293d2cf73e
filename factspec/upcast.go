package factspec

import (
	"strconv"

	"github.com/jobgen/jobgen/gen"
)

// upcast reads data, the fields of an older fact version as DecodeFact read
// them, as the version path's declared steps reach (decision 0173), each
// step as the generated upcasts take it: a field carried, renamed,
// converted or given its default, a field history left out left out.
func upcast(path gen.Path, data map[string]any) map[string]any {
	for _, c := range path.Steps {
		data = convertShape(c, data)
	}
	return data
}

// convertShape converts the fields of a value of c.From into those of c.To.
func convertShape(c *gen.Conversion, old map[string]any) map[string]any {
	out := make(map[string]any, len(c.Assigns)+1)
	if c.Kind == gen.ShapeVariant {
		out[c.Union.Discriminator] = tagValue(c.Tag)
	}
	for _, a := range c.Assigns {
		switch {
		case a.Default != nil:
			out[a.Field.JSON] = literalValue(a.Default, a.Field.Type)
			continue
		case a.Source == nil:
			continue // a new optional field: its zero, left out
		}
		v, ok := old[a.Source.JSON]
		if !ok || (a.KeepsAbsent() && isZero(v)) {
			if gen.WireRequired(a.Field) {
				out[a.Field.JSON] = zeroScalar(a.Field.Type)
			}
			continue
		}
		if nv, ok := convertValue(a.Conv, v); ok {
			out[a.Field.JSON] = nv
		}
	}
	return out
}

// convertValue converts one value by c; ok is false for an enum value
// mapped to nothing, which leaves the field at its zero.
func convertValue(c *gen.Conv, v any) (any, bool) {
	switch c.Kind {
	case gen.ConvSame:
		return v, true
	case gen.ConvCast:
		if c.To.Scalar().Kind == gen.ScalarFloat {
			switch n := v.(type) {
			case int64:
				return float64(n), true
			case uint64:
				return float64(n), true
			}
		}
		if u, ok := v.(uint64); ok && c.To.Scalar().Kind == gen.ScalarInt {
			return int64(u), true // an unsigned integer widened into a wider signed one
		}
		return v, true
	case gen.ConvEnum:
		from := ""
		switch x := v.(type) {
		case string:
			from = x
		case bool:
			from = "false"
			if x {
				from = "true"
			}
		}
		for _, m := range c.Values {
			if m.From == from && m.To != "" {
				return m.To, true
			}
		}
		return nil, false
	case gen.ConvShape:
		m, ok := v.(map[string]any)
		if !ok {
			return v, true
		}
		return convertShape(c.Shape, m), true
	case gen.ConvSlice:
		list, ok := v.([]any)
		if !ok {
			return v, true
		}
		out := make([]any, len(list))
		for i, e := range list {
			out[i], _ = convertValue(c.Elem, e)
		}
		return out, true
	case gen.ConvMap:
		m, ok := v.(map[string]any)
		if !ok {
			return v, true
		}
		out := make(map[string]any, len(m))
		for k, e := range m {
			out[k], _ = convertValue(c.Elem, e)
		}
		return out, true
	case gen.ConvPointer:
		if v == nil {
			return nil, true
		}
		return convertValue(c.Elem, v)
	}
	return v, true
}

// isZero reports whether v is the zero of its type as the generated
// decoders hold it: what Go's omitzero leaves out.
func isZero(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case string:
		return x == ""
	case bool:
		return !x
	case int64:
		return x == 0
	case uint64:
		return x == 0
	case float64:
		return x == 0
	case []any:
		return len(x) == 0
	case []byte:
		return len(x) == 0
	case map[string]any:
		for _, e := range x {
			if !isZero(e) {
				return false
			}
		}
		return true
	}
	return false
}

// literalValue is a default as DecodeFact's data holds a value of type t.
func literalValue(l *gen.Literal, t *gen.Type) any {
	switch s := t.Scalar(); {
	case l.Kind == gen.LitBool:
		return l.Bool()
	case s.Kind == gen.ScalarFloat:
		f, _ := strconv.ParseFloat(l.Float(), 64)
		return f
	case s.Kind == gen.ScalarUint:
		return uint64(l.Int())
	case s.Kind == gen.ScalarInt:
		return l.Int()
	}
	return l.Text
}

// zeroScalar is the zero of a scalar or string id as the data holds it.
func zeroScalar(t *gen.Type) any {
	switch s := t.Scalar(); s.Kind {
	case gen.ScalarBool:
		return false
	case gen.ScalarInt:
		return int64(0)
	case gen.ScalarUint:
		return uint64(0)
	case gen.ScalarFloat:
		return float64(0)
	}
	return ""
}

// tagValue is a variant's tag as the data holds it.
func tagValue(t gen.Tag) any {
	if t.Kind == gen.TagBool {
		return t.Bool
	}
	return t.String
}
