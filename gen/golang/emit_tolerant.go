package golang

import (
	"fmt"

	"github.com/dave/jennifer/jen"

	"github.com/jobgen/jobgen/gen"
)

// tolerant emits the tolerant reading mode (decision 0174): UnknownFact, a
// Fact holding a codec.Unknown; ReadFact, DecodeFact that keeps what the
// build does not know instead of refusing it; and UnknownFact's Salvage,
// which reads what it can of a fact of a known type.
func (e *emitter) tolerant(f *jen.File, facts []*gen.Fact) {
	f.Line()
	f.Comment("An UnknownFact is a fact ReadFact kept without decoding it, because this build does not know its type, its version, a union variant or an enum value it holds (codec.Unknown says which). Its Raw is the envelope as read; EncodeFact writes it back unchanged.")
	f.Type().Id("UnknownFact").Struct(jen.Qual(codecPkg, "Unknown"))
	f.Line()
	f.Comment("FactType returns the type the fact's envelope names.")
	f.Func().Params(jen.Id("u").Id("UnknownFact")).Id("FactType").Params().String().Block(jen.Return(jen.Id("u").Dot("Type")))
	f.Line()
	f.Comment("FactVersion returns the version the fact's envelope names.")
	f.Func().Params(jen.Id("u").Id("UnknownFact")).Id("FactVersion").Params().Int().Block(jen.Return(jen.Id("u").Dot("V")))
	f.Line()
	f.Func().Params(jen.Id("UnknownFact")).Id("isFact").Params().Block()

	f.Line()
	f.Comment("ReadFact is DecodeFact's tolerant reading mode: a fact this build does not know — an unknown type or version (ErrUnknownFact), a union variant (ErrUnknownVariant) or an enum value (ErrInvalidEnum) it does not know — is returned as an UnknownFact with a nil error, to be kept, counted and read around; any other error is damage and returned as DecodeFact returns it. A build writes only what it decodes strictly.")
	f.Func().Id("ReadFact").Params(jen.Id("data").Index().Byte()).Params(jen.Id("Fact"), jen.Error()).Block(
		jen.List(jen.Id("f"), jen.Err()).Op(":=").Id("DecodeFact").Call(jen.Id("data")),
		jen.If(jen.List(jen.Id("u"), jen.Id("ok")).Op(":=").Qual(codecPkg, "Tolerate").Call(jen.Id("data"), jen.Err()), jen.Id("ok")).Block(
			jen.Return(jen.Id("UnknownFact").Values(jen.Id("u")), jen.Nil()),
		),
		jen.Return(jen.Id("f"), jen.Err()),
	)

	var cases []jen.Code
	for _, fact := range facts {
		if len(fact.LiveVersions()) == 0 || fact.Latest().Retired {
			continue
		}
		name := fact.StructName(fact.Latest())
		cases = append(cases, jen.Case(jen.Id(fact.GoName+"Type")).Block(
			jen.Var().Id("out").Id(name),
			jen.Id("missing").Op(":=").Qual(codecPkg, "Salvage").Call(jen.Id("env").Dot("Data"), jen.Op("&").Id("out")),
			jen.Return(jen.Id("out"), jen.Id("missing")),
		))
	}
	f.Line()
	f.Comment(fmt.Sprintf("Salvage reads what this build can of u, a fact of a type it knows: each field of the type's newest version it knows (%s for %s …) is read from the data on its own, and the JSON names of those that are absent or do not decode are returned. It returns a nil Fact for a type this build does not know. A salvaged fact is for showing what a newer build wrote; never write it.", facts[0].GoName, facts[0].Name))
	f.Func().Params(jen.Id("u").Id("UnknownFact")).Id("Salvage").Params().Params(jen.Id("Fact"), jen.Index().String()).Block(
		jen.List(jen.Id("env"), jen.Err()).Op(":=").Qual(codecPkg, "DecodeEnvelope").Call(jen.Id("u").Dot("Raw")),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Nil())),
		jen.Switch(jen.Id("env").Dot("Type")).Block(cases...),
		jen.Return(jen.Nil(), jen.Nil()),
	)
}
