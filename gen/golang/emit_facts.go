package golang

import (
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/jobgen/jobgen/gen"
	"github.com/jobgen/jobgen/gen/doctext"
)

// facts emits the Fact interface, one struct per live fact version, the
// envelope and the EncodeFact / DecodeFact codec, with the one-pass
// decoders DecodeFact reads data with.
func (e *emitter) facts(f *jen.File) {
	facts := gen.SortedBy(e.spec.Facts, func(d *gen.Fact) string { return d.Name })
	e.factInterface(f, facts)
	for _, fact := range facts {
		for _, v := range fact.LiveVersions() {
			e.factStruct(f, fact, v)
		}
	}
	e.encodeFact(f)
	plan := e.passes()
	onePassSet := map[string]bool{}
	for _, p := range plan.facts {
		onePassSet[p.name] = true
	}
	e.decodeFact(f, facts, onePassSet)
	e.tolerant(f, facts)
	for _, p := range plan.facts {
		e.onePassDecoder(f, p, plan.records)
	}
}

// factInterface emits the Fact interface, FactEnvelope and the constants
// of the facts' wire types.
func (e *emitter) factInterface(f *jen.File, facts []*gen.Fact) {
	var names []string
	for _, fact := range facts {
		names = append(names, fact.GoName)
	}
	f.Comment(doctext.Lines(fmt.Sprintf("Fact is a durable lifecycle fact: one of %s. Only the newest version of each fact is a Fact; DecodeFact reads older versions.", strings.Join(names, ", ")), ""))
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
}

// factStruct emits the struct of a live fact version with its
// UnmarshalJSON; the newest version also gets the methods that make it a
// Fact.
func (e *emitter) factStruct(f *jen.File, fact *gen.Fact, v *gen.FactVersion) {
	name := fact.StructName(v)
	doc := doctext.Named(fact.Doc, fact.Name, fact.GoName)
	if strings.TrimSpace(doc) == "" {
		doc = fmt.Sprintf("%s is %s %s fact.", name, doctext.Article(fact.Name), fact.Name)
	}
	if v.Doc != "" {
		doc += "\n\n" + v.Doc
	}
	if v != fact.Latest() {
		doc = fmt.Sprintf("%s is version %d of %s, kept so that history written with it still decodes: DecodeFact reads it and upcasts it to %s %s.", name, v.Number, fact.Name, fact.GoName, upcastBy(fact, v))
		if v.Doc != "" {
			doc += "\n\n" + v.Doc
		}
	}
	f.Line()
	declComment(f, doc, name+" is a fact.")
	f.Type().Id(name).Struct(structFields(v.Fields)...)
	marshalEmpty(f, name, v.Fields)
	e.unmarshal(f, name, v.Fields, nil, nil)
	if v != fact.Latest() {
		return
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

// encodeFact emits EncodeFact, which wraps a fact's JSON in its envelope.
func (e *emitter) encodeFact(f *jen.File) {
	f.Line()
	f.Comment("EncodeFact encodes f in its envelope, {\"type\",\"v\",\"data\"}; an UnknownFact is its envelope as it was read.")
	f.Func().Id("EncodeFact").Params(jen.Id("f").Id("Fact")).Params(jen.Index().Byte(), jen.Error()).Block(
		jen.If(jen.List(jen.Id("u"), jen.Id("ok")).Op(":=").Id("f").Assert(jen.Id("UnknownFact")), jen.Id("ok")).Block(
			jen.Return(jen.Qual("bytes", "Clone").Call(jen.Id("u").Dot("Raw")), jen.Nil()),
		),
		jen.List(jen.Id("data"), jen.Err()).Op(":=").Qual(jsonPkg, "Marshal").Call(jen.Id("f")),
		jen.If(jen.Err().Op("!=").Nil()).Block(
			jen.Return(jen.Nil(), e.errorf("encode %s: %w", jen.Id("f").Dot("FactType").Call(), jen.Err())),
		),
		jen.Id("out").Op(":=").Make(jen.Index().Byte(), jen.Lit(0), jen.Len(jen.Id("data")).Op("+").Lit(48)),
		jen.Return(jen.Qual(codecPkg, "AppendEnvelope").Call(jen.Id("out"), jen.Id("f").Dot("FactType").Call(), jen.Id("f").Dot("FactVersion").Call(), jen.Id("data")), jen.Nil()),
	)
}

// decodeFact emits DecodeFact and decodeFactData, the switch on type and
// version that DecodeFact hands codec.DecodeFact; onePass names the structs
// read with a one-pass decoder.
func (e *emitter) decodeFact(f *jen.File, facts []*gen.Fact, onePass map[string]bool) {
	f.Line()
	f.Comment(doctext.Lines("DecodeFact decodes an envelope written by EncodeFact with this or an earlier spec. An older version of a fact is upcast to the newest, so the result is always a Fact. A type this build does not decode is an error wrapping ErrUnknownFact; a known type at a version it does not decode, one wrapping ErrUnknownVersion (and so ErrUnknownFact). It reads data in one pass (codec.DecodeFact).", ""))
	f.Func().Id("DecodeFact").Params(jen.Id("data").Index().Byte()).Params(jen.Id("Fact"), jen.Error()).Block(
		jen.Return(jen.Qual(codecPkg, "DecodeFact").Call(jen.Lit(e.spec.Package.Name), jen.Id("data"), jen.Id("decodeFactData"))),
	)
	f.Line()
	f.Comment("decodeFactData decodes the data at d of a fact of type typ at version v.")
	f.Func().Id("decodeFactData").Params(jen.Id("typ").String(), jen.Id("v").Int(), jen.Id("d").Op("*").Qual(codecPkg, "Decoder")).Params(jen.Id("Fact"), jen.Error()).BlockFunc(func(g *jen.Group) {
		g.Switch(jen.Id("typ")).BlockFunc(func(g *jen.Group) {
			for _, fact := range facts {
				g.Case(jen.Id(fact.GoName+"Type")).Block(jen.Switch(jen.Id("v")).BlockFunc(func(g *jen.Group) {
					for _, v := range fact.Versions {
						g.Case(jen.Lit(v.Number)).Block(e.factVersionRead(fact, v, onePass)...)
					}
				}), e.skipUnknown(e.errorf("decode %s v%d: %w", jen.Id("typ"), jen.Id("v"), jen.Id("ErrUnknownVersion"))))
			}
		})
		g.Add(e.skipUnknown(e.errorf("decode %q v%d: %w", jen.Id("typ"), jen.Id("v"), jen.Id("ErrUnknownFact"))))
	})
}

// factVersionRead is decodeFactData's case for version v of fact: a retired
// version is refused, the newest read, and an older one read as itself and
// then upcast to the newest.
func (e *emitter) factVersionRead(fact *gen.Fact, v *gen.FactVersion, onePass map[string]bool) []jen.Code {
	if v.Retired {
		return []jen.Code{e.skipUnknown(e.errorf("decode %s v%d: version retired from the spec: %w", jen.Id("typ"), jen.Id("v"), jen.Id("ErrUnknownVersion")))}
	}
	name := fact.StructName(v)
	call := jen.Id("d").Dot("Unmarshal").Call(jen.Op("&").Id("out"))
	if onePass[name] {
		call = jen.Id("decode"+name).Call(jen.Id("d"), jen.Op("&").Id("out"))
	}
	read := []jen.Code{
		jen.Var().Id("out").Id(name),
		jen.If(jen.Err().Op(":=").Add(call), jen.Err().Op("!=").Nil()).Block(
			jen.Return(jen.Nil(), e.errorf("decode %s v%d: %w", jen.Id("typ"), jen.Id("v"), jen.Err())),
		),
	}
	if v == fact.Latest() {
		return append(read, jen.Return(jen.Id("out"), jen.Nil()))
	}
	path := fact.UpcastPath(v)
	var up jen.Code = jen.Id("out")
	for _, step := range path.Steps {
		up = jen.Id(upcastFunc(step)).Call(up)
	}
	if path.Upcast.Name == "" {
		return append(read, jen.Return(up, jen.Nil()))
	}
	return append(read,
		jen.List(jen.Id("up"), jen.Err()).Op(":=").Id(path.Upcast.Name).Call(up),
		jen.If(jen.Err().Op("!=").Nil()).Block(
			jen.Return(jen.Nil(), e.errorf("upcast %s v%d to v%d: %w", jen.Id("typ"), jen.Id("v"), jen.Lit(fact.Latest().Number), jen.Err())),
		),
		jen.Return(jen.Id("up"), jen.Nil()),
	)
}

// upcastBy says how DecodeFact reads version v of fact as the newest: with
// the hand-written upcaster, or step by step as the spec derives each
// version, or both.
func upcastBy(fact *gen.Fact, v *gen.FactVersion) string {
	path := fact.UpcastPath(v)
	switch {
	case len(path.Steps) == 0:
		return "with " + path.Upcast.Name
	case path.Upcast.Name == "":
		return "as the spec derives each version from the one before"
	}
	return fmt.Sprintf("as the spec derives each version from the one before up to v%d, then with %s", path.Reached.Number, path.Upcast.Name)
}

// skipUnknown is the statement returning err for data this build does not
// decode: codec.SkipUnknown skips the data, and returns err unless the data
// is not JSON.
func (e *emitter) skipUnknown(err jen.Code) jen.Code {
	return jen.Return(jen.Nil(), jen.Qual(codecPkg, "SkipUnknown").Call(jen.Id("d"), jen.Lit(e.spec.Package.Name), err))
}

// defaults emits the tunables as constants: durations as time.Duration,
// sizes in bytes and counts as untyped integers.
func (e *emitter) defaults(f *jen.File) {
	f.Comment("Defaults for the tunables of a runtime built on this vocabulary.")
	f.Const().DefsFunc(func(g *jen.Group) {
		for _, d := range gen.SortedBy(e.spec.Defaults, func(d *gen.Default) string { return d.Name }) {
			g.Comment(doctext.Lines(doctext.Named(d.Doc, d.Name, d.GoName), d.GoName+" is a default."))
			var value jen.Code
			switch d.Unit {
			case gen.UnitBytes, gen.UnitCount:
				value = jen.Lit(int(d.Value))
			case gen.UnitKiB:
				value = jen.Lit(int(d.Value)).Op("*").Lit(1024)
			case gen.UnitMiB:
				value = jen.Lit(int(d.Value)).Op("*").Lit(1024).Op("*").Lit(1024)
			case gen.UnitMs:
				value = jen.Lit(int(d.Value)).Op("*").Qual("time", "Millisecond")
			case gen.UnitSeconds:
				value = jen.Lit(int(d.Value)).Op("*").Qual("time", "Second")
			case gen.UnitMinutes:
				value = jen.Lit(int(d.Value)).Op("*").Qual("time", "Minute")
			}
			g.Id(d.GoName).Op("=").Add(value)
		}
	})
}

// A onePass is a struct type the fact decoder reads with a generated
// one-pass function over a codec.Decoder instead of encoding/json: the
// live fact versions and the records their fields hold.
type onePass struct {
	name   string // the Go type
	fields []*gen.Field
}

// A passPlan says which structs the package reads in one pass and where
// their decoders go.
type passPlan struct {
	// facts are the live fact versions and the records their fields reach,
	// whose decoders facts.gen.go holds.
	facts []onePass
	// own are the recursive records and the records they reach that facts
	// does not hold, whose decoders records.gen.go holds beside them.
	own []onePass
	// records names every record read in one pass.
	records map[string]bool
	// recursive names the records that hold themselves (gen.RecursiveRecords)
	// and are read in one pass: their UnmarshalJSON reads in one pass too,
	// and a one-pass decoder reads a pointer to one or a list of them itself
	// (decision 0157).
	recursive map[string]bool
}

// passes computes the package's passPlan once.
func (e *emitter) passes() *passPlan {
	if e.plan != nil {
		return e.plan
	}
	p := &passPlan{records: map[string]bool{}, recursive: map[string]bool{}}
	for name := range gen.RecursiveRecords(e.spec) {
		if r := e.onePassRecord(gen.DeclaredType(name, gen.DeclRecord)); r != nil && gen.WireCount(r.Fields) <= 64 {
			p.recursive[name] = true
		}
	}
	e.plan = p
	done := map[string]bool{}
	var addRecords func(to *[]onePass, fields []*gen.Field)
	addRecords = func(to *[]onePass, fields []*gen.Field) {
		for _, fd := range fields {
			r := e.onePassRecord(fd.Type)
			if r == nil {
				r = e.recursiveElem(fd.Type)
			}
			if r == nil || done[r.Name] {
				continue
			}
			done[r.Name] = true
			if gen.WireCount(r.Fields) > 64 {
				continue // read by encoding/json: the decoder's key sets are 64-bit masks
			}
			*to = append(*to, onePass{r.Name, r.Fields})
			p.records[r.Name] = true
			addRecords(to, r.Fields)
		}
	}
	facts := gen.SortedBy(e.spec.Facts, func(d *gen.Fact) string { return d.Name })
	for _, fact := range facts {
		for _, v := range fact.Versions {
			if !v.Retired && gen.WireCount(v.Fields) <= 64 {
				p.facts = append(p.facts, onePass{fact.StructName(v), v.Fields})
			}
		}
	}
	for _, fact := range facts {
		for _, v := range fact.Versions {
			if !v.Retired {
				addRecords(&p.facts, v.Fields)
			}
		}
	}
	for _, r := range gen.SortedBy(e.spec.Records, func(d *gen.Record) string { return d.Name }) {
		if p.recursive[r.Name] {
			addRecords(&p.own, []*gen.Field{{Type: gen.DeclaredType(r.Name, gen.DeclRecord)}})
		}
	}
	return p
}

// recursiveElem returns the recursive record a pointer or list type t
// holds, which a one-pass decoder reads itself.
func (e *emitter) recursiveElem(t *gen.Type) *gen.Record {
	if (t.Kind != gen.TypePointer && t.Kind != gen.TypeSlice) || t.IsBytes() || t.Elem.Kind != gen.TypeNamed {
		return nil
	}
	if !e.passes().recursive[t.Elem.Name] {
		return nil
	}
	return e.onePassRecord(t.Elem)
}

// onePassRecord returns the record t names when DecodeFact reads it in one
// pass.
func (e *emitter) onePassRecord(t *gen.Type) *gen.Record {
	if t.Kind != gen.TypeNamed || t.Decl() != gen.DeclRecord {
		return nil
	}
	for _, r := range e.spec.Records {
		if r.Name == t.Name {
			for _, fd := range r.Fields {
				if fd.Wire() {
					return r
				}
			}
		}
	}
	return nil
}

// idKind returns how the identifier t names is represented, or "" when t
// names no identifier of this spec.
func (e *emitter) idKind(t *gen.Type) gen.IDKind {
	if t.Kind != gen.TypeNamed || t.Decl() != gen.DeclID {
		return ""
	}
	for _, id := range e.spec.IDs {
		if id.Name == t.Name {
			return id.Kind
		}
	}
	return ""
}

// readField returns the statements that read the value at d into target, a
// field of type t, returning a wrapped error; records is the set of records
// read in one pass. ok reports whether the value is read without
// encoding/json, whose null handling then applies instead.
func (e *emitter) readField(typ string, fd *gen.Field, target *jen.Statement, records map[string]bool) (code []jen.Code, ok bool) {
	t := fd.Type
	wrap := func(call jen.Code) jen.Code {
		return jen.If(jen.Err().Op(":=").Add(call), jen.Err().Op("!=").Nil()).Block(
			jen.Return(jen.Qual(codecPkg, "FieldError").Call(jen.Lit(typ), jen.Lit(fd.JSON), jen.Err())),
		)
	}
	value := func(read *jen.Statement, conv func(jen.Code) jen.Code) []jen.Code {
		return []jen.Code{
			jen.List(jen.Id("x"), jen.Err()).Op(":=").Add(read),
			jen.If(jen.Err().Op("!=").Nil()).Block(
				jen.Return(jen.Qual(codecPkg, "FieldError").Call(jen.Lit(typ), jen.Lit(fd.JSON), jen.Err())),
			),
			target.Clone().Op("=").Add(conv(jen.Id("x"))),
		}
	}
	typed := func(c jen.Code) jen.Code { return goType(t).Call(c) }
	switch {
	case t.Scalar().Kind == gen.ScalarString:
		return value(jen.Id("d").Dot("String").Call(), func(c jen.Code) jen.Code { return c }), true
	case t.Scalar().Kind == gen.ScalarBool:
		return value(jen.Id("d").Dot("Bool").Call(), func(c jen.Code) jen.Code { return c }), true
	case t.Scalar().Kind == gen.ScalarInt && t.Scalar().Native:
		return value(jen.Id("d").Dot("Int").Call(jen.Qual("strconv", "IntSize")), typed), true
	case t.Scalar().Kind == gen.ScalarInt:
		return value(jen.Id("d").Dot("Int").Call(jen.Lit(t.Scalar().Bits)), typed), true
	case e.idKind(t) == gen.IDString:
		return value(jen.Id("d").Dot("String").Call(), typed), true
	case e.idKind(t) == gen.IDUUID || t.Kind == gen.TypeNamed && t.Decl() == gen.DeclEnum:
		// As encoding/json reads a TextUnmarshaler: the string, unescaped.
		return append(value(jen.Id("d").Dot("StringBytes").Call(), func(c jen.Code) jen.Code { return c })[:2],
			wrap(target.Clone().Dot("UnmarshalText").Call(jen.Id("x")))), true
	case t.Kind == gen.TypeNamed && records[t.Name]:
		return []jen.Code{wrap(jen.Id("decode"+t.Name).Call(jen.Id("d"), jen.Op("&").Add(target.Clone())))}, true
	case e.recursiveElem(t) != nil && t.Kind == gen.TypePointer:
		return []jen.Code{
			jen.Id("x").Op(":=").New(jen.Id(t.Elem.Name)),
			wrap(jen.Id("decode"+t.Elem.Name).Call(jen.Id("d"), jen.Id("x"))),
			target.Clone().Op("=").Id("x"),
		}, true
	case e.recursiveElem(t) != nil:
		// A list of a recursive record, each element read in place as
		// encoding/json reads it: null as an object without fields.
		fail := jen.If(jen.Err().Op("!=").Nil()).Block(
			jen.Return(jen.Qual(codecPkg, "FieldError").Call(jen.Lit(typ), jen.Lit(fd.JSON), jen.Err())),
		)
		return []jen.Code{
			jen.List(jen.Id("elems"), jen.Err()).Op(":=").Id("d").Dot("Array").Call(),
			fail,
			jen.Id("xs").Op(":=").Index().Id(t.Elem.Name).Values(),
			jen.For(jen.Id("elems")).Block(
				jen.Var().Id("x").Id(t.Elem.Name),
				wrap(jen.Id("decode"+t.Elem.Name).Call(jen.Id("d"), jen.Op("&").Id("x"))),
				jen.Id("xs").Op("=").Append(jen.Id("xs"), jen.Id("x")),
				jen.List(jen.Id("elems"), jen.Err()).Op("=").Id("d").Dot("More").Call(),
				fail.Clone(),
			),
			target.Clone().Op("=").Id("xs"),
		}, true
	}
	return []jen.Code{wrap(jen.Id("d").Dot("Unmarshal").Call(jen.Op("&").Add(target.Clone())))}, false
}

// onePassDecoder emits decodeNAME, which reads a NAME from a codec.Decoder
// in one pass and refuses what NAME's UnmarshalJSON refuses: a loop over the
// object's keys with a case per field, then the checks of what it read.
func (e *emitter) onePassDecoder(f *jen.File, p onePass, records map[string]bool) {
	wire := gen.WireFields(p.fields)
	typ := e.spec.Package.Name + "." + p.name
	fieldsVar := "fieldsOf" + p.name
	var names []jen.Code
	for _, fd := range wire {
		names = append(names, jen.Lit(fd.JSON))
	}
	f.Line()
	f.Commentf("%s are the wire names of %s's fields.", fieldsVar, p.name)
	f.Var().Id(fieldsVar).Op("=").Index().String().Values(names...)

	var cases []jen.Code
	for i, fd := range wire {
		cases = append(cases, e.onePassCase(typ, uint64(1)<<i, fd, records))
	}
	cases = append(cases, jen.Default().Block(
		jen.If(jen.Err().Op(":=").Id("others").Dot("Other").Call(jen.Lit(typ), jen.Id("key"), jen.Id(fieldsVar)), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
		jen.If(jen.List(jen.Id("_"), jen.Err()).Op(":=").Id("d").Dot("Skip").Call(), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
	))

	body := []jen.Code{
		jen.List(jen.Id("more"), jen.Err()).Op(":=").Id("d").Dot("Object").Call(),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(e.errorf(p.name+": %w", jen.Err()))),
		jen.Var().Id("seen").Op(",").Id("present").Uint64(),
		jen.Var().Id("others").Qual(codecPkg, "KeySet"),
		jen.For(jen.Id("first").Op(":=").True(), jen.Id("more"), jen.Id("first").Op("=").False()).Block(
			jen.Var().Id("key").Index().Byte(),
			jen.List(jen.Id("key"), jen.Id("more"), jen.Err()).Op("=").Id("d").Dot("Next").Call(jen.Id("first")),
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
			jen.If(jen.Op("!").Id("more")).Block(jen.Break()),
			jen.Switch(jen.String().Call(jen.Id("key"))).Block(cases...),
		),
	}
	for i, fd := range wire {
		if gen.WireRequired(fd) {
			body = append(body, jen.If(jen.Id("present").Op("&").Lit(uint64(1)<<i).Op("==").Lit(0)).Block(
				jen.Return(e.missingField(p.name, fd.JSON)),
			))
		}
	}
	for _, fd := range wire {
		if fd.TerminalOf() != nil {
			body = append(body, e.terminalCheck(p.name, fd, jen.Id("out").Dot(fd.GoName), false))
		}
		body = append(body, e.boundChecks(p.name, fd, jen.Id("out").Dot(fd.GoName), false)...)
	}
	body = append(body, jen.Return(jen.Nil()))
	f.Line()
	f.Commentf("decode%s reads a %s from d in one pass, checking the JSON's syntax as it goes, and refuses what %s.UnmarshalJSON refuses.", p.name, p.name, p.name)
	f.Func().Id("decode"+p.name).Params(jen.Id("d").Op("*").Qual(codecPkg, "Decoder"), jen.Id("out").Op("*").Id(p.name)).Error().Block(body...)
}

// onePassCase is the case of decodeNAME's key switch reading field fd,
// whose bit in the seen and present masks is bit: a key seen twice is
// refused, and null is read as encoding/json reads it.
func (e *emitter) onePassCase(typ string, bit uint64, fd *gen.Field, records map[string]bool) jen.Code {
	read, own := e.readField(typ, fd, jen.Id("out").Dot(fd.GoName), records)
	body := []jen.Code{
		jen.If(jen.Id("seen").Op("&").Lit(bit).Op("!=").Lit(0)).Block(
			jen.Return(jen.Qual(codecPkg, "DuplicateKey").Call(jen.Lit(typ), jen.Id("key"))),
		),
		jen.Id("seen").Op("|=").Lit(bit),
	}
	switch {
	case gen.WireRequired(fd):
		// A null leaves a required field missing, as encoding/json leaves its pointer nil.
		body = append(body, jen.If(jen.Op("!").Id("d").Dot("Null").Call()).Block(
			append(read, jen.Id("present").Op("|=").Lit(bit))...,
		))
	case own && !records[fd.Type.Name]:
		// A null leaves an optional field as it is.
		body = append(body, jen.If(jen.Op("!").Id("d").Dot("Null").Call()).Block(read...))
	default:
		body = append(body, read...) // reads null as encoding/json does
	}
	return jen.Case(jen.Lit(fd.JSON)).Block(body...)
}
