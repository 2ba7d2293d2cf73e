package gen

import (
	"slices"
	"strings"
)

// The model is a plain description of a spec, free of YAML. Parse builds it,
// Validate checks it, Emit walks it. Members keep the order the spec gives them
// (field order is JSON order, value order is doc order); declarations are
// emitted sorted by name. The model holds slices, never maps, so walking it is
// deterministic.

// A Spec is one vocabulary: everything one spec file declares.
type Spec struct {
	File     string // the path the spec was loaded from, as given
	Language int    // the value of the top-level jobgen key
	Package  Package
	Imports  []*Import
	IDs      []*ID
	Enums    []*Enum
	Records  []*Record
	Unions   []*Union
	Faces    []*Face
	Machines []*Machine
	Facts    []*Fact
	Defaults []*Default
	// HTTP is the wire's routes (the http section); nil when the spec
	// declares none.
	HTTP *HTTP
	// Tools are the model-facing tools (the tools section), in spec order.
	Tools []*Tool

	// AllowBreaking accepts findings of jobgen breaking that are intended.
	AllowBreaking []*Allowance

	// Sources are the hand-written Go files package.sources names, once
	// LoadFS has read them; see sources.go.
	Sources []*Source
	// sourcesRead reports whether Sources were read, so Validate can check
	// upcasters against them; a spec parsed without a file system has none.
	sourcesRead bool
	// idx finds declarations by name; see index.go.
	idx *Index
	// incomplete reports that loading the spec (its YAML, sources or
	// imports) found a problem, so Validate must not resolve it.
	incomplete bool
}

// A Package names the generated Go package.
type Package struct {
	Name    string // the package clause
	Path    string // the import path, for documentation and cross-spec references
	Doc     string
	Pos     Pos
	Sources []Ref // paths or globs of hand-written Go, relative to the spec's directory
}

// An Import makes a Go package available to type expressions under an alias:
// a package named by its import path, or the package another spec generates,
// whose declarations the spec then uses as alias.Name.
type Import struct {
	Alias string
	Path  string // the Go import path; for a spec, its package.path once read
	Pos   Pos

	// Spec is the imported spec's path, relative to the importing spec's
	// directory, or to the root of Module; empty for a plain Go import.
	Spec    string
	SpecPos Pos
	// Module is the Go module whose spec Spec names, for an import of
	// another module's spec ({module: PATH, spec: FILE}); empty for a spec
	// beside the importing one.
	Module    string
	ModulePos Pos
	// Imported is the imported spec, read and validated; nil until
	// LoadFS reads it, and when it could not be read.
	Imported *Resolved
	// Found is the module the imported spec was read from: Module's, or,
	// for a spec beside an importing spec that came from a module, that
	// module. It is nil for a spec of the importing spec's own tree.
	Found *Module
}

// Foreign reports whether the imported spec is another module's, whose
// generated code a backend reaches through that module's own packages
// (another TypeScript package, another schema) rather than beside its own.
func (im *Import) Foreign() bool { return im.Found != nil && !im.Found.Main }

// A Ref is a name used somewhere in the spec, with where it was used.
type Ref struct {
	Name string
	Pos  Pos
}

// IDKind is how an identifier type is represented.
type IDKind string

// The identifier kinds.
const (
	IDUUID   IDKind = "uuid"
	IDString IDKind = "string"
)

// An ID is an identifier type such as JobID.
type ID struct {
	Name string
	Doc  string
	Pos  Pos
	Kind IDKind
}

// An Enum is a closed set of string values.
type Enum struct {
	Name   string
	Doc    string
	Pos    Pos
	Values []*EnumValue
}

// An EnumValue is one member of an Enum.
type EnumValue struct {
	Value  string // the wire form
	GoName string // the constant's name: the enum name followed by the camel-cased value
	Doc    string
	Pos    Pos
}

// A Field is a member of a record, union variant or fact version.
type Field struct {
	Name     string // the spec key
	JSON     string // the wire name; the spec key unless overridden
	GoName   string // the struct field name
	Type     *Type
	Optional bool
	Doc      string
	Pos      Pos
	Since    int // the fact version that introduced the field; 0 outside facts
	SincePos Pos
	// Terminal restricts an enum field to the terminal states of the machine
	// the enum drives; decoding refuses any other value.
	Terminal    bool
	TerminalPos Pos
	terminalOf  *Machine // the machine, once Validate found it
	// Derive says where a field of a derived shape (a newer fact version, a
	// record or variant with from:) takes its value from; nil when it says
	// nothing, and takes the older shape's field of the same name.
	Derive *Derivation
	// Min, Max and MaxLength bound the field's values (decision 0208; see
	// model_bounds.go); nil when the spec states none.
	Min, Max, MaxLength *Bound
}

// Wire reports whether the field travels in JSON. Functions, channels, faces
// and errors live only in Go.
func (f *Field) Wire() bool { return f.Type.Wire() }

// A Record is a plain struct.
type Record struct {
	Name   string
	Doc    string
	Pos    Pos
	Fields []*Field
	// From names the record this one derives from, and Drop the fields of
	// it this one does not carry (decision 0173).
	From Ref
	Drop []Ref
}

// A Union is a sealed, discriminated union: an interface with one struct per
// variant, told apart on the wire by the discriminator field.
type Union struct {
	Name          string
	Doc           string
	Pos           Pos
	Discriminator string
	DiscPos       Pos
	Common        []*Field // fields every variant carries, in an embedded <Name>Common struct
	Variants      []*Variant
	// From names the union this one derives from: its variants match the
	// old ones by tag (decision 0173).
	From Ref
}

// CommonName is the Go name of the struct holding the union's common fields.
func (u *Union) CommonName() string { return u.Name + "Common" }

// A TagKind is the JSON kind of a union's discriminator values.
type TagKind string

// The discriminator kinds.
const (
	TagString TagKind = "string"
	TagBool   TagKind = "bool"
)

// A Tag is a discriminator value.
type Tag struct {
	Kind   TagKind
	String string // for TagString
	Bool   bool   // for TagBool
	Pos    Pos
}

// Text is the tag as the spec wrote it.
func (t Tag) Text() string {
	if t.Kind == TagBool {
		if t.Bool {
			return "true"
		}
		return "false"
	}
	return t.String
}

// A Variant is one case of a Union.
type Variant struct {
	Name   string
	Doc    string
	Pos    Pos
	Tag    Tag
	Fields []*Field
	// Added says the variant's tag is new to the union this union derives
	// from; Drop lists the old variant's fields it does not carry.
	Added    bool
	AddedPos Pos
	Drop     []Ref
}

// A Face is a producer face: a Go interface.
type Face struct {
	Name    string
	Doc     string
	Pos     Pos
	Embeds  []Ref
	Methods []*Method
}

// A Method is one method of a Face; its Type is a func type.
type Method struct {
	Name string
	Doc  string
	Pos  Pos
	Type *Type
}

// A Machine is a lifecycle state machine over the values of an enum.
type Machine struct {
	Name        string
	Doc         string
	Pos         Pos
	States      Ref // the enum whose values are the states
	Initial     Ref
	Terminal    []Ref
	Transitions []*Transition
}

// A Transition lists the states a machine may move to from one state.
type Transition struct {
	From Ref
	To   []Ref
}

// A Fact is a durable, versioned event record such as job/settled.
type Fact struct {
	Name     string // the wire type, e.g. "job/settled"
	GoName   string // e.g. "JobSettled"
	Doc      string
	Pos      Pos
	Reserved []Ref // field names that may not be used again
	Versions []*FactVersion
}

// Latest returns the newest version of the fact.
func (f *Fact) Latest() *FactVersion { return f.Versions[len(f.Versions)-1] }

// StructName is the Go name of version v's struct: the fact's Go name for the
// newest version, with a V<n> suffix for older ones.
func (f *Fact) StructName(v *FactVersion) string {
	if v == f.Latest() {
		return f.GoName
	}
	return f.GoName + "V" + itoa(v.Number)
}

// A FactVersion is one shape of a fact. Versions are sorted by Number.
type FactVersion struct {
	Number  int
	Doc     string
	Pos     Pos
	Retired bool // history of this version is no longer decodable, on purpose
	Fields  []*Field
	// Upcast names a hand-written func that turns this version into the
	// newest one; an older live version without one is derived (Derived).
	Upcast Ref
	// Drop lists the fields of the version before this one that this one
	// does not carry (decision 0173).
	Drop []Ref
	// Derived is how this version is read as the next one, from the next
	// one's declarations, once Validate resolved them; nil for the newest
	// version, a retired one, or one with a hand-written upcaster.
	Derived *Conversion
}

// A Unit is the unit of a default value.
type Unit string

// The units a default may carry.
const (
	UnitBytes   Unit = "bytes"
	UnitKiB     Unit = "KiB"
	UnitMiB     Unit = "MiB"
	UnitCount   Unit = "count"
	UnitMs      Unit = "ms"
	UnitSeconds Unit = "s"
	UnitMinutes Unit = "min"
)

// Units returns every unit in the order the documentation gives them.
func Units() []Unit {
	return []Unit{UnitBytes, UnitKiB, UnitMiB, UnitCount, UnitMs, UnitSeconds, UnitMinutes}
}

// Duration reports whether u measures time.
func (u Unit) Duration() bool { return u == UnitMs || u == UnitSeconds || u == UnitMinutes }

// A Default is a typed tunable constant.
type Default struct {
	Name    string // the spec key, e.g. "retainBytes"
	GoName  string // e.g. "DefaultRetainBytes"
	Doc     string
	Pos     Pos
	Value   int64
	Unit    Unit
	UnitPos Pos
}

// An Allowance accepts one finding of jobgen breaking: the change it names is
// intended, and Reason says why. An allowance that matches no finding is
// itself reported, so that stale ones do not pile up.
type Allowance struct {
	Rule    Ref    // a rule ID such as FIELD_DELETED
	Path    string // the finding's path, such as "facts.job/settled.versions.v1.fields.detail"
	PathPos Pos
	Reason  string
	Pos     Pos
}

// SortedBy returns items sorted by name, leaving items as they were: how a
// backend walks declarations so that its output is deterministic.
func SortedBy[T any](items []T, name func(T) string) []T {
	out := slices.Clone(items)
	slices.SortFunc(out, func(a, b T) int { return strings.Compare(name(a), name(b)) })
	return out
}

// LiveVersions are the versions of f the spec still decodes, oldest first.
func (f *Fact) LiveVersions() []*FactVersion {
	var live []*FactVersion
	for _, v := range f.Versions {
		if !v.Retired {
			live = append(live, v)
		}
	}
	return live
}

// TerminalOf is the machine whose terminal states the field holds, for a
// field marked terminal: true; nil otherwise.
func (f *Field) TerminalOf() *Machine { return f.terminalOf }

// SourcesRead reports whether the Go sources package.sources lists were
// read beside the spec (Load and LoadFS read them; Parse alone does not).
func (s *Spec) SourcesRead() bool { return s.sourcesRead }
