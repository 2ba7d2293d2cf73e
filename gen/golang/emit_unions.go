package golang

import (
	"github.com/dave/jennifer/jen"

	"github.com/jobgen/jobgen/gen"
	"github.com/jobgen/jobgen/gen/doctext"
)

// unions emits each union as a sealed interface, a struct per variant with a
// discriminator constant and JSON methods, and a Decode function that picks
// the variant by its discriminator.
func (e *emitter) unions(f *jen.File) {
	for _, u := range gen.SortedBy(e.spec.Unions, func(d *gen.Union) string { return d.Name }) {
		e.unionInterface(f, u)
		e.unionCommon(f, u)
		e.unionTags(f, u)
		for _, v := range u.Variants {
			e.variant(f, u, v)
		}
		e.unionDecoder(f, u)
	}
}

// discGo is the Go field holding a union's discriminator.
func discGo(u *gen.Union) string { return gen.GoName(u.Discriminator) }

// discKind is the JSON kind of a union's discriminator values: a string
// when there are no variants.
func discKind(u *gen.Union) gen.TagKind {
	if len(u.Variants) > 0 {
		return u.Variants[0].Tag.Kind
	}
	return gen.TagString
}

// unionInterface emits the sealed interface, with Common when the variants
// share fields.
func (e *emitter) unionInterface(f *jen.File, u *gen.Union) {
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
		g.Id("is" + u.Name).Params()
	})
}

// unionCommon emits the struct of the fields every variant carries, and
// its Common method, when there are such fields.
func (e *emitter) unionCommon(f *jen.File, u *gen.Union) {
	if len(u.Common) == 0 {
		return
	}
	f.Line()
	f.Commentf("%s holds the fields every %s carries.", u.CommonName(), u.Name)
	f.Type().Id(u.CommonName()).Struct(structFields(u.Common)...)
	f.Line()
	f.Commentf("Common returns the fields every %s carries.", u.Name)
	f.Func().Params(jen.Id("c").Id(u.CommonName())).Id("Common").Params().Id(u.CommonName()).Block(jen.Return(jen.Id("c")))
}

// unionTags emits the constants of the discriminator's values.
func (e *emitter) unionTags(f *jen.File, u *gen.Union) {
	f.Line()
	f.Commentf("The %s values of the %s variants.", u.Discriminator, u.Name)
	f.Const().DefsFunc(func(g *jen.Group) {
		for _, v := range u.Variants {
			g.Commentf("%sTag marks %s %s.", v.Name, doctext.Article(v.Name), v.Name)
			g.Id(v.Name + "Tag").Op("=").Add(tagLit(v.Tag))
		}
	})
}

// variant emits a variant's struct, embedding the common fields, its
// marker method, and MarshalJSON and UnmarshalJSON, which write and check
// the discriminator.
func (e *emitter) variant(f *jen.File, u *gen.Union, v *gen.Variant) {
	f.Line()
	declComment(f, v.Doc, v.Name+" is a variant of "+u.Name+".")
	var fields []jen.Code
	if len(u.Common) > 0 {
		fields = append(fields, jen.Id(u.CommonName()))
	}
	fields = append(fields, structFields(v.Fields)...)
	f.Type().Id(v.Name).Struct(fields...)
	f.Line()
	f.Func().Params(jen.Id(v.Name)).Id("is" + u.Name).Params().Block()
	e.variantMarshal(f, u, v)
	e.unmarshal(f, v.Name, v.Fields, u.Common, &discCheck{json: u.Discriminator, goName: discGo(u), kind: discKind(u), tagVal: v.Name + "Tag", tag: v.Tag})
}

// variantMarshal emits MarshalJSON, which writes the discriminator first,
// then the common and own fields.
func (e *emitter) variantMarshal(f *jen.File, u *gen.Union, v *gen.Variant) {
	r := recv(v.Name)
	wire := []jen.Code{jen.Id(discGo(u)).Id(string(discKind(u))).Tag(map[string]string{"json": u.Discriminator})}
	values := jen.Dict{jen.Id(discGo(u)): jen.Id(v.Name + "Tag")}
	for _, fd := range gen.WireFields(u.Common, v.Fields) {
		tag := fd.JSON
		if fd.Optional {
			tag += ",omitzero"
		}
		wire = append(wire, jen.Id(fd.GoName).Add(goType(fd.Type)).Tag(map[string]string{"json": tag}))
		values[jen.Id(fd.GoName)] = jen.Id(r).Dot(fd.GoName)
	}
	f.Line()
	f.Commentf("MarshalJSON encodes %s with %q set to %s.", r, u.Discriminator, v.Tag.Text())
	f.Func().Params(jen.Id(r).Id(v.Name)).Id("MarshalJSON").Params().Params(jen.Index().Byte(), jen.Error()).BlockFunc(func(g *jen.Group) {
		emptyDefaults(g, r, emptyCollections(v.Fields))
		for _, fd := range emptyCollections(u.Common) {
			g.If(jen.Id(r).Dot(u.CommonName()).Dot(fd.GoName).Op("==").Nil()).Block(
				jen.Id(r).Dot(u.CommonName()).Dot(fd.GoName).Op("=").Add(goType(fd.Type)).Values(),
			)
		}
		g.Return(jen.Qual(jsonPkg, "Marshal").Call(jen.Struct(wire...).Values(values)))
	})
}

// unionDecoder emits DecodeNAME, which probes the discriminator alone and
// then decodes the variant it names.
func (e *emitter) unionDecoder(f *jen.File, u *gen.Union) {
	disc := discGo(u)
	f.Line()
	f.Commentf("Decode%s decodes any %s, choosing the variant by %q.", u.Name, u.Name, u.Discriminator)
	f.Commentf("An unknown value is an error wrapping ErrUnknownVariant.")
	f.Func().Id("Decode"+u.Name).Params(jen.Id("data").Index().Byte()).Params(jen.Id(u.Name), jen.Error()).BlockFunc(func(g *jen.Group) {
		g.Var().Id("probe").Struct(jen.Id(disc).Op("*").Id(string(discKind(u))).Tag(map[string]string{"json": u.Discriminator}))
		g.If(jen.Err().Op(":=").Qual(jsonPkg, "Unmarshal").Call(jen.Id("data"), jen.Op("&").Id("probe")), jen.Err().Op("!=").Nil()).Block(
			jen.Return(jen.Nil(), e.errorf(u.Name+": %w", jen.Err())),
		)
		g.If(jen.Id("probe").Dot(disc).Op("==").Nil()).Block(
			jen.Return(jen.Nil(), e.missingField(u.Name, u.Discriminator)),
		)
		g.Switch(jen.Op("*").Id("probe").Dot(disc)).BlockFunc(func(g *jen.Group) {
			for _, v := range u.Variants {
				g.Case(jen.Id(v.Name+"Tag")).Block(
					jen.Var().Id("out").Id(v.Name),
					jen.Err().Op(":=").Qual(jsonPkg, "Unmarshal").Call(jen.Id("data"), jen.Op("&").Id("out")),
					jen.Return(jen.Id("out"), jen.Err()),
				)
			}
		})
		g.Return(jen.Nil(), e.errorf(u.Name+": "+u.Discriminator+" %v: %w", jen.Op("*").Id("probe").Dot(disc), jen.Id("ErrUnknownVariant")))
	})
}

// tagLit is a variant's tag as a Go literal.
func tagLit(t gen.Tag) jen.Code {
	if t.Kind == gen.TagBool {
		return jen.Lit(t.Bool)
	}
	return jen.Lit(t.String)
}
