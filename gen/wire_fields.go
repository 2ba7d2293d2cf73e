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

// RecursiveRecords are the records of s that hold themselves on the wire:
// each reaches itself through the wire fields of the records its own wire
// fields name (through pointers, lists and maps). Their values nest as
// deep as the input does, so a decoder that reads each nested record as a
// value of its own (checking its syntax, then its keys, then decoding it)
// reads every byte once per record around it; the Go backend and package
// factspec read them in one pass (decision 0157).
func RecursiveRecords(s *Spec) map[string]bool {
	byName := map[string]*Record{}
	for _, r := range s.Records {
		byName[r.Name] = r
	}
	// holds lists the records of s each record's wire fields name.
	holds := func(r *Record) []string {
		var out []string
		for _, f := range WireFields(r.Fields) {
			f.Type.Walk(func(t *Type) {
				if t.Kind == TypeNamed && t.Decl() == DeclRecord && byName[t.Name] != nil {
					out = append(out, t.Name)
				}
			})
		}
		return out
	}
	out := map[string]bool{}
	for _, r := range s.Records {
		seen := map[string]bool{}
		work := holds(r)
		for len(work) > 0 {
			name := work[len(work)-1]
			work = work[:len(work)-1]
			if name == r.Name {
				out[r.Name] = true
				break
			}
			if !seen[name] {
				seen[name] = true
				work = append(work, holds(byName[name])...)
			}
		}
	}
	return out
}
