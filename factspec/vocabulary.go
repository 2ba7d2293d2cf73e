package factspec

import (
	"fmt"

	"github.com/jobgen/jobgen/codec"
	"github.com/jobgen/jobgen/gen"
)

// A Vocabulary decodes the facts of a set of specs. It is safe for
// concurrent use once built.
type Vocabulary struct {
	specs   []*gen.Spec
	facts   map[string]factOf                  // by wire type
	layouts map[*gen.Spec]map[string]*structOf // each spec's structs by Go name
}

// A factOf is a fact with the spec that declares it.
type factOf struct {
	spec *gen.Spec
	fact *gen.Fact
}

// A Fact is a fact as DecodeFact read it: an older version upcast as the
// spec derives each version from the one before, so V is the newest
// version, or the one a hand-written Go upcaster goes on from (Upcast).
type Fact struct {
	Type string
	V    int
	// From is the version the fact was written as; V when it was not upcast.
	From int
	// Upcast names the hand-written Go upcaster that reads version V as the
	// newest, which no spec can run: the data is version V's. Empty when V
	// is the newest version.
	Upcast string
	// Spec is the spec that declares the fact.
	Spec *gen.Spec
	// Data holds the fact's fields by JSON name; see the package doc.
	Data map[string]any
	// Unknown is set when ReadFact kept a fact the vocabulary does not know
	// (decision 0174): Type and V are its envelope's, Data is nil.
	Unknown *codec.Unknown
}

// New builds the vocabulary of specs and of every spec they import. A spec
// whose package.path (its file, when it has none) is already in the
// vocabulary adds nothing, so the same spec reached twice, or listed by a
// module and built into a tool, counts once: the first wins. Two different
// specs declaring one fact type are an error (a gen.ErrorList at the second
// declaration), since a journal could not tell their facts apart.
func New(specs ...*gen.Resolved) (*Vocabulary, error) {
	v := &Vocabulary{facts: map[string]factOf{}, layouts: map[*gen.Spec]map[string]*structOf{}}
	var errs gen.ErrorList
	for _, r := range specs {
		s := r.Spec()
		if s == nil {
			return nil, gen.ErrNotResolved
		}
		v.add(s, &errs)
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	return v, nil
}

// identity is what tells two specs apart: the Go package they generate.
func identity(s *gen.Spec) string {
	if s.Package.Path != "" {
		return s.Package.Path
	}
	return "file:" + s.File
}

// Has reports whether the vocabulary holds a spec generating the Go package
// at path.
func (v *Vocabulary) Has(path string) bool {
	for _, s := range v.specs {
		if identity(s) == path {
			return true
		}
	}
	return false
}

// Specs are the specs of the vocabulary, in the order they were added:
// each spec after those it imports.
func (v *Vocabulary) Specs() []*gen.Spec { return v.specs }

func (v *Vocabulary) add(s *gen.Spec, errs *gen.ErrorList) {
	if _, seen := v.layouts[s]; seen {
		return
	}
	// Every copy of a spec is laid out, since the types of the specs that
	// import it name its declarations; the facts are the first copy's.
	v.addLayouts(s)
	for _, im := range s.Imports {
		if im.Imported != nil {
			v.add(im.Imported.Spec(), errs)
		}
	}
	if v.Has(identity(s)) {
		return
	}
	v.specs = append(v.specs, s)
	for _, f := range s.Facts {
		if prev, dup := v.facts[f.Name]; dup {
			errs.Add(f.Pos, "fact %s is declared by %s (%s) too; a journal holding both could not tell their facts apart", f.Name, prev.spec.Package.Path, prev.spec.File)
			continue
		}
		v.facts[f.Name] = factOf{s, f}
	}
}

// Knows reports whether the vocabulary declares the fact type typ, at any
// version.
func (v *Vocabulary) Knows(typ string) bool {
	_, ok := v.facts[typ]
	return ok
}

// DecodeFact decodes a fact envelope, {"type","v","data"}, refusing what
// the generated DecodeFact of the spec declaring its type refuses. A type
// no spec of the vocabulary declares is an error wrapping
// codec.ErrUnknownFact, a version its spec does not decode (or retired) one
// wrapping codec.ErrUnknownVersion.
func (v *Vocabulary) DecodeFact(data []byte) (Fact, error) {
	return codec.DecodeFact("factspec", data, v.factData)
}

// ReadFact is DecodeFact's tolerant reading mode: a fact the vocabulary
// does not know (a type or version no spec declares, a union variant or an
// enum value it does not know) is returned with Unknown set and a nil error,
// to be kept, counted and read around; any other error is damage.
func (v *Vocabulary) ReadFact(data []byte) (Fact, error) {
	f, err := v.DecodeFact(data)
	if u, ok := codec.Tolerate(data, err); ok {
		return Fact{Type: u.Type, V: u.V, From: u.V, Unknown: &u}, nil
	}
	return f, err
}

// factData decodes the data at d of a fact of type typ at version ver.
func (v *Vocabulary) factData(typ string, ver int, d *codec.Decoder) (Fact, error) {
	of, ok := v.facts[typ]
	if !ok {
		return Fact{}, codec.SkipUnknown(d, "factspec", fmt.Errorf("factspec: decode %q v%d: %w", typ, ver, codec.ErrUnknownFact))
	}
	pkg := of.spec.Package.Name
	var version *gen.FactVersion
	for _, fv := range of.fact.Versions {
		if fv.Number == ver {
			version = fv
		}
	}
	switch {
	case version == nil:
		return Fact{}, codec.SkipUnknown(d, pkg, fmt.Errorf("%s: decode %s v%d: %w", pkg, typ, ver, codec.ErrUnknownVersion))
	case version.Retired:
		return Fact{}, codec.SkipUnknown(d, pkg, fmt.Errorf("%s: decode %s v%d: version retired from the spec: %w", pkg, typ, ver, codec.ErrUnknownVersion))
	}
	st := v.layout(of.spec, of.fact.StructName(version))
	var fields map[string]any
	var err error
	if st.onePass() {
		fields, err = st.readOnePass(d)
	} else {
		fields, err = st.readRaw(d)
	}
	if err != nil {
		return Fact{}, fmt.Errorf("%s: decode %s v%d: %w", pkg, typ, ver, err)
	}
	path := of.fact.UpcastPath(version)
	return Fact{Type: typ, V: path.Reached.Number, From: ver, Upcast: path.Upcast.Name, Spec: of.spec, Data: upcast(path, fields)}, nil
}

// Decode decodes data as the declaration name of the spec whose package is
// named pkg, refusing what json.Unmarshal into the generated type refuses
// (for a union, what the generated Decode<Union> refuses). name may be
// FactEnvelope, for DecodeFact. The value is a string for an id or enum, a
// map of fields for a record or variant (for a union, its variant's, with
// the discriminator).
func (v *Vocabulary) Decode(pkg, name string, data []byte) (any, error) {
	if name == "FactEnvelope" {
		f, err := v.DecodeFact(data)
		return f, err
	}
	var s *gen.Spec
	for _, sp := range v.specs {
		if sp.Package.Name == pkg {
			s = sp
		}
	}
	if s == nil {
		return nil, fmt.Errorf("factspec: no spec of package %s", pkg)
	}
	if _, err := checkSyntax(data); err != nil {
		return nil, err
	}
	if u := s.Index().Unions[name]; u != nil {
		return v.decodeUnion(s, u, data)
	}
	if st := v.layout(s, name); st != nil && st.fact {
		return st.unmarshal(data)
	}
	d, ok := s.Index().Decls[name]
	if !ok || d.Kind == gen.DeclFace || d.Kind == gen.DeclMachine {
		return nil, fmt.Errorf("factspec: %s declares no wire type %s", pkg, name)
	}
	return v.decodeJSON(s, gen.DeclaredType(name, d.Kind), data)
}

// checkSyntax refuses data that is not one JSON value, as json.Unmarshal
// does before it decodes anything.
func checkSyntax(data []byte) ([]byte, error) {
	d := codec.NewDecoder(data)
	raw, err := d.Skip()
	if err == nil {
		err = d.End()
	}
	return raw, err
}

// layout is the struct of spec s whose Go name is name: a live fact
// version (JobSettled, JobSettledV1), a record or a variant.
func (v *Vocabulary) layout(s *gen.Spec, name string) *structOf { return v.layouts[s][name] }

// addLayouts lays out every struct of s once, so decoding a fact computes
// no field list, key list or reading plan.
func (v *Vocabulary) addLayouts(s *gen.Spec) {
	structs := map[string]*structOf{}
	for _, f := range s.Facts {
		for _, fv := range f.LiveVersions() {
			structs[f.StructName(fv)] = &structOf{spec: s, name: f.StructName(fv), fields: gen.WireFields(fv.Fields), fact: true}
		}
	}
	for _, r := range s.Records {
		structs[r.Name] = &structOf{spec: s, name: r.Name, fields: gen.WireFields(r.Fields)}
	}
	for _, u := range s.Unions {
		for _, vr := range u.Variants {
			structs[vr.Name] = &structOf{spec: s, name: vr.Name, fields: gen.WireFields(u.Common, vr.Fields), union: u, tag: vr.Tag}
		}
	}
	v.layouts[s] = structs
	recursive := gen.RecursiveRecords(s)
	for _, st := range structs {
		st.v, st.keys = v, st.names()
		st.recursive = recursive[st.name] && !st.fact && st.union == nil && st.onePass()
	}
	for _, st := range structs {
		for _, fd := range st.fields {
			st.owns = append(st.owns, st.ownOf(fd.Type))
		}
	}
}
