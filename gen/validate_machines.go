package gen

// Validate's checks of machines (emit_faces.go emits them beside the faces).

import (
	"slices"
	"strings"
)

// machines checks each machine against the enum of its states: initial,
// terminal and transition states exist, no transition leaves a terminal state,
// every state is reachable and every non-terminal state has a way out.
func (v *validator) machines() {
	enums := v.spec.Index().Enums
	driven := map[string]*Machine{}
	for _, m := range v.spec.Machines {
		what := "machines." + m.Name
		if m.States.Name == "" {
			continue
		}
		enum, ok := enums[m.States.Name]
		if !ok {
			if d, declared := v.decls[m.States.Name]; declared {
				v.add(m.States.Pos, "%s.states: %s is a %s; states come from an enum", what, m.States.Name, d.Kind)
			} else {
				v.add(m.States.Pos, "%s.states: undeclared enum %s%s", what, m.States.Name, didYouMean(m.States.Name, SortedKeys(enums)))
			}
			continue
		}
		if first, dup := driven[enum.Name]; dup {
			v.add(m.States.Pos, "%s.states: enum %s already drives machine %s; a Terminal method can answer for only one", what, enum.Name, first.Name)
		} else {
			driven[enum.Name] = m
		}
		var values []string
		for _, val := range enum.Values {
			values = append(values, val.Value)
		}
		isState := func(r Ref, where string) bool {
			if r.Name == "" {
				return false
			}
			if !slices.Contains(values, r.Name) {
				v.add(r.Pos, "%s.%s: %s is not a state of %s (states: %s)%s", what, where, r.Name, enum.Name, strings.Join(values, ", "), didYouMean(r.Name, values))
				return false
			}
			return true
		}
		isState(m.Initial, "initial")
		terminal := map[string]bool{}
		for _, t := range m.Terminal {
			if isState(t, "terminal") {
				if terminal[t.Name] {
					v.add(t.Pos, "%s.terminal: %s is listed twice", what, t.Name)
				}
				terminal[t.Name] = true
			}
		}
		if terminal[m.Initial.Name] {
			v.add(m.Initial.Pos, "%s.initial: the initial state %s is terminal, so nothing can ever happen", what, m.Initial.Name)
		}
		next := map[string][]string{}
		for _, tr := range m.Transitions {
			from := isState(tr.From, "transitions")
			if from && terminal[tr.From.Name] {
				v.add(tr.From.Pos, "%s.transitions: %s is terminal; no transition may leave it", what, tr.From.Name)
			}
			seen := map[string]bool{}
			for _, to := range tr.To {
				if !isState(to, "transitions."+tr.From.Name) {
					continue
				}
				if seen[to.Name] {
					v.add(to.Pos, "%s.transitions.%s: %s is listed twice", what, tr.From.Name, to.Name)
				}
				seen[to.Name] = true
				if from {
					next[tr.From.Name] = append(next[tr.From.Name], to.Name)
				}
			}
		}
		if slices.Contains(values, m.Initial.Name) {
			v.stateGraph(m, enum, terminal, next)
		}
	}
}

// stateGraph checks that every state of m is reachable from its initial state
// and that every non-terminal state has a way out; next holds each state's
// successors.
func (v *validator) stateGraph(m *Machine, enum *Enum, terminal map[string]bool, next map[string][]string) {
	what := "machines." + m.Name
	reached := reachable(m.Initial.Name, next)
	for _, val := range enum.Values {
		switch {
		case !reached[val.Value]:
			v.add(m.Pos, "%s: state %s cannot be reached from %s", what, val.Value, m.Initial.Name)
		case !terminal[val.Value] && len(next[val.Value]) == 0:
			v.add(m.Pos, "%s: state %s is not terminal but no transition leaves it", what, val.Value)
		}
	}
}

// reachable returns the states reachable from initial, itself included,
// following next (each state's successors) breadth first.
func reachable(initial string, next map[string][]string) map[string]bool {
	reached := map[string]bool{initial: true}
	queue := []string{initial}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		for _, n := range next[s] {
			if !reached[n] {
				reached[n] = true
				queue = append(queue, n)
			}
		}
	}
	return reached
}
