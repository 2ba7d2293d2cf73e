package golang

import (
	"io/fs"

	"github.com/jobgen/jobgen/gen"
)

// Generate parses and validates a spec and emits its Go files, reading the
// spec's sources from the directory of file. It returns an ErrorList of every
// problem when the spec is invalid, and no files.
func Generate(file string, data []byte) ([]gen.File, error) {
	spec, err := gen.Load(file, data)
	if err != nil {
		return nil, err
	}
	return Emit(spec)
}

// GenerateFS is Generate reading the spec's sources from dir, a file system
// rooted at the spec's directory.
func GenerateFS(dir fs.FS, file string, data []byte) ([]gen.File, error) {
	spec, err := gen.LoadFS(dir, file, data)
	if err != nil {
		return nil, err
	}
	return Emit(spec)
}
