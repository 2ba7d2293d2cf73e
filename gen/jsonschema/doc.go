// Package jsonschema is jobgen's JSON Schema backend: from a resolved spec
// it generates one draft 2020-12 document with a definition per id, enum,
// record, union and live fact version, for tools that validate what the Go
// and TypeScript decoders read.
package jsonschema
