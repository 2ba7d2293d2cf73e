// Package golang is jobgen's Go backend: from a resolved spec it generates
// the spec's Go package, one <section>.gen.go per section the spec uses
// (ids, enums, records, unions, faces, machines, facts, defaults, tools,
// codec and the package doc; for routes, routes.gen.go, the server side,
// and client.gen.go, the client: decisions 0168, 0205), with strict JSON
// decoders, one-pass fact decoders over
// package codec (decisions 0019, 0045) and a copy of each source the spec
// lists. Emit, Generate and GenerateFS are the one-spec helpers; jobgen
// uses Backend through gen.Render.
package golang
