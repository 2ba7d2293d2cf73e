package gen

// Generate parses and validates a spec and emits its Go files. It returns
// an ErrorList of every problem when the spec is invalid, and no files.
func Generate(file string, data []byte) ([]File, error) {
	spec, err := Parse(file, data)
	if err != nil {
		return nil, err
	}
	return Emit(spec)
}
