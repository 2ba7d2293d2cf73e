package spec_test

import (
	"reflect"
	"testing"

	"github.com/jobgen/jobgen/generated/wire"
)

func init() {
	for _, v := range wire.KillResultValues() {
		enumValues[reflect.TypeFor[wire.KillResult]()] = append(enumValues[reflect.TypeFor[wire.KillResult]()], string(v))
	}
}

// wireCodecs is every type of the wire vocabulary, whose module imports
// jobs.ts for the snapshot a kill answers with and the ids, statuses and
// causes of an interval.
func wireCodecs() []tsCodec {
	return []tsCodec{
		plain[wire.ErrorBody]("ErrorBody"),
		plain[wire.KillRequest]("KillRequest"),
		plain[wire.KillResponse]("KillResponse"),
		plain[wire.Interval]("Interval"),
		plain[wire.KillResult]("KillResult"),
	}
}

// TestWireTypeScriptEqualsGo runs the round trip and the damaged documents
// of TestTypeScriptEqualsGo over the wire module, what jobhttp answers and
// the TypeScript client reads.
func TestWireTypeScriptEqualsGo(t *testing.T) {
	send := harness(t, "wire")
	t.Run("random values round-trip", func(t *testing.T) { roundTripThroughTS(t, send, wireCodecs()) })
	t.Run("damaged documents are refused alike", func(t *testing.T) { damagedDocuments(t, send, wireCodecs()) })
}
