package gen

// terminalFields checks each field marked terminal: true. Its type must be an
// enum of this spec that drives a machine, whose terminal states are then the
// only values the field decodes. A fact recording an end (job/settled) says so
// without gen knowing what ends.
func (v *validator) terminalFields() {
	machines := v.spec.Index().Machines
	v.eachFieldList(func(what string, fields []*Field) {
		for _, f := range fields {
			if !f.Terminal || f.Type == nil {
				continue
			}
			fwhat := what + "." + f.Name + ".terminal"
			if f.Type.Kind != TypeNamed || f.Type.decl != DeclEnum {
				v.add(f.TerminalPos, "%s: %s is not an enum of this spec; terminal: true needs an enum whose values a machine's states are", fwhat, f.Type)
				continue
			}
			m, ok := machines[f.Type.Name]
			if !ok {
				v.add(f.TerminalPos, "%s: no machine has %s as its states, so it has no terminal states", fwhat, f.Type.Name)
				continue
			}
			f.terminalOf = m
		}
	})
}
