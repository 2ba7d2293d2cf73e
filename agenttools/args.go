package agenttools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/jobgen/jobgen/codec"
	"github.com/jobgen/jobgen/generated/tools"
)

// decodeArgs decodes a model's arguments into in with the generated
// decoder, which refuses a missing required field, a malformed id or enum
// value and an ambiguous key. No arguments, or null, is the empty object,
// since models often send nothing to a tool that needs nothing.
func decodeArgs(args json.RawMessage, in any) error {
	if len(bytes.TrimSpace(args)) == 0 || bytes.Equal(bytes.TrimSpace(args), []byte("null")) {
		args = json.RawMessage("{}")
	}
	if t := bytes.TrimSpace(args); len(t) == 0 || t[0] != '{' {
		return errNotObject
	}
	return json.Unmarshal(args, in)
}

var errNotObject = errors.New("arguments are not a JSON object")

// An inputShape is what the model was told of a tool's input: its
// properties and which are required, read from the tool's input schema,
// so that a decoding failure can be explained in the schema's terms.
type inputShape struct {
	required []string
	props    map[string]propShape
	order    []string
}

type propShape struct {
	types []string // JSON types, "null" left out
	enum  []string
	uuid  bool
	min   *float64
	max   *float64
	// maxLength is the most characters a string may have, counted as
	// JSON Schema and the generated decoders count them: code points.
	maxLength *float64
}

// shapeOf reads the shape of an inlined input schema.
func shapeOf(schema map[string]any) inputShape {
	s := inputShape{props: map[string]propShape{}}
	for _, r := range asList(schema["required"]) {
		if name, ok := r.(string); ok {
			s.required = append(s.required, name)
		}
	}
	props, _ := schema["properties"].(map[string]any)
	for name, p := range props {
		p, _ := p.(map[string]any)
		var ps propShape
		switch t := p["type"].(type) {
		case string:
			ps.types = []string{t}
		case []any:
			for _, x := range t {
				if x, ok := x.(string); ok && x != "null" {
					ps.types = append(ps.types, x)
				}
			}
		}
		for _, e := range asList(p["enum"]) {
			if e, ok := e.(string); ok {
				ps.enum = append(ps.enum, e)
			}
		}
		ps.uuid = p["format"] == "uuid"
		if v, ok := p["minimum"].(float64); ok {
			ps.min = &v
		}
		if v, ok := p["maximum"].(float64); ok {
			ps.max = &v
		}
		if v, ok := p["maxLength"].(float64); ok {
			ps.maxLength = &v
		}
		s.props[name] = ps
		s.order = append(s.order, name)
	}
	slices.Sort(s.order)
	return s
}

func asList(v any) []any { l, _ := v.([]any); return l }

// uuidText is the canonical form of an id, as the schema's pattern says.
var uuidText = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// explain turns the failure of decoding args against shape into what the
// model is told: which argument is wrong and what it must be. It reads the
// arguments again itself rather than parse the decoder's message, which is
// written for Go programmers.
//
// With a nil err (arguments that decoded), it checks what the decoder does
// not — an argument the tool does not have, a value out of the schema's
// bounds — and returns nil when nothing is wrong.
func (s inputShape) explain(tool string, args json.RawMessage, err error) *Error {
	if t := bytes.TrimSpace(args); err == nil && (len(t) == 0 || string(t) == "null") {
		return nil
	}
	var obj map[string]json.RawMessage
	if errors.Is(err, errNotObject) || json.Unmarshal(args, &obj) != nil {
		return fail(tools.ErrorCodeInvalidArguments, "The arguments of %s must be a JSON object%s.", tool, s.example())
	}
	if errors.Is(err, codec.ErrAmbiguousKey) {
		for key := range obj {
			for _, name := range s.order {
				if key != name && strings.EqualFold(key, name) {
					return fail(tools.ErrorCodeInvalidArguments, "Write the argument %q as %q, in exactly that case.", key, name)
				}
			}
		}
		return fail(tools.ErrorCodeInvalidArguments, "An argument of %s appears twice; give each once.", tool)
	}
	for _, key := range slices.Sorted(maps.Keys(obj)) {
		if _, ok := s.props[key]; !ok && !slices.ContainsFunc(s.order, func(n string) bool { return strings.EqualFold(n, key) }) {
			if len(s.order) == 0 {
				return fail(tools.ErrorCodeInvalidArguments, "%s takes no arguments, and %q is none of its: call it with {}.", tool, cutUTF8(key, 64))
			}
			return fail(tools.ErrorCodeInvalidArguments, "%s has no argument %q; its arguments are %s.", tool, cutUTF8(key, 64), strings.Join(s.order, ", "))
		}
	}
	for _, name := range s.required {
		if v, ok := obj[name]; !ok || string(bytes.TrimSpace(v)) == "null" {
			return fail(tools.ErrorCodeInvalidArguments, "%s needs the argument %q.", tool, name)
		}
	}
	for _, name := range s.order {
		v, ok := obj[name]
		if !ok || string(bytes.TrimSpace(v)) == "null" {
			continue
		}
		if why := s.props[name].wrong(v); why != "" {
			return fail(tools.ErrorCodeInvalidArguments, "The argument %q of %s %s.", name, tool, why)
		}
	}
	if err == nil {
		return nil
	}
	return fail(tools.ErrorCodeInvalidArguments, "The arguments do not match the input schema of %s.", tool)
}

// wrong says what is wrong with v for p, or "" when nothing the schema
// states is.
func (p propShape) wrong(v json.RawMessage) string {
	var x any
	if json.Unmarshal(v, &x) != nil {
		return "is not JSON"
	}
	switch x := x.(type) {
	case string:
		if !slices.Contains(p.types, "string") {
			return "must be " + p.want()
		}
		if len(p.enum) > 0 && !slices.Contains(p.enum, x) {
			return "must be one of " + strings.Join(p.enum, ", ")
		}
		if p.uuid && x == "00000000-0000-0000-0000-000000000000" {
			return "is the nil id, which names nothing: it must be an id as job_list shows it, such as 0b5c2f1e-7d1a-4c3b-9e8f-2a6b4c8d0e1f"
		}
		if p.uuid && !uuidText.MatchString(x) {
			return "must be an id as job_list shows it: 36 lower-case hexadecimal digits and dashes, such as 0b5c2f1e-7d1a-4c3b-9e8f-2a6b4c8d0e1f"
		}
		if p.maxLength != nil && float64(utf8.RuneCountInString(x)) > *p.maxLength {
			return fmt.Sprintf("must be at most %.0f characters", *p.maxLength)
		}
	case float64:
		integer := slices.Contains(p.types, "integer")
		if !integer && !slices.Contains(p.types, "number") {
			return "must be " + p.want()
		}
		if integer && (x != float64(int64(x)) || bytes.ContainsAny(v, ".eE")) {
			return "must be a whole number"
		}
		if p.min != nil && x < *p.min || p.max != nil && x > *p.max {
			return p.rangeText()
		}
	case bool:
		if !slices.Contains(p.types, "boolean") {
			return "must be " + p.want()
		}
	case []any:
		if !slices.Contains(p.types, "array") {
			return "must be " + p.want()
		}
	case map[string]any:
		if !slices.Contains(p.types, "object") {
			return "must be " + p.want()
		}
	}
	return ""
}

// want names the JSON types p allows.
func (p propShape) want() string {
	words := map[string]string{"string": "a string", "integer": "a whole number", "number": "a number", "boolean": "true or false", "array": "a list", "object": "an object"}
	var out []string
	for _, t := range p.types {
		out = append(out, words[t])
	}
	if len(out) == 0 {
		return "another value"
	}
	return strings.Join(out, " or ")
}

func (p propShape) rangeText() string {
	switch {
	case p.min != nil && p.max != nil:
		return fmt.Sprintf("must be from %.0f to %.0f", *p.min, *p.max)
	case p.min != nil:
		return fmt.Sprintf("must be at least %.0f", *p.min)
	}
	return fmt.Sprintf("must be at most %.0f", *p.max)
}

// example shows the required arguments as an object, such as ", such as
// {\"jobId\": …}", or nothing when none are required.
func (s inputShape) example() string {
	if len(s.required) == 0 {
		return ", such as {}"
	}
	parts := make([]string, len(s.required))
	for i, name := range s.required {
		parts[i] = fmt.Sprintf("%q: …", name)
	}
	return ", such as {" + strings.Join(parts, ", ") + "}"
}
