package gen

import (
	"github.com/dave/jennifer/jen"
)

// unions emits each union as a sealed interface, a struct per variant with a
// discriminator constant and JSON methods, and a Decode function that picks
// the variant by its discriminator. Like facts, it is one template kept
// whole so it reads in the order of the code it writes.
func (e *emitter) unions(f *jen.File) {
	for _, u := range sortedBy(e.spec.Unions, func(d *Union) string { return d.Name }) {
		marker := "is" + u.Name
		discGo := goName(u.Discriminator)
		kind := TagString
		if len(u.Variants) > 0 {
			kind = u.Variants[0].Tag.Kind
		}
		names := ""
		for i, v := range u.Variants {
			switch {
			case i == 0:
			case i == len(u.Variants)-1:
				names += " or "
			default:
				names += ", "
			}
			names += v.Name
		}

		declComment(f, u.Doc, u.Name+" is a union.")
		f.Comment("//")
		f.Commentf("// It is one of %s, told apart in JSON by %q.", names, u.Discriminator)
		f.Type().Id(u.Name).InterfaceFunc(func(g *jen.Group) {
			if len(u.Common) > 0 {
				g.Comment("Common returns the fields every " + u.Name + " carries.")
				g.Id("Common").Params().Id(u.CommonName())
			}
			g.Id(marker).Params()
		})

		if len(u.Common) > 0 {
			f.Line()
			f.Commentf("%s holds the fields every %s carries.", u.CommonName(), u.Name)
			f.Type().Id(u.CommonName()).Struct(structFields(u.Common)...)
			f.Line()
			f.Commentf("Common returns the fields every %s carries.", u.Name)
			f.Func().Params(jen.Id("c").Id(u.CommonName())).Id("Common").Params().Id(u.CommonName()).Block(jen.Return(jen.Id("c")))
		}

		f.Line()
		f.Commentf("The %s values of the %s variants.", u.Discriminator, u.Name)
		f.Const().DefsFunc(func(g *jen.Group) {
			for _, v := range u.Variants {
				g.Commentf("%sTag marks %s %s.", v.Name, article(v.Name), v.Name)
				g.Id(v.Name + "Tag").Op("=").Add(tagLit(v.Tag))
			}
		})

		for _, v := range u.Variants {
			r := recv(v.Name)
			f.Line()
			declComment(f, v.Doc, v.Name+" is a variant of "+u.Name+".")
			var fields []jen.Code
			if len(u.Common) > 0 {
				fields = append(fields, jen.Id(u.CommonName()))
			}
			fields = append(fields, structFields(v.Fields)...)
			f.Type().Id(v.Name).Struct(fields...)
			f.Line()
			f.Func().Params(jen.Id(v.Name)).Id(marker).Params().Block()

			// MarshalJSON writes the discriminator first, then the common and own fields.
			wire := []jen.Code{jen.Id(discGo).Id(string(kind)).Tag(map[string]string{"json": u.Discriminator})}
			values := jen.Dict{jen.Id(discGo): jen.Id(v.Name + "Tag")}
			for _, fd := range append(append([]*Field(nil), u.Common...), v.Fields...) {
				if !fd.Wire() {
					continue
				}
				tag := fd.JSON
				if fd.Optional {
					tag += ",omitzero"
				}
				wire = append(wire, jen.Id(fd.GoName).Add(goType(fd.Type)).Tag(map[string]string{"json": tag}))
				values[jen.Id(fd.GoName)] = jen.Id(r).Dot(fd.GoName)
			}
			f.Line()
			f.Commentf("MarshalJSON encodes %s with %q set to %s.", r, u.Discriminator, v.Tag.Text())
			f.Func().Params(jen.Id(r).Id(v.Name)).Id("MarshalJSON").Params().Params(jen.Index().Byte(), jen.Error()).Block(
				jen.Return(jen.Qual(jsonPkg, "Marshal").Call(jen.Struct(wire...).Values(values))),
			)
			e.unmarshal(f, v.Name, v.Fields, u.Common, &discCheck{json: u.Discriminator, goName: discGo, kind: kind, tagVal: v.Name + "Tag", tag: v.Tag})
		}

		f.Line()
		f.Commentf("Decode%s decodes any %s, choosing the variant by %q.", u.Name, u.Name, u.Discriminator)
		f.Commentf("An unknown value is an error wrapping ErrUnknownVariant.")
		f.Func().Id("Decode"+u.Name).Params(jen.Id("data").Index().Byte()).Params(jen.Id(u.Name), jen.Error()).BlockFunc(func(g *jen.Group) {
			g.Var().Id("probe").Struct(jen.Id(discGo).Op("*").Id(string(kind)).Tag(map[string]string{"json": u.Discriminator}))
			g.If(jen.Err().Op(":=").Qual(jsonPkg, "Unmarshal").Call(jen.Id("data"), jen.Op("&").Id("probe")), jen.Err().Op("!=").Nil()).Block(
				jen.Return(jen.Nil(), e.errorf(u.Name+": %w", jen.Err())),
			)
			g.If(jen.Id("probe").Dot(discGo).Op("==").Nil()).Block(
				jen.Return(jen.Nil(), e.missingField(u.Name, u.Discriminator)),
			)
			g.Switch(jen.Op("*").Id("probe").Dot(discGo)).BlockFunc(func(g *jen.Group) {
				for _, v := range u.Variants {
					g.Case(jen.Id(v.Name+"Tag")).Block(
						jen.Var().Id("out").Id(v.Name),
						jen.Err().Op(":=").Qual(jsonPkg, "Unmarshal").Call(jen.Id("data"), jen.Op("&").Id("out")),
						jen.Return(jen.Id("out"), jen.Err()),
					)
				}
			})
			g.Return(jen.Nil(), e.errorf(u.Name+": "+u.Discriminator+" %v: %w", jen.Op("*").Id("probe").Dot(discGo), jen.Id("ErrUnknownVariant")))
		})
	}
}

func tagLit(t Tag) jen.Code {
	if t.Kind == TagBool {
		return jen.Lit(t.Bool)
	}
	return jen.Lit(t.String)
}
