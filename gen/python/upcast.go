package python

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/jobgen/jobgen/gen"
	"github.com/jobgen/jobgen/gen/doctext"
)

// The upcasts of a module (decision 0173): one function per conversion the
// spec's declarations derive, _upcast_FROM_to_TO, which turns the JSON Go
// writes for the older shape into the JSON Go writes for the newer one.
// decode_fact reads an older version strictly, and runtime.upcast encodes
// it as Go would, chains the steps and validates the result as the newest
// version, so a caller sees what Go's DecodeFact returns.

// upcasts writes the module's upcast functions, after the tables of enum
// values they map.
func (w *pyWriter) upcasts() {
	conversions := w.spec.Conversions()
	w.valueTables(conversions)
	for _, c := range conversions {
		obj := w.runtimeName("JsonObject")
		w.blank()
		if one := fmt.Sprintf("def %s(old: %s) -> %s:", pyUpcastFunc(c), obj, obj); len(one) <= 88 {
			w.line("%s", one)
		} else {
			w.line("def %s(", pyUpcastFunc(c))
			w.line("    old: %s,", obj)
			w.line(") -> %s:", obj)
		}
		w.docstring("    ", fmt.Sprintf("Read the JSON of %s %s as the JSON of the %s the spec derives from it.", doctext.Article(c.From), c.From, c.To), "")
		w.line("    out: %s = {}", obj)
		if c.Kind == gen.ShapeVariant {
			w.line("    out[%q] = %s", c.Union.Discriminator, tagLiteral(c.Tag))
		}
		temps := 0
		for _, a := range c.Assigns {
			w.upcastAssign(a, &temps)
		}
		w.line("    return out")
	}
}

// valueTables writes a module-level dict for each enum-to-enum conversion
// the upcasts make, mapping the old values to the new, and names it in
// w.tables.
func (w *pyWriter) valueTables(conversions []*gen.Conversion) {
	w.tables = map[*gen.Conv]string{}
	for _, c := range conversions {
		for _, a := range c.Assigns {
			for cv := a.Conv; cv != nil; cv = cv.Elem {
				if cv.Kind != gen.ConvEnum || cv.FromBool {
					continue
				}
				name := fmt.Sprintf("_%s_%s", upperSnake(c.Name()), upperSnake(a.Field.Name))
				w.tables[cv] = name
				w.typing["Final"] = true
				w.blank()
				w.line("%s: Final[dict[str, str]] = {", name)
				for _, v := range cv.Values {
					if v.To != "" {
						w.line("    %q: %q,", v.From, v.To)
					}
				}
				w.line("}")
				w.docstring("", fmt.Sprintf("%s maps each value of %s to the %s an upcast of %s reads it as.", name, cv.From.Name, cv.To.Name, c.From), "")
			}
		}
	}
}

func pyUpcastFunc(c *gen.Conversion) string {
	return "_upcast_" + snake(c.From) + "_to_" + snake(c.To)
}

// upcastAssign writes the statements that give one field its JSON value;
// temps numbers the temporaries, so each has one type.
func (w *pyWriter) upcastAssign(a *gen.Assign, temps *int) {
	key := strconv.Quote(a.Field.JSON)
	set := func(indent, expr string) { w.line("%sout[%s] = %s", indent, key, expr) }
	switch {
	case a.Default != nil:
		set("    ", pyLiteral(a.Default, a.Field.Type))
		return
	case a.Source == nil:
		return // a new optional field: its zero, left out
	}
	src := fmt.Sprintf("old[%q]", a.Source.JSON)
	if inner := a.Conv; inner.Kind == gen.ConvEnum || (inner.Kind == gen.ConvPointer && inner.Wrap && inner.Elem.Kind == gen.ConvEnum) {
		// An enum value mapped to nothing is the zero value: left out.
		x := w.temp(temps)
		in := src
		if a.Source.Optional {
			in = fmt.Sprintf("old.get(%q, %s)", a.Source.JSON, map[bool]string{true: "False", false: `""`}[a.Conv.Innermost().FromBool])
		}
		w.line("    %s = %s", x, w.enumValue(a.Conv.Innermost(), in, true))
		w.line("    if %s is not None:", x)
		set("        ", x)
		return
	}
	switch {
	case !a.Source.Optional:
		w.convertInto("    ", a.Conv, src, set, temps)
	case gen.WireRequired(a.Field):
		w.line("    if %q not in old:", a.Source.JSON)
		set("        ", pyZeroJSON(a.Field.Type))
		w.line("    else:")
		w.convertInto("        ", a.Conv, src, set, temps)
	default:
		w.line("    if %q in old:", a.Source.JSON)
		w.convertInto("        ", a.Conv, src, set, temps)
	}
}

// temp is a fresh temporary's name.
func (w *pyWriter) temp(temps *int) string {
	*temps++
	return fmt.Sprintf("x%d", *temps-1)
}

// convertInto writes, at indent, the statements converting the JSON value
// x by c and handing the result to set.
func (w *pyWriter) convertInto(indent string, c *gen.Conv, x string, set func(indent, expr string), temps *int) {
	if c.Trivial() {
		set(indent, x) // the same JSON
		return
	}
	switch c.Kind {
	case gen.ConvShape:
		set(indent, pyUpcastFunc(c.Shape)+"("+x+")")
	case gen.ConvEnum:
		set(indent, w.enumValue(c, x, false))
	case gen.ConvSlice:
		t, e := w.temp(temps), w.temp(temps)
		w.line("%s%s: list[Any] = []", indent, t)
		w.line("%sfor %s in %s:", indent, e, x)
		w.convertInto(indent+"    ", c.Elem, e, func(ind, expr string) { w.line("%s%s.append(%s)", ind, t, expr) }, temps)
		set(indent, t)
	case gen.ConvMap:
		t, k, e := w.temp(temps), w.temp(temps), w.temp(temps)
		w.line("%s%s: %s = {}", indent, t, w.runtimeName("JsonObject"))
		w.line("%sfor %s, %s in %s.items():", indent, k, e, x)
		w.convertInto(indent+"    ", c.Elem, e, func(ind, expr string) { w.line("%s%s[%s] = %s", ind, t, k, expr) }, temps)
		set(indent, t)
	case gen.ConvPointer:
		if c.Wrap {
			w.convertInto(indent, c.Elem, x, set, temps)
			return
		}
		w.line("%sif %s is None:", indent, x)
		set(indent+"    ", "None")
		w.line("%selse:", indent)
		w.convertInto(indent+"    ", c.Elem, x, set, temps)
	default:
		panic(fmt.Sprintf("gen: unknown conversion kind %d", c.Kind))
	}
}

// enumValue maps the enum (or bool) JSON value x to the new enum's: with
// get, a value mapped to nothing is None; without, every value is mapped.
// The mapping of enum values is a module-level table (valueTables).
func (w *pyWriter) enumValue(c *gen.Conv, x string, get bool) string {
	if c.FromBool {
		then, otherwise := "None", "None"
		for _, v := range c.Values {
			switch {
			case v.To == "":
			case v.From == "true":
				then = strconv.Quote(v.To)
			default:
				otherwise = strconv.Quote(v.To)
			}
		}
		return fmt.Sprintf("%s if %s is True else %s", then, x, otherwise)
	}
	table := w.tables[c]
	if get {
		return table + ".get(" + x + ")"
	}
	return table + "[" + x + "]"
}

// pyLiteral is a default of a field of type t as the Python value
// json.loads gives for the JSON Go writes.
func pyLiteral(l *gen.Literal, t *gen.Type) string {
	switch l.Kind {
	case gen.LitString:
		return strconv.Quote(l.Text)
	case gen.LitBool:
		if l.Bool() {
			return "True"
		}
		return "False"
	case gen.LitInt:
		if t.Scalar().Kind != gen.ScalarFloat {
			return strconv.FormatInt(l.Int(), 10)
		}
	}
	f := l.Float()
	if !strings.ContainsAny(f, ".e") {
		f += ".0"
	}
	return f
}

// pyZeroJSON is the zero of a scalar or string id as json.loads gives it.
func pyZeroJSON(t *gen.Type) string {
	switch t.Scalar().Kind {
	case gen.ScalarBool:
		return "False"
	case gen.ScalarInt, gen.ScalarUint:
		return "0"
	case gen.ScalarFloat:
		return "0.0"
	}
	return `""`
}
