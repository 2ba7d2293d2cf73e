package spec_test

import "strings"

// The tables of documents every other language's decoders are held to
// against Go's: the TypeScript round trip (ts_test.go) and the Python one
// (python_test.go) send the same rows.

// A badDocument is a document Go refuses, with the kind of refusal the
// other side reports; where Go reports the refusal with a sentinel error,
// it is the same kind.
type badDocument struct {
	why, typ, doc, kind string
}

// badDocumentTable is the table of documents both sides must refuse.
func badDocumentTable() []badDocument {
	return []badDocument{
		{"an unknown discriminator", "FollowFrame", `{"frame":"paused"}`, "unknownVariant"},
		{"no discriminator", "FollowFrame", `{"job":` + snapshot + `}`, "missingField"},
		{"a null discriminator", "FollowFrame", `{"frame":null}`, "missingField"},
		{"a number as discriminator", "FollowFrame", `{"frame":1}`, "wrongType"},
		{"an array for a union", "FollowFrame", `[]`, "wrongType"},
		{"a string for a union", "FollowFrame", `"opened"`, "wrongType"},
		{"null for a union", "FollowFrame", `null`, "missingField"},
		{"another variant's tag", "OutputFrame", `{"frame":"opened","next":1}`, "invalidValue"},
		{"a missing required field", "OutputFrame", `{"frame":"output"}`, "missingField"},
		{"null for a required field", "OutputFrame", `{"frame":"output","next":null}`, "missingField"},
		{"a fraction for an integer", "OutputFrame", `{"frame":"output","next":1.5}`, "wrongType"},
		{"a string for an integer", "OutputFrame", `{"frame":"output","next":"1"}`, "wrongType"},
		{"an object for a list", "OutputFrame", `{"frame":"output","next":1,"chunks":{}}`, "wrongType"},
		{"null in a list of records", "OutputFrame", `{"frame":"output","next":1,"chunks":[null]}`, "missingField"},
		{"an empty enum value", "OutputFrame", `{"frame":"output","next":1,"chunks":[{"offset":0,"at":0,"text":"","channel":""}]}`, "invalidEnum"},
		{"an unknown enum value", "JobSnapshot", strings.Replace(snapshot, `"running"`, `"paused"`, 1), "invalidEnum"},
		{"an enum value in the wrong case", "JobOutcome", `{"status":"Running"}`, "invalidEnum"},
		{"a malformed UUID", "JobSnapshot", strings.Replace(snapshot, "6ba7b810-9dad", "6ba7b810x9dad", 1), "invalidID"},
		{"a UUID one digit short", "JobID", `"6ba7b810-9dad-11d1-80b4-00c04fd430c"`, "invalidID"},
		{"an empty UUID", "JobID", `""`, "invalidID"},
		{"a UUID in upper case", "JobID", `"6BA7B810-9DAD-11D1-80B4-00C04FD430C8"`, "invalidID"},
		{"a UUID in braces", "JobID", `"{6ba7b810-9dad-11d1-80b4-00c04fd430c8}"`, "invalidID"},
		{"a URN UUID", "JobID", `"urn:uuid:6ba7b810-9dad-11d1-80b4-00c04fd430c8"`, "invalidID"},
		{"a UUID without hyphens", "JobID", `"6ba7b8109dad11d180b400c04fd430c8"`, "invalidID"},
		{"the nil UUID", "JobSettled", `{"jobId":"00000000-0000-0000-0000-000000000000","at":1,"status":"killed","producerReported":false,"registration":{"registeredAt":0,"owner":"","kind":"","label":"","ordinal":0,"record":false}}`, "invalidID"},
		{"a key in another case", "FollowFrame", `{"frame":"status","Job":` + snapshot + `}`, "ambiguousKey"},
		{"a discriminator in another case", "FollowFrame", `{"FRAME":"status","job":` + snapshot + `}`, "ambiguousKey"},
		{"a key folding through U+017F", "OutputFrame", `{"frame":"output","next":1,"loſſy":true}`, "ambiguousKey"},
		{"a key folding through the Kelvin sign", "JobSnapshot", strings.Replace(snapshot, `"kind"`, `"\u212aind"`, 1), "ambiguousKey"},
		{"a nested key in another case", "StatusFrame", `{"frame":"status","job":` + strings.Replace(snapshot, `"label"`, `"Label"`, 1) + `}`, "ambiguousKey"},
		{"an envelope key in capitals", "FactEnvelope", `{"TYPE":"job/registered","v":1,"data":{}}`, "ambiguousKey"},
		{"a settled status that is not terminal", "FactEnvelope", `{"type":"job/settled","v":2,"data":{"jobId":"6ba7b810-9dad-11d1-80b4-00c04fd430c8","at":1,"status":"running","producerReported":false,"registration":{"registeredAt":0,"owner":"","kind":"","label":"","ordinal":0,"record":false}}}`, "invalidEnum"},
		{"a nested record missing a field", "StatusFrame", `{"frame":"status","job":{"id":"6ba7b810-9dad-11d1-80b4-00c04fd430c8"}}`, "missingField"},
		{"a dotless i, which Go does not fold to i", "JobSnapshot", strings.Replace(snapshot, `"id"`, `"\u0131d"`, 1), "missingField"},
		{"a number for a string", "RecordChunk", `{"offset":0,"at":0,"text":5}`, "wrongType"},
		{"a wrong type under a key that is repeated", "RecordChunk", `{"offset":"x","OFFSET":1,"at":0,"text":""}`, "wrongType"},
		{"a boolean for an integer", "JobSnapshot", strings.Replace(snapshot, `"ordinal":1`, `"ordinal":true`, 1), "wrongType"},
		{"an unknown fact version", "FactEnvelope", `{"type":"job/settled","v":9,"data":{}}`, "unknownVersion"},
		{"an unknown fact type", "FactEnvelope", `{"type":"job/paused","v":1,"data":{}}`, "unknownFact"},
		{"a fact without a version", "FactEnvelope", `{"type":"job/registered","data":{}}`, "unknownVersion"},
		{"a fact without data", "FactEnvelope", `{"type":"job/settled","v":2}`, "missingField"},
		{"a fact with null data", "FactEnvelope", `{"type":"job/settled","v":2,"data":null}`, "missingField"},
		{"a fact version as a string", "FactEnvelope", `{"type":"job/settled","v":"2","data":{}}`, "wrongType"},
		{"a fact version with a fraction", "FactEnvelope", `{"type":"job/settled","v":2.5,"data":{}}`, "wrongType"},
		{"null for a fact", "FactEnvelope", `null`, "missingField"},
		{"null for an optional record Go holds by value", "FactEnvelope", `{"type":"job/registered","v":2,"data":{"jobId":"6ba7b810-9dad-11d1-80b4-00c04fd430c8","at":1,"owner":"s","kind":"k","label":"l","ordinal":1,"record":true,"host":null}}`, "missingField"},
		{"a lone surrogate in an enum value", "JobOutcome", `{"status":"running\ud800"}`, "invalidEnum"},
		{"an unknown key nested deeper than Go reads (arrays)", "OutputFrame", `{"frame":"output","next":1,"x":` + nested("[", "]", maxDepth) + `}`, "invalidValue"},
		{"an unknown key nested deeper than Go reads (objects)", "RecordChunk", `{"offset":0,"at":0,"text":"","x":` + nested(`{"a":`, "}", maxDepth) + `}`, "invalidValue"},
		{"an unknown key nested deeper than Go reads in a union", "FollowFrame", `{"frame":"output","next":1,"x":` + nested("[", "]", maxDepth) + `}`, "invalidValue"},
		{"an unknown variant nested deeper than Go reads", "FollowFrame", `{"frame":"paused","x":` + nested("[", "]", maxDepth) + `}`, "invalidValue"},
		{"an unknown key nested deeper than Go reads in a list element", "OutputFrame", `{"frame":"output","next":1,"chunks":[{"offset":0,"at":0,"text":"","x":` + nested("[", "]", maxDepth-2) + `}]}`, "invalidValue"},
		{"an unknown key nested deeper than Go reads in a fact", "FactEnvelope", `{"type":"job/settled","v":2,"x":` + nested(`[{"a":`, "}]", maxDepth/2) + `,"data":{"jobId":"6ba7b810-9dad-11d1-80b4-00c04fd430c8","at":1,"status":"killed","producerReported":false,"registration":{"registeredAt":0,"owner":"","kind":"","label":"","ordinal":0,"record":false}}}`, "invalidValue"},
	}
}

// An oddDocument is a document Go accepts although no Go encoder writes
// it; the other side must accept it too and read the same values.
type oddDocument struct {
	why, typ, doc string
	upcast        bool // Go writes another version than it read
}

// oddDocumentTable is the table of odd but valid documents.
func oddDocumentTable() []oddDocument {
	return []oddDocument{
		{"unknown fields", "FollowFrame", `{"frame":"status","job":` + snapshot + `,"extra":[1,{"a":null}]}`, false},
		{"null for optional fields", "JobSnapshot", strings.Replace(snapshot, `"record":true`, `"record":true,"owner":null,"detail":null,"finishedAt":null`, 1), false},
		{"null for a list", "OutputFrame", `{"frame":"output","next":1,"chunks":null}`, false},
		{"an absent list", "RecordRead", `{"earliest":0,"next":0}`, false},
		{"minus zero", "OutputFrame", `{"frame":"output","next":-0}`, false},
		{"null for a record without required fields", "AppendOptions", `null`, false},
		{"a dotless i, which is no i to Go: an unknown key", "RecordChunk", `{"offset":1,"at":2,"text":"a","ıd":5}`, false},
		{"an unknown key nested as deep as Go reads", "OutputFrame", `{"frame":"output","next":1,"x":` + nested("[", "]", maxDepth-1) + `}`, false},
		{"a lone high surrogate", "RecordChunk", `{"offset":1,"at":2,"text":"a\ud800b"}`, false},
		{"a lone low surrogate", "RecordChunk", `{"offset":1,"at":2,"text":"\udc00"}`, false},
		{"a high surrogate at the end of a string", "RecordChunk", `{"offset":1,"at":2,"text":"ab\udbff"}`, false},
		{"two high surrogates, then a low one", "RecordChunk", `{"offset":1,"at":2,"text":"\ud800\ud800\udc00"}`, false},
		{"a low surrogate before a high one", "RecordChunk", `{"offset":1,"at":2,"text":"\udc00\ud800"}`, false},
		{"a high surrogate before an escaped letter", "RecordChunk", `{"offset":1,"at":2,"text":"\ud800\u0041"}`, false},
		{"a high surrogate before a raw character", "RecordChunk", `{"offset":1,"at":2,"text":"\ud83dé"}`, false},
		{"a surrogate pair, which is one character", "RecordChunk", `{"offset":1,"at":2,"text":"\ud83d\ude00"}`, false},
		{"a lone surrogate in a nested record", "StatusFrame", `{"frame":"status","job":` + strings.Replace(snapshot, `"label":"ls"`, `"label":"l\udfffs"`, 1) + `}`, false},
		{"a lone surrogate in a list element", "OutputFrame", `{"frame":"output","next":1,"chunks":[{"offset":0,"at":0,"text":"\udabc"}]}`, false},
		{"a lone surrogate in an optional string", "JobSnapshot", strings.Replace(snapshot, `"record":true`, `"record":true,"owner":"\ud800"`, 1), false},
		{"a lone surrogate in an unknown key", "RecordChunk", `{"offset":1,"at":2,"text":"a","\ud800":1}`, false},
		{"a lone surrogate in a fact", "FactEnvelope", `{"type":"job/settled","v":2,"data":{"jobId":"6ba7b810-9dad-11d1-80b4-00c04fd430c8","at":1,"status":"killed","producerReported":false,"registration":{"registeredAt":0,"owner":"\ud800","kind":"k","label":"l","ordinal":1,"record":true}}}`, false},
		// Go upcasts an older fact version as it reads it; TypeScript keeps
		// the version it read, so only the values compare.
		{"a kept older fact version", "FactEnvelope", `{"type":"job/settled","v":1,"data":{"jobId":"6ba7b810-9dad-11d1-80b4-00c04fd430c8","at":1,"status":"killed","producerReported":false,"registration":{"registeredAt":0,"owner":"s","kind":"k","label":"l","ordinal":1,"record":true}}}`, true},
	}
}
