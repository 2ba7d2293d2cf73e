// Package schema holds the JSON Schemas jobgen generates from spec/*.yaml
// (one <package>.schema.json per spec, beside this file), embedded, so that
// a program can validate against them or show them to a model without
// reading files at run time. The documents are jobgen's output; this file
// only embeds them.
package schema

import "embed"

// FS holds every <package>.schema.json of this directory at its base name,
// such as jobs.schema.json; their cross-spec $refs name one another so.
//
//go:embed *.schema.json
var FS embed.FS
