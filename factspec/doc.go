// Package factspec decodes the facts of any vocabulary from its spec alone,
// with no generated code: a tool built without a vocabulary's Go package
// (jobgen journal check, cat and intervals reading a downstream module's
// journal) still reads each fact as strictly as the package jobgen
// generates from the same spec, and refuses the same input with errors that
// wrap the same sentinels of package codec (codec.ErrMissingField,
// codec.ErrInvalidEnum, codec.ErrInvalidID, codec.ErrAmbiguousKey,
// codec.ErrUnknownVariant, codec.ErrWrongVariant, codec.ErrUnknownFact,
// codec.ErrUnknownVersion), so a caller tells unknown from damaged by
// errors.Is alone, as it does with generated code.
//
// A Vocabulary is built from validated specs (gen.Load) and the specs they
// import. It follows the generated decoders' two paths, since their
// refusals differ in order: a fact version and the records its fields name
// are read in one pass (the generated decodeX functions), and every other
// value as encoding/json reads it into the Go type the spec declares (the
// generated UnmarshalJSON and UnmarshalText methods): a value of the wrong
// JSON type is reported once the value is read, after the errors of the
// methods inside it.
//
// An older fact version is upcast as its spec derives each version from
// the one before (decision 0173), as the generated DecodeFact upcasts it, so
// Fact.V is the newest version and Fact.From the one written. What it cannot
// do without Go code: it does not run a hand-written Go upcaster (the fact
// is returned at the version that upcaster reads, named in Fact.Upcast, and
// a fact the upcaster would refuse is accepted), and a field whose type
// comes from a Go package rather than a spec (netip.Addr, a runtime's own
// type) is read as any JSON value; time.Time, time.Duration and
// json.RawMessage are read as Go reads them.
//
// A decoded fact's data is a map from each wire field's JSON name to its
// value: a string (ids, enums, UUIDs in canonical form), bool, int64, uint64,
// float64, []byte, []any, map[string]any, nil (an absent pointer), or the
// field's JSON as json.RawMessage where the spec says any JSON. Fields absent
// from the input are absent from the map.
//
// Decoding from the spec, rather than building a plugin or helper binary from
// the vocabulary's generated package, needs no Go toolchain, and no build of
// someone else's module, when a journal is read; a JSON Schema validator over
// the generated schema would be another dependency and cannot say what the
// decoders refuse (ambiguous keys, canonical UUIDs, the order of refusals).
// spec/factspec_test.go holds the two decoders to each other: over the
// refusal tables of spec/ and random values of every wire type, whole and
// damaged, both must accept or refuse alike with the same sentinels, and what
// this package read must read in Go as the original does.
package factspec
