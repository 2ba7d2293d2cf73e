package agenttools

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
)

// NewStartTool binds a start tool a runtime declares in a spec of its own
// (its tooldef.Tool, from the generated table) to run. The arguments reach
// run decoded by In's generated decoder and checked against the tool's
// input schema, as the built-in tools' are: a missing or malformed
// argument, one the schema does not name and a value beyond its bounds are
// refused with invalidArguments, naming the argument. What run returns is
// the result's JSON; its errors are told as Call's are (see StartTool).
//
// It refuses a tool whose input schema is no JSON object, and an In other
// than the record the tool takes (tool.Input, when the table says it).
func NewStartTool[In, Out any](tool Tool, run func(ctx context.Context, caller Caller, in In) (Out, error)) (StartTool, error) {
	if in := reflect.TypeFor[In]().Name(); tool.Input != "" && in != tool.Input {
		return StartTool{}, fmt.Errorf("agenttools: start tool %q takes a %s, not a %s", tool.Name, tool.Input, in)
	}
	var schema map[string]any
	if err := json.Unmarshal(tool.InputSchema, &schema); err != nil {
		return StartTool{}, fmt.Errorf("agenttools: start tool %q: its input schema: %w", tool.Name, err)
	}
	shape := shapeOf(schema)
	return StartTool{Tool: tool, Call: func(ctx context.Context, caller Caller, args json.RawMessage) (json.RawMessage, error) {
		in, err := decodeChecked[In](args, func(err error) *Error { return shape.explain(tool.Name, args, err) })
		if err != nil {
			return nil, err
		}
		out, err := run(ctx, caller, in)
		if err != nil {
			return nil, err
		}
		return json.Marshal(out)
	}}, nil
}
