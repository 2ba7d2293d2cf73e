package typescript

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/jobgen/jobgen/gen"
	"github.com/jobgen/jobgen/gen/doctext"
)

// The upcasts of a module (decision 0173): one function per conversion the
// spec's declarations derive, _upcastFROMToTO, which turns the JSON Go
// writes for the older shape into the JSON Go writes for the newer one.
// decodeFact reads an older version strictly, encodes it as Go would,
// chains the upcasts, and decodes the result as the newest version, so a
// caller sees what Go's DecodeFact returns, zero fields left out and all.

// upcasts writes the module's upcast functions.
func (w *tsWriter) upcasts() {
	for _, c := range w.spec.Conversions() {
		doc := fmt.Sprintf("%s reads the JSON of %s %s as the JSON of the %s the spec derives from it.", tsUpcastFunc(c), doctext.Article(c.From), c.From, c.To)
		param := "_old"
		for _, a := range c.Assigns {
			if a.Source != nil {
				param = "old"
			}
		}
		w.function(doc, false, tsUpcastFunc(c), []tsParam{{name: param, typ: "JSONObject"}}, "JSONObject", func() {
			w.line("  const out%s = {};", ty(": JSONObject"))
			if c.Kind == gen.ShapeVariant {
				w.line("  out[%q] = %s;", c.Union.Discriminator, tsTagLit(c.Tag))
			}
			for _, a := range c.Assigns {
				w.upcastAssign(a)
			}
			w.line("  return out;")
		})
	}
}

func tsUpcastFunc(c *gen.Conversion) string { return "_upcast" + c.Name() }

// upcastAssign writes the statements that give one field its JSON value.
func (w *tsWriter) upcastAssign(a *gen.Assign) {
	key := strconv.Quote(a.Field.JSON)
	switch {
	case a.Default != nil:
		w.line("  out[%s] = %s;", key, jsonLiteral(a.Default))
		return
	case a.Source == nil:
		return // a new optional field: its zero, left out
	}
	src := fmt.Sprintf("old[%q]", a.Source.JSON)
	value := w.upcastValue(a.Conv, "("+src+ty(" as JSONValue")+")", 0)
	if inner := a.Conv.Innermost(); a.Conv.Kind == gen.ConvEnum || (a.Conv.Kind == gen.ConvPointer && inner.Kind == gen.ConvEnum && a.Conv.Wrap) {
		// An enum value mapped to nothing is the zero value: left out.
		w.line("  {")
		w.line("    const x = %s;", value)
		w.line("    if (x !== undefined) out[%s] = x;", key)
		w.line("  }")
		return
	}
	switch {
	case !a.Source.Optional:
		w.line("  out[%s] = %s;", key, value)
	case gen.WireRequired(a.Field):
		w.line("  out[%s] = %s !== undefined ? %s : %s;", key, src, value, jsonZero(a.Field.Type))
	default:
		w.line("  if (%s !== undefined) out[%s] = %s;", src, key, value)
	}
}

// upcastValue is the expression converting the JSON value x by c; depth
// keeps nested arrow functions' parameters apart.
func (w *tsWriter) upcastValue(c *gen.Conv, x string, depth int) string {
	e := fmt.Sprintf("e%d", depth)
	if c.Trivial() {
		return x // the same JSON
	}
	switch c.Kind {
	case gen.ConvSame, gen.ConvCast:
		return x
	case gen.ConvShape:
		return tsUpcastFunc(c.Shape) + "(" + x + ty(" as JSONObject") + ")"
	case gen.ConvEnum:
		if c.FromBool {
			var then, otherwise string = "undefined", "undefined"
			for _, v := range c.Values {
				if v.To == "" {
					continue
				}
				if v.From == "true" {
					then = strconv.Quote(v.To)
				} else {
					otherwise = strconv.Quote(v.To)
				}
			}
			return fmt.Sprintf("(%s === true ? %s : %s)", x, then, otherwise)
		}
		var pairs []string
		for _, v := range c.Values {
			if v.To != "" {
				pairs = append(pairs, fmt.Sprintf("%q: %q", v.From, v.To))
			}
		}
		lookup := fmt.Sprintf("(%s%s)[%s%s]", "{ "+strings.Join(pairs, ", ")+" }", ty(" as { [k: string]: JSONValue }"), x, ty(" as string"))
		if depth > 0 {
			return lookup + ty(" as JSONValue")
		}
		return lookup
	case gen.ConvSlice:
		return fmt.Sprintf("(%s%s).map((%s) => %s)", x, ty(" as JSONValue[]"), e, w.upcastValue(c.Elem, e, depth+1))
	case gen.ConvMap:
		k := fmt.Sprintf("k%d", depth)
		return fmt.Sprintf("Object.fromEntries(Object.entries(%s%s).map(([%s, %s]) => [%s, %s]))", x, ty(" as JSONObject"), k, e, k, w.upcastValue(c.Elem, e, depth+1))
	case gen.ConvPointer:
		if c.Wrap {
			return w.upcastValue(c.Elem, x, depth)
		}
		return fmt.Sprintf("(%s === null ? null : %s)", x, w.upcastValue(c.Elem, x, depth+1))
	}
	panic(fmt.Sprintf("gen: unknown conversion kind %d", c.Kind))
}

// jsonLiteral is a default as the JSON value Go writes for it.
func jsonLiteral(l *gen.Literal) string {
	switch l.Kind {
	case gen.LitString:
		return strconv.Quote(l.Text)
	case gen.LitInt, gen.LitFloat:
		return l.Float()
	}
	return l.Text
}

// jsonZero is the JSON Go writes for the zero value of a scalar or string
// id (the only types a required field derived from an optional one holds).
func jsonZero(t *gen.Type) string {
	switch t.Scalar().Kind {
	case gen.ScalarBool:
		return "false"
	case gen.ScalarInt, gen.ScalarUint, gen.ScalarFloat:
		return "0"
	}
	return `""`
}
