package python

import (
	"fmt"
	"slices"
	"strings"

	"github.com/jobgen/jobgen/gen"
)

// The streams of a client module (client.go): a stream method's loop over
// the client runtime's events, and the dataclass of a stream of several
// named events.

// eventClass writes the dataclass of a stream of several named events:
// its name, and the decoded data in the field of that name.
func (w *clientWriter) eventClass(r *gen.Route) {
	w.use("dataclasses", "dataclass")
	w.blank()
	w.line("@dataclass(frozen=True)")
	w.line("class %sEvent:", r.Name)
	w.docstring("    ", fmt.Sprintf("%sEvent is one event of %s's stream: its name, and its data in the field of that name.", r.Name, snake(r.Name)), "")
	w.line("")
	w.line("    name: str")
	for _, ev := range r.Stream.Events {
		w.line("    %s: %s | None = None", pyName(ev.Name), w.payloadType(&ev.Payload))
		w.docstring("    ", fmt.Sprintf("%s holds the data of an event named %s. %s", pyName(ev.Name), ev.Name, ev.Doc), "")
	}
}

// streamBody writes the loop of a stream method: the runtime's events of
// the stream, each decoded and yielded, until an event that ends it.
func (w *clientWriter) streamBody(r *gen.Route, async bool) {
	s := r.Stream
	query := "None"
	if len(r.Query) > 0 {
		query = w.queryExpr(r)
	}
	closing, with, loop := "closing", "with ", "for "
	if async {
		closing, with, loop = "aclosing", "async with ", "async for "
	}
	w.use("contextlib", closing)
	args := []string{w.pathExpr(r), query, eventsConst(r), fmt.Sprintf("resumable=%s", pyBool(s.Resume != nil)), "retries=retries"}
	stream := "self._stream(" + strings.Join(args, ", ") + ")"
	if line := "        " + with + closing + "(" + stream + ") as events:"; len(line) <= 88 {
		w.line("%s", line)
	} else {
		w.bracketed("        ", "events = self._stream(", args, ")", "")
		w.line("        %s%s(events) as events:", with, closing)
	}
	w.line("            %sevent in events:", loop)
	ends := func(ev *gen.StreamEvent) bool {
		return slices.ContainsFunc(s.Ends, func(ref gen.Ref) bool {
			return (ev.Variant != nil && ev.Variant.Name == ref.Name) || (ev.Variant == nil && ev.Name == ref.Name)
		})
	}
	switch {
	case len(s.Events) == 0:
		w.line("                pass")
		w.line(`        raise AssertionError("unreachable: the stream carries no event")`)
	case s.Union != nil:
		expr, _ := w.decoded(&gen.Payload{Type: s.Union}, "event.text")
		w.bracketedCall("                ", "value = ", expr)
		w.line("                yield value")
		var endTypes []string
		for _, ev := range s.Events {
			if ends(ev) {
				endTypes = append(endTypes, w.variantClass(s.Union, ev.Variant))
			}
		}
		if len(endTypes) == 1 {
			w.line("                if isinstance(value, %s):", endTypes[0])
			w.line("                    return")
		} else if len(endTypes) > 1 {
			w.bracketed("                ", "if isinstance(value, (", endTypes, ")):", "")
			w.line("                    return")
		}
	case len(s.Events) == 1:
		expr, _ := w.decoded(&s.Events[0].Payload, "event.text")
		w.bracketedCall("                ", "yield ", expr)
		if ends(s.Events[0]) {
			w.line("                return")
		}
	default:
		for i, ev := range s.Events {
			kw := "elif"
			if i == 0 {
				kw = "if"
			}
			w.line("                %s event.event == %q:", kw, ev.Name)
			expr, _ := w.decoded(&ev.Payload, "event.text")
			w.bracketed("                    ", "yield "+r.Name+"Event(", []string{fmt.Sprintf("%q", ev.Name), pyName(ev.Name) + "=" + expr}, ")", "")
			if ends(ev) {
				w.line("                    return")
			}
		}
	}
}

// variantClass is the class of union u's variant v, qualified as u is.
func (w *clientWriter) variantClass(u *gen.Type, v *gen.Variant) string {
	q := w.pyType(u)
	if i := strings.LastIndex(q, "."); i >= 0 {
		return q[:i+1] + v.Name
	}
	return v.Name
}
