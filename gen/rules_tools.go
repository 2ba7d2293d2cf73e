package gen

import "fmt"

// The rules of jobgen breaking for a spec's tools and its fields' bounds
// (decision 0209).
const (
	RuleToolDeleted         RuleID = "TOOL_DELETED"
	RuleToolRecordChanged   RuleID = "TOOL_RECORD_CHANGED"
	RuleToolEffectsWidened  RuleID = "TOOL_EFFECTS_WIDENED"
	RuleToolTaskRequired    RuleID = "TOOL_TASK_REQUIRED"
	RuleFieldBoundTightened RuleID = "FIELD_BOUND_TIGHTENED"
	RuleFieldBoundLoosened  RuleID = "FIELD_BOUND_LOOSENED"
)

// toolRules are the tool and bound rules in the order the documentation
// lists them.
func toolRules() []Rule {
	return []Rule{
		{RuleToolDeleted, "wire, goapi", "a tool was deleted or renamed: old calls name a tool the server no longer offers"},
		{RuleToolRecordChanged, "wire", "a tool's input or result is another record than the one its callers were shown"},
		{RuleToolEffectsWidened, "wire", "a tool is no longer read-only or idempotent, or became destructive or open-world"},
		{RuleToolTaskRequired, "wire", "a tool's taskSupport became required: calls without a task are refused"},
		{RuleFieldBoundTightened, "durable, wire when reached", "a field's min rose, its max or maxLength fell, or it gained one"},
		{RuleFieldBoundLoosened, "durable, wire when reached (forward)", "a field's bound was loosened or removed, so readers of the old spec refuse what the new one may write"},
	}
}

// TighterBound says which bound of f refuses a value that from, a field
// f takes the values of (an older version of it, the field it derives
// from), may hold — "max 5 refuses more" — or "" when f's bounds admit
// all of them. A bound from's type keeps by itself (an unsigned field's
// min 0, a uint8's max 255) counts as stated.
func TighterBound(f, from *Field) string {
	lo, hi, ranged := from.Type.Scalar().Range()
	if !ranged && from.Type.Scalar().Kind == ScalarUint {
		lo, ranged = 0, true
	}
	switch {
	case f.Min != nil && (from.Min == nil && (!ranged || lo < f.Min.Value) || from.Min != nil && from.Min.Value < f.Min.Value):
		return fmt.Sprintf("min %d refuses less", f.Min.Value)
	case f.Max != nil && (from.Max == nil && (!ranged || hi > f.Max.Value) || from.Max != nil && from.Max.Value > f.Max.Value):
		return fmt.Sprintf("max %d refuses more", f.Max.Value)
	case f.MaxLength != nil && (from.MaxLength == nil || from.MaxLength.Value > f.MaxLength.Value):
		return fmt.Sprintf("maxLength %d refuses longer strings", f.MaxLength.Value)
	}
	return ""
}
