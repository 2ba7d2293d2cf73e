// Package gen is the library behind the jobgen command: it reads a job
// vocabulary spec (spec/*.yaml, the language spec/README.md describes),
// validates it, and generates what the spec yields.
//
// The pipeline has three steps:
//
//   - A spec is read into a Spec, the model, with a Pos for every node, and
//     validated into a Resolved, the only input backends accept; the Go
//     sources the spec lists (upcasters) are read beside it. Every problem is
//     reported at once, as an ErrorList sorted by position. Generate and
//     GenerateFS run the whole pipeline for the Go backend.
//   - A Backend turns a Resolved into Files: GoBackend the Go package,
//     DocsBackend the Markdown reference, SchemaBackend the JSON Schema.
//     Render runs specs through Targets (a backend and its output root) into
//     a Tree, refusing overlapping roots and specs that claim one file.
//   - A Tree is written (Write: atomically, removing what no spec yields any
//     more, never replacing a file jobgen did not write) or compared with
//     the file system (Compare: the unified diffs jobgen verify prints).
//
// Breaking compares two specs of one vocabulary and reports each change that
// breaks history (durable), peers (wire) or the generated Go API (goapi),
// by stable rule IDs a spec can accept in allow_breaking.
//
// The package keeps no global state and reads no files but those it is
// given: specs are read by the caller (ReadSpec bounds their size) and
// sources through an fs.FS rooted at the spec's directory.
package gen
