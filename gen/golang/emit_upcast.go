package golang

import (
	"fmt"
	"strconv"

	"github.com/dave/jennifer/jen"

	"github.com/jobgen/jobgen/gen"
	"github.com/jobgen/jobgen/gen/doctext"
)

// upcasts emits one func per conversion the spec's declarations derive
// (decision 0173): upcastFROMToTO, which DecodeFact chains to read an older
// fact version as the newest, field by field as the plan says.
func (e *emitter) upcasts(f *jen.File) {
	for _, c := range e.spec.Conversions() {
		f.Line()
		f.Comment(upcastDoc(c))
		var body []jen.Code
		body = append(body, jen.Var().Id("out").Id(c.To))
		for _, a := range c.Assigns {
			body = append(body, e.assign(jen.Id("out").Dot(a.Field.GoName), a, jen.Id("old").Dot(nameOf(a.Source)), 0)...)
		}
		body = append(body, jen.Return(jen.Id("out")))
		f.Func().Id(upcastFunc(c)).Params(jen.Id("old").Id(c.From)).Id(c.To).Block(body...)
	}
}

// upcastFunc is the name of the func that performs c.
func upcastFunc(c *gen.Conversion) string { return "upcast" + c.Name() }

// upcastDoc is the doc comment of c's func.
func upcastDoc(c *gen.Conversion) string {
	return fmt.Sprintf("%s reads %s %s as the %s the spec derives from it.", upcastFunc(c), doctext.Article(c.From), c.From, c.To)
}

func nameOf(f *gen.Field) string {
	if f == nil {
		return ""
	}
	return f.GoName
}

// assign is the statements giving target the value a says: its default, its
// zero (no statement), or src converted.
func (e *emitter) assign(target *jen.Statement, a *gen.Assign, src *jen.Statement, depth int) []jen.Code {
	switch {
	case a.Default != nil:
		return []jen.Code{target.Clone().Op("=").Add(e.literal(a.Default, a.Field.Type))}
	case a.Source == nil:
		return nil
	case a.KeepsAbsent():
		return []jen.Code{jen.If(jen.Op("!").Qual(codecPkg, "IsZero").Call(src)).Block(e.convert(target, a.Conv, src, depth)...)}
	}
	return e.convert(target, a.Conv, src, depth)
}

// literal is a default as a Go constant of type t.
func (e *emitter) literal(lit *gen.Literal, t *gen.Type) jen.Code {
	if t.Kind == gen.TypeNamed && t.Decl() == gen.DeclEnum {
		return jen.Id(e.enumConst(t.Name, lit.Text))
	}
	switch lit.Kind {
	case gen.LitBool:
		return jen.Lit(lit.Bool())
	case gen.LitInt:
		if t.Scalar().Kind == gen.ScalarFloat {
			return jen.Op(lit.Float())
		}
		return jen.Op(strconv.FormatInt(lit.Int(), 10))
	case gen.LitFloat:
		return jen.Op(lit.Float())
	}
	return jen.Lit(lit.Text)
}

// enumConst is the Go constant of value in the enum named enum.
func (e *emitter) enumConst(enum, value string) string {
	for _, v := range e.spec.Index().Enums[enum].Values {
		if v.Value == value {
			return v.GoName
		}
	}
	panic("gen: enum " + enum + " has no value " + value) // Validate checked it
}

// convert is the statements giving target src converted by c; depth keeps
// the names of nested loops' variables apart.
func (e *emitter) convert(target *jen.Statement, c *gen.Conv, src *jen.Statement, depth int) []jen.Code {
	x := jen.Id(fmt.Sprintf("x%d", depth))
	switch c.Kind {
	case gen.ConvSame:
		return []jen.Code{target.Clone().Op("=").Add(src)}
	case gen.ConvCast:
		return []jen.Code{target.Clone().Op("=").Add(goType(c.To)).Call(src)}
	case gen.ConvShape:
		return []jen.Code{target.Clone().Op("=").Id(upcastFunc(c.Shape)).Call(src)}
	case gen.ConvEnum:
		return []jen.Code{e.enumSwitch(target, c, src)}
	case gen.ConvSlice:
		i := jen.Id(fmt.Sprintf("i%d", depth))
		return []jen.Code{jen.If(src.Clone().Op("!=").Nil()).Block(
			target.Clone().Op("=").Make(goType(c.To), jen.Len(src)),
			jen.For(jen.List(i, x).Op(":=").Range().Add(src)).Block(
				e.convert(target.Clone().Index(i), c.Elem, x, depth+1)...,
			),
		)}
	case gen.ConvMap:
		k := jen.Id(fmt.Sprintf("k%d", depth))
		y := jen.Id(fmt.Sprintf("y%d", depth))
		return []jen.Code{jen.If(src.Clone().Op("!=").Nil()).Block(
			target.Clone().Op("=").Make(goType(c.To), jen.Len(src)),
			jen.For(jen.List(k, x).Op(":=").Range().Add(src)).Block(
				append([]jen.Code{jen.Var().Add(y).Add(goType(c.To.Elem))}, append(
					e.convert(y, c.Elem, x, depth+1),
					target.Clone().Index(k).Op("=").Add(y))...)...,
			),
		)}
	case gen.ConvPointer:
		y := jen.Id(fmt.Sprintf("y%d", depth))
		inner := src
		if !c.Wrap {
			inner = jen.Op("*").Add(src)
		}
		block := append([]jen.Code{jen.Var().Add(y).Add(goType(c.To.Elem))},
			append(e.convert(y, c.Elem, inner, depth+1), target.Clone().Op("=").Op("&").Add(y))...)
		if c.Wrap {
			return []jen.Code{jen.Block(block...)}
		}
		return []jen.Code{jen.If(src.Clone().Op("!=").Nil()).Block(block...)}
	}
	panic(fmt.Sprintf("gen: unknown conversion kind %d", c.Kind))
}

// enumSwitch maps an enum (or bool) value to the new enum, value by value;
// a value mapped to nothing leaves target its zero.
func (e *emitter) enumSwitch(target *jen.Statement, c *gen.Conv, src *jen.Statement) jen.Code {
	if c.FromBool {
		var then, otherwise string
		for _, v := range c.Values {
			if v.From == "true" {
				then = v.To
			} else {
				otherwise = v.To
			}
		}
		set := func(to string) []jen.Code {
			if to == "" {
				return nil
			}
			return []jen.Code{target.Clone().Op("=").Id(e.enumConst(c.To.Name, to))}
		}
		stmt := jen.If(src).Block(set(then)...)
		if otherwise != "" {
			stmt.Else().Block(set(otherwise)...)
		}
		return stmt
	}
	var cases []jen.Code
	for _, v := range c.Values {
		if v.To == "" {
			continue
		}
		cases = append(cases, jen.Case(jen.Id(e.enumConst(c.From.Name, v.From))).Block(
			target.Clone().Op("=").Id(e.enumConst(c.To.Name, v.To)),
		))
	}
	return jen.Switch(src).Block(cases...)
}
