// Package golang is jobgen's Go backend: from a resolved spec it generates
// the spec's Go package, one <section>.gen.go per section the spec uses
// (ids, enums, records, unions, faces, machines, facts, defaults, codec and
// the package doc), with strict JSON decoders, one-pass fact decoders over
// package codec (decisions 0019, 0045) and a copy of each source the spec
// lists. Emit, Generate and GenerateFS are the one-spec helpers; jobgen
// uses Backend through gen.Render.
package golang
