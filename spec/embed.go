// Package spec holds jobgen's own specs, the job vocabulary (jobs.yaml) and
// the subagent vocabulary (subagents.yaml), for a program that reads their
// facts from the specs instead of
// from generated code: jobgen journal knows them wherever it runs, beside
// the specs of the module it runs in. The files are the ones this directory
// holds; spec/README.md describes their language.
package spec

import (
	"embed"
	"io/fs"
)

//go:embed jobs.yaml subagents.yaml
var files embed.FS

// Files is this directory as the specs read it: the specs, at the paths
// their imports give them.
func Files() fs.FS { return files }

// Names are the specs Files holds, each after the specs it imports.
func Names() []string { return []string{"jobs.yaml", "subagents.yaml"} }
