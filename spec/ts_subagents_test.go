package spec_test

import (
	"reflect"
	"testing"

	"github.com/jobgen/jobgen/generated/subagents"
)

func init() {
	enum := func(typ reflect.Type, values ...string) { enumValues[typ] = values }
	strs := func(v any) []string {
		var out []string
		rv := reflect.ValueOf(v)
		for i := range rv.Len() {
			out = append(out, rv.Index(i).String())
		}
		return out
	}
	enum(reflect.TypeFor[subagents.ContentKind](), strs(subagents.ContentKindValues())...)
	enum(reflect.TypeFor[subagents.Delivery](), strs(subagents.DeliveryValues())...)
	enum(reflect.TypeFor[subagents.DescriptorMode](), strs(subagents.DescriptorModeValues())...)
	enum(reflect.TypeFor[subagents.ErrorCode](), strs(subagents.ErrorCodeValues())...)
	enum(reflect.TypeFor[subagents.Origin](), strs(subagents.OriginValues())...)
	enum(reflect.TypeFor[subagents.SourceKind](), strs(subagents.SourceKindValues())...)
	enum(reflect.TypeFor[subagents.StopReason](), strs(subagents.StopReasonValues())...)
}

// subagentsCodecs is every wire type of the subagents vocabulary, whose
// module imports jobs.ts for the ids it shares with jobs.yaml.
func subagentsCodecs() []tsCodec {
	facts := []reflect.Type{
		reflect.TypeFor[subagents.SubagentCreated](), reflect.TypeFor[subagents.SubagentMessageAccepted](),
		reflect.TypeFor[subagents.SubagentMessageClaimed](), reflect.TypeFor[subagents.SubagentMessageDiscarded](),
		reflect.TypeFor[subagents.SubagentResidencyEnded](), reflect.TypeFor[subagents.SubagentResidencyStarted](),
		reflect.TypeFor[subagents.SubagentSeeded](),
	}
	return []tsCodec{
		plain[subagents.ChildHeader]("ChildHeader"),
		plain[subagents.ContentBlock]("ContentBlock"),
		plain[subagents.Descriptor]("Descriptor"),
		plain[subagents.Message]("Message"),
		plain[subagents.MessageSource]("MessageSource"),
		plain[subagents.ToolFilter]("ToolFilter"),
		plain[subagents.SubagentCreated]("SubagentCreated"),
		plain[subagents.SubagentSeeded]("SubagentSeeded"),
		{
			name:   "FactEnvelope",
			gen:    genOneOf(facts),
			encode: func(v any) ([]byte, error) { return subagents.EncodeFact(v.(subagents.Fact)) },
			decode: func(b []byte) (any, error) { return subagents.DecodeFact(b) },
		},
	}
}

// TestSubagentsTypeScriptEqualsGo runs the round trip and the damaged
// documents of TestTypeScriptEqualsGo over generated/ts/subagents.ts.
func TestSubagentsTypeScriptEqualsGo(t *testing.T) {
	send := harness(t, "subagents")
	t.Run("random values round-trip", func(t *testing.T) { roundTripThroughTS(t, send, subagentsCodecs()) })
	t.Run("damaged documents are refused alike", func(t *testing.T) { damagedDocuments(t, send, subagentsCodecs()) })
}
