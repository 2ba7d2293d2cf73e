package breaking

import (
	"fmt"
	"strings"

	"github.com/jobgen/jobgen/gen"
)

// Compatibility modes (decision 0175), as schema registries name them: a
// change breaks backward when a reader of the new spec cannot read what
// the old one wrote (history, an old peer), and forward when a reader of
// the old spec cannot read what the new one writes (an old host reading a
// new host's facts during a rolling upgrade). Every finding says which it
// breaks for durable and wire; the Go API has one direction only, code
// written against the old package compiling against the new, which counts
// as backward.

// A Mode is a direction of compatibility, or both.
type Mode int

// The modes.
const (
	Backward Mode = 1 << iota
	Forward
	Full = Backward | Forward
)

// String names the mode as --mode takes it.
func (m Mode) String() string {
	switch m {
	case Backward:
		return "backward"
	case Forward:
		return "forward"
	case Full:
		return "full"
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// ParseMode reads a mode as --mode names it.
func ParseMode(s string) (Mode, error) {
	for _, m := range []Mode{Backward, Forward, Full} {
		if m.String() == s {
			return m, nil
		}
	}
	return 0, fmt.Errorf("unknown mode %q (backward, forward or full)", s)
}

// An Option narrows what Compare and CompareAll report. Without any,
// every category is reported, each checked in its default mode.
type Option func(*options)

// options is what a comparison reports: its options applied.
type options struct {
	Mode Mode           // zero: each category's default (see WithMode)
	Only []gen.Category // none: every category
}

// WithMode checks durable and wire findings in mode m: Backward, Forward or
// Full. Without it, or with zero, each category is checked in its default:
// full for durable (history outlives every build, and hosts of two builds
// share it), backward for wire (readers are upgraded before writers). Go
// API findings are backward whatever the mode, so Forward reports none.
func WithMode(m Mode) Option {
	return func(o *options) { o.Mode = m & Full }
}

// WithOnly keeps the findings of these categories alone; without it, or
// with none, every category's are kept. Two WithOnly keep the categories of
// both.
func WithOnly(categories ...gen.Category) Option {
	return func(o *options) { o.Only = append(o.Only, categories...) }
}

// newOptions applies opts; a nil option is skipped.
func newOptions(opts []Option) options {
	var o options
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	return o
}

// modeOf is the mode c is checked in.
func (o options) modeOf(c gen.Category) Mode {
	switch {
	case c == gen.GoAPI && o.Mode != 0:
		return o.Mode & Backward
	case c == gen.GoAPI:
		return Backward
	case o.Mode != 0:
		return o.Mode
	case c == gen.Durable:
		return Full
	}
	return Backward
}

// BreaksIn is the mode f breaks category c in: its Breaks for durable and
// wire, backward for goapi.
func (f Finding) BreaksIn(c gen.Category) Mode {
	if c == gen.GoAPI {
		return Backward
	}
	return f.Breaks
}

// reported reports whether o keeps f: some category of f that o keeps is
// broken in the mode o checks it in. ALLOWANCE_UNUSED, of no category, is
// always reported.
func (o options) reported(f Finding) bool {
	if len(f.Categories) == 0 {
		return true
	}
	for _, c := range f.Categories {
		kept := len(o.Only) == 0
		for _, k := range o.Only {
			kept = kept || k == c
		}
		if kept && o.modeOf(c)&f.BreaksIn(c) != 0 {
			return true
		}
	}
	return false
}

// categoriesText is the bracket a finding ends with: each category with the
// mode it breaks, [durable: full, goapi: backward].
func (f Finding) categoriesText() string {
	var parts []string
	for _, c := range f.Categories {
		parts = append(parts, string(c)+": "+f.BreaksIn(c).String())
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// ruleModes is the mode each rule breaks durable and wire in, unless the
// finding says otherwise (a widening breaks forward only; an id from uuid
// to string, forward; from string to uuid, backward).
var ruleModes = map[gen.RuleID]Mode{
	gen.RuleFactDeleted:             Backward,
	gen.RuleFactVersionDeleted:      Backward,
	gen.RuleFactVersionAdded:        Forward,
	gen.RuleFieldDeletedNotReserved: Full,
	gen.RuleReservedNameDeleted:     Full,
	gen.RuleReservedNameReused:      Full,
	gen.RuleFieldDeleted:            Full,
	gen.RuleFieldRenamed:            Backward,
	gen.RuleFieldJSONNameChanged:    Full,
	gen.RuleFieldTypeChanged:        Full,
	gen.RuleFieldMadeRequired:       Backward,
	gen.RuleFieldMadeOptional:       Forward,
	gen.RuleFieldMadeTerminal:       Backward,
	gen.RuleRequiredFieldAdded:      Backward,
	gen.RuleEnumValueDeleted:        Backward,
	gen.RuleEnumValueAdded:          Forward,
	gen.RuleIDKindChanged:           Backward,
	gen.RuleVariantDeleted:          Backward,
	gen.RuleVariantAdded:            Forward,
	gen.RuleDiscriminatorChanged:    Full,
	gen.RuleVariantFieldMoved:       Full,
	gen.RuleFaceMethodRemoved:       Backward,
	gen.RuleFaceMethodChanged:       Backward,
	gen.RuleFaceMethodAdded:         Backward,
	gen.RuleTypeDeleted:             Backward,
	// A route's findings are about clients built from the old spec talking to
	// a server built from the new one, and the reverse while clients upgrade:
	// a client and its server are each other's readers, so each breaks both.
	gen.RuleRouteDeleted:          Full,
	gen.RuleRouteMoved:            Full,
	gen.RuleRouteParamTypeChanged: Full,
	gen.RuleRouteParamDeleted:     Full,
	gen.RuleRouteQueryRequired:    Full,
	gen.RuleRouteBodyChanged:      Full,
	gen.RuleRouteResponseChanged:  Full,
	gen.RuleRouteStreamChanged:    Full,
	gen.RuleRouteAdded:            Backward,
	// A tool's caller reads the list the server serves, not a spec of its
	// own: what breaks is an old call meeting a new server (decision 0209).
	gen.RuleToolDeleted:         Backward,
	gen.RuleToolRecordChanged:   Backward,
	gen.RuleToolEffectsWidened:  Backward,
	gen.RuleToolTaskRequired:    Backward,
	gen.RuleFieldBoundTightened: Backward,
	gen.RuleFieldBoundLoosened:  Forward,
}
