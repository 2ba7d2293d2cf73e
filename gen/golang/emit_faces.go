package golang

import (
	"github.com/dave/jennifer/jen"

	"github.com/jobgen/jobgen/gen"
)

// faces emits each face as an interface, embeds first.
func (e *emitter) faces(f *jen.File) {
	for _, fc := range gen.SortedBy(e.spec.Faces, func(d *gen.Face) string { return d.Name }) {
		declComment(f, fc.Doc, fc.Name+" is a producer face.")
		f.Type().Id(fc.Name).InterfaceFunc(func(g *jen.Group) {
			for _, em := range fc.Embeds {
				g.Id(em.Name)
			}
			for _, m := range fc.Methods {
				g.Add(withDoc(m.Doc, jen.Id(m.Name).Add(funcSig(m.Type))))
			}
		})
	}
}

// machines emits each machine as a type with Initial and CanTransition, and a
// Terminal method on its states enum.
func (e *emitter) machines(f *jen.File) {
	enums := e.spec.Index().Enums
	for _, m := range gen.SortedBy(e.spec.Machines, func(d *gen.Machine) string { return d.Name }) {
		en := enums[m.States.Name]
		state := func(value string) jen.Code {
			for _, v := range en.Values {
				if v.Value == value {
					return jen.Id(v.GoName)
				}
			}
			panic("gen: machine state " + value + " is not in " + en.Name) // Validate rules this out
		}
		declComment(f, m.Doc, m.Name+" is a state machine over "+en.Name+".")
		f.Type().Id(m.Name).Struct()
		f.Line()
		f.Commentf("Initial returns the state every %s starts in.", m.Name)
		f.Func().Params(jen.Id(m.Name)).Id("Initial").Params().Id(en.Name).Block(jen.Return(state(m.Initial.Name)))
		f.Line()
		f.Commentf("CanTransition reports whether %s allows a move from one state to another.", m.Name)
		f.Func().Params(jen.Id(m.Name)).Id("CanTransition").Params(jen.List(jen.Id("from"), jen.Id("to")).Id(en.Name)).Bool().BlockFunc(func(g *jen.Group) {
			g.Switch(jen.Id("from")).BlockFunc(func(g *jen.Group) {
				for _, tr := range m.Transitions {
					if len(tr.To) == 0 {
						continue
					}
					var to []jen.Code
					for _, t := range tr.To {
						to = append(to, state(t.Name))
					}
					g.Case(state(tr.From.Name)).Block(jen.Switch(jen.Id("to")).Block(jen.Case(to...).Block(jen.Return(jen.True()))))
				}
			})
			g.Return(jen.False())
		})
		var terminal []jen.Code
		for _, t := range m.Terminal {
			terminal = append(terminal, state(t.Name))
		}
		r := recv(en.Name)
		f.Line()
		f.Commentf("Terminal reports whether %s is a terminal state of %s: no move leaves it.", r, m.Name)
		f.Func().Params(jen.Id(r).Id(en.Name)).Id("Terminal").Params().Bool().BlockFunc(func(g *jen.Group) {
			if len(terminal) > 0 {
				g.Switch(jen.Id(r)).Block(jen.Case(terminal...).Block(jen.Return(jen.True())))
			}
			g.Return(jen.False())
		})
	}
}
