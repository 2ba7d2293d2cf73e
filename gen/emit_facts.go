package gen

import (
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"
)

// facts emits the Fact interface, one struct per live fact version, the
// envelope and the EncodeFact / DecodeFact codec. It is long because it is
// one template: the generated code reads top to bottom as this function does.
func (e *emitter) facts(f *jen.File) {
	facts := sortedBy(e.spec.Facts, func(d *Fact) string { return d.Name })
	var names []string
	for _, fact := range facts {
		names = append(names, fact.GoName)
	}
	f.Comment(docLines(fmt.Sprintf("Fact is a durable lifecycle fact: one of %s. Only the newest version of each fact is a Fact; DecodeFact reads older versions.", strings.Join(names, ", ")), ""))
	f.Type().Id("Fact").Interface(
		jen.Comment("FactType returns the fact's wire type, such as \""+facts[0].Name+"\"."),
		jen.Id("FactType").Params().String(),
		jen.Comment("FactVersion returns the version the fact is written as."),
		jen.Id("FactVersion").Params().Int(),
		jen.Id("isFact").Params(),
	)
	f.Line()
	f.Comment("FactEnvelope is how a fact travels: its type, its version and its data.")
	f.Type().Id("FactEnvelope").Op("=").Qual(codecPkg, "Envelope")
	f.Line()
	f.Comment("The wire types of the facts.")
	f.Const().DefsFunc(func(g *jen.Group) {
		for _, fact := range facts {
			g.Commentf("%sType is the wire type of %s facts.", fact.GoName, fact.GoName)
			g.Id(fact.GoName + "Type").Op("=").Lit(fact.Name)
		}
	})
	for _, fact := range facts {
		for _, v := range fact.Versions {
			if v.Retired {
				continue
			}
			name := fact.StructName(v)
			doc := named(fact.Doc, fact.Name, fact.GoName)
			if strings.TrimSpace(doc) == "" {
				doc = fmt.Sprintf("%s is %s %s fact.", name, article(fact.Name), fact.Name)
			}
			if v.Doc != "" {
				doc += "\n\n" + v.Doc
			}
			if v != fact.Latest() {
				doc = fmt.Sprintf("%s is version %d of %s, kept so that history written with it still decodes: DecodeFact reads it and upcasts it to %s with %s.", name, v.Number, fact.Name, fact.GoName, v.Upcast.Name)
				if v.Doc != "" {
					doc += "\n\n" + v.Doc
				}
			}
			f.Line()
			declComment(f, doc, name+" is a fact.")
			f.Type().Id(name).Struct(structFields(v.Fields)...)
			e.unmarshal(f, name, v.Fields, nil, nil)
			if v != fact.Latest() {
				continue
			}
			r := recv(name)
			f.Line()
			f.Commentf("FactType returns %sType.", fact.GoName)
			f.Func().Params(jen.Id(name)).Id("FactType").Params().String().Block(jen.Return(jen.Id(fact.GoName + "Type")))
			f.Line()
			f.Commentf("FactVersion returns %d, the version %s is written as.", v.Number, r)
			f.Func().Params(jen.Id(name)).Id("FactVersion").Params().Int().Block(jen.Return(jen.Lit(v.Number)))
			f.Line()
			f.Func().Params(jen.Id(name)).Id("isFact").Params().Block()
		}
	}

	f.Line()
	f.Comment("EncodeFact encodes f in its envelope, {\"type\",\"v\",\"data\"}.")
	f.Func().Id("EncodeFact").Params(jen.Id("f").Id("Fact")).Params(jen.Index().Byte(), jen.Error()).Block(
		jen.List(jen.Id("data"), jen.Err()).Op(":=").Qual(jsonPkg, "Marshal").Call(jen.Id("f")),
		jen.If(jen.Err().Op("!=").Nil()).Block(
			jen.Return(jen.Nil(), e.errorf("encode %s: %w", jen.Id("f").Dot("FactType").Call(), jen.Err())),
		),
		jen.Id("out").Op(":=").Make(jen.Index().Byte(), jen.Lit(0), jen.Len(jen.Id("data")).Op("+").Lit(48)),
		jen.Return(jen.Qual(codecPkg, "AppendEnvelope").Call(jen.Id("out"), jen.Id("f").Dot("FactType").Call(), jen.Id("f").Dot("FactVersion").Call(), jen.Id("data")), jen.Nil()),
	)

	f.Line()
	f.Comment(docLines("DecodeFact decodes an envelope written by EncodeFact with this or an earlier spec. An older version of a fact is upcast to the newest, so the result is always a Fact. A type this build does not decode is an error wrapping ErrUnknownFact; a known type at a version it does not decode, one wrapping ErrUnknownVersion (and so ErrUnknownFact).", ""))
	f.Func().Id("DecodeFact").Params(jen.Id("data").Index().Byte()).Params(jen.Id("Fact"), jen.Error()).BlockFunc(func(g *jen.Group) {
		g.List(jen.Id("env"), jen.Err()).Op(":=").Qual(codecPkg, "DecodeEnvelope").Call(jen.Id("data"))
		g.If(jen.Err().Op("!=").Nil()).Block(
			jen.Return(jen.Nil(), e.errorf("decode fact: %w", jen.Err())),
		)
		decodeErr := func(err jen.Code) jen.Code {
			return jen.Return(jen.Nil(), e.errorf("decode %s v%d: %w", jen.Id("env").Dot("Type"), jen.Id("env").Dot("V"), err))
		}
		g.Switch(jen.Id("env").Dot("Type")).BlockFunc(func(g *jen.Group) {
			for _, fact := range facts {
				g.Case(jen.Id(fact.GoName+"Type")).Block(jen.Switch(jen.Id("env").Dot("V")).BlockFunc(func(g *jen.Group) {
					for _, v := range fact.Versions {
						switch {
						case v.Retired:
							g.Case(jen.Lit(v.Number)).Block(
								jen.Return(jen.Nil(), e.errorf("decode %s v%d: version retired from the spec: %w", jen.Id("env").Dot("Type"), jen.Id("env").Dot("V"), jen.Id("ErrUnknownVersion"))),
							)
						case v == fact.Latest():
							g.Case(jen.Lit(v.Number)).Block(
								jen.Var().Id("out").Id(fact.StructName(v)),
								jen.If(jen.Err().Op(":=").Qual(jsonPkg, "Unmarshal").Call(jen.Id("env").Dot("Data"), jen.Op("&").Id("out")), jen.Err().Op("!=").Nil()).Block(decodeErr(jen.Err())),
								jen.Return(jen.Id("out"), jen.Nil()),
							)
						default:
							// An older version decodes as itself, then upcasts to the newest.
							g.Case(jen.Lit(v.Number)).Block(
								jen.Var().Id("old").Id(fact.StructName(v)),
								jen.If(jen.Err().Op(":=").Qual(jsonPkg, "Unmarshal").Call(jen.Id("env").Dot("Data"), jen.Op("&").Id("old")), jen.Err().Op("!=").Nil()).Block(decodeErr(jen.Err())),
								jen.List(jen.Id("out"), jen.Err()).Op(":=").Id(v.Upcast.Name).Call(jen.Id("old")),
								jen.If(jen.Err().Op("!=").Nil()).Block(
									jen.Return(jen.Nil(), e.errorf("upcast %s v%d to v%d: %w", jen.Id("env").Dot("Type"), jen.Id("env").Dot("V"), jen.Lit(fact.Latest().Number), jen.Err())),
								),
								jen.Return(jen.Id("out"), jen.Nil()),
							)
						}
					}
				}), decodeErr(jen.Id("ErrUnknownVersion")))
			}
		})
		g.Return(jen.Nil(), e.errorf("decode %q v%d: %w", jen.Id("env").Dot("Type"), jen.Id("env").Dot("V"), jen.Id("ErrUnknownFact")))
	})
}

// defaults emits the tunables as constants: durations as time.Duration,
// sizes in bytes and counts as untyped integers.
func (e *emitter) defaults(f *jen.File) {
	f.Comment("Defaults for the tunables of a runtime built on this vocabulary.")
	f.Const().DefsFunc(func(g *jen.Group) {
		for _, d := range sortedBy(e.spec.Defaults, func(d *Default) string { return d.Name }) {
			g.Comment(docLines(named(d.Doc, d.Name, d.GoName), d.GoName+" is a default."))
			var value jen.Code
			switch d.Unit {
			case UnitBytes, UnitCount:
				value = jen.Lit(int(d.Value))
			case UnitKiB:
				value = jen.Lit(int(d.Value)).Op("*").Lit(1024)
			case UnitMiB:
				value = jen.Lit(int(d.Value)).Op("*").Lit(1024).Op("*").Lit(1024)
			case UnitMs:
				value = jen.Lit(int(d.Value)).Op("*").Qual("time", "Millisecond")
			case UnitSeconds:
				value = jen.Lit(int(d.Value)).Op("*").Qual("time", "Second")
			case UnitMinutes:
				value = jen.Lit(int(d.Value)).Op("*").Qual("time", "Minute")
			}
			g.Id(d.GoName).Op("=").Add(value)
		}
	})
}
