package agenttools

import "encoding/json"

// An InputSchemaTool is a tool definition in the shape the Anthropic
// Messages API takes in its "tools" list: name, description and
// input_schema.
type InputSchemaTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
}

// InputSchemaTools renders tools as a "tools" list of name, description and
// input_schema.
func InputSchemaTools(tools []Tool) []InputSchemaTool {
	out := make([]InputSchemaTool, len(tools))
	for i, t := range tools {
		out[i] = InputSchemaTool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema}
	}
	return out
}

// A FunctionTool is a tool definition in the shape the OpenAI Chat
// Completions API (and the many APIs that copy it) takes in its "tools"
// list: {"type": "function", "function": {name, description, parameters}}.
type FunctionTool struct {
	Type     string   `json:"type"`
	Function Function `json:"function"`
}

// A Function is the function of a FunctionTool.
type Function struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// FunctionTools renders tools as a "tools" list of functions whose
// parameters are the input schemas.
func FunctionTools(tools []Tool) []FunctionTool {
	out := make([]FunctionTool, len(tools))
	for i, t := range tools {
		out[i] = FunctionTool{Type: "function", Function: Function{Name: t.Name, Description: t.Description, Parameters: t.InputSchema}}
	}
	return out
}
