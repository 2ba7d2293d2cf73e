// Package gen is the front end of the jobgen generator and its output
// machinery: it reads a job vocabulary spec (spec/*.yaml, the language
// spec/README.md describes), validates it, and renders, compares and
// writes what backends generate from it. The backends live in packages of
// their own, one per target (decision 0073):
//
//   - gen/golang, the Go package; gen/typescript, the TypeScript module;
//     gen/python, the Python module and its package's files;
//     gen/jsonschema, the JSON Schema; gen/markdown, the Markdown reference;
//   - gen/breaking, the compatibility checker behind jobgen breaking;
//   - gen/gomod, which finds the modules whose specs a spec imports;
//   - gen/doctext, the doc sentences two backends share; gen/wireschema,
//     the JSON Schema of a spec's types, which the JSON Schema backend
//     writes and the others inline into their tool tables; and
//     gen/gentest, the golden runner and helpers of the backends' tests.
//
// A backend imports this package and no other backend. The pipeline:
//
//   - A spec is read into a Spec, the model, with a Pos for every node, and
//     validated into a Resolved, the only input backends accept; the Go
//     sources the spec lists (upcasters) are read beside it. Every problem is
//     reported at once, as an ErrorList sorted by position. The model holds
//     what every backend reads alike: declarations by name (Index), the
//     fields that travel in JSON (WireFields), and what each scalar type is
//     on the wire (Type.Scalar).
//   - A Backend turns a Resolved into Files. Render runs specs through
//     Targets (a backend and its output root) into a Tree, refusing
//     overlapping roots and specs that claim one file.
//   - A Tree is written (Write: atomically, removing what no spec yields any
//     more, never replacing a file jobgen did not write) or compared with
//     the file system (Compare: the unified diffs jobgen verify prints).
//
// The rule IDs a spec's allow_breaking names are here (Rules), since
// Validate checks them; gen/breaking reports by them.
//
// The package keeps no global state and reads no files but those it is
// given: specs are read by the caller (ReadSpec bounds their size), sources
// and the specs a spec imports through an fs.FS rooted at the spec's
// directory, and another module's specs through the Modules the caller
// passes in Options (gen/gomod asks the go command; decision 0090).
package gen
