package gen

// This file holds what the Go and TypeScript codecs agree on about a
// struct's fields on the wire: which travel, in what order, and which a
// decoder refuses JSON without.

// WireFields are the fields that travel in JSON, in the order Go's wire
// struct holds them: common fields first.
func WireFields(lists ...[]*Field) []*Field {
	var out []*Field
	for _, l := range lists {
		for _, f := range l {
			if f.Wire() {
				out = append(out, f)
			}
		}
	}
	return out
}

// WireCount is how many of fields travel in JSON.
func WireCount(fields []*Field) int { return len(WireFields(fields)) }

// WireRequired reports whether Go's decoder refuses JSON without the field:
// it is neither optional nor a collection, which JSON may leave out.
func WireRequired(f *Field) bool { return !f.Optional && !f.Type.Collection() }
