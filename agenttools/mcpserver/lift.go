package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The SDK decodes tools/call params into a type without the 2025-11-25
// "task" member, so a client's request for a task would be lost before any
// hook sees it. liftTask moves it into the params' _meta (liftedTaskKey),
// which the SDK keeps; the HTTP handler lifts each message of a request's
// body, liftingTransport each message stdio reads. Delete it when the SDK
// decodes "task" (decision 0161).
func liftTask(params json.RawMessage) json.RawMessage {
	if !bytes.Contains(params, []byte(`"task"`)) {
		return params
	}
	var p map[string]json.RawMessage
	if json.Unmarshal(params, &p) != nil || p["task"] == nil {
		return params
	}
	meta := map[string]json.RawMessage{}
	if m := p["_meta"]; m != nil && json.Unmarshal(m, &meta) != nil {
		return params
	}
	meta[liftedTaskKey] = p["task"]
	delete(p, "task")
	var err error
	if p["_meta"], err = json.Marshal(meta); err != nil {
		return params
	}
	out, err := json.Marshal(p)
	if err != nil {
		return params
	}
	return out
}

// liftBody lifts the tools/call messages of an HTTP request body: one
// JSON-RPC message or a batch. A body that is no JSON is left as it is,
// for the SDK to refuse.
func liftBody(body []byte) []byte {
	if !bytes.Contains(body, []byte(`"task"`)) {
		return body
	}
	lift := func(raw json.RawMessage) json.RawMessage {
		var m map[string]json.RawMessage
		if json.Unmarshal(raw, &m) != nil || string(m["method"]) != `"tools/call"` || m["params"] == nil {
			return raw
		}
		m["params"] = liftTask(m["params"])
		out, err := json.Marshal(m)
		if err != nil {
			return raw
		}
		return out
	}
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		var batch []json.RawMessage
		if json.Unmarshal(trimmed, &batch) != nil {
			return body
		}
		for i := range batch {
			batch[i] = lift(batch[i])
		}
		out, err := json.Marshal(batch)
		if err != nil {
			return body
		}
		return out
	}
	return lift(trimmed)
}

// A liftingTransport is a transport whose connections lift the task of
// each tools/call they read.
type liftingTransport struct{ sdk.Transport }

func (t liftingTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return liftingConn{c}, nil
}

type liftingConn struct{ sdk.Connection }

func (c liftingConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if req, ok := msg.(*jsonrpc.Request); ok && err == nil && req.Method == "tools/call" {
		req.Params = liftTask(req.Params)
	}
	return msg, err
}

// decodeJSON decodes a tool's arguments, absent ones as the empty object.
func decodeJSON(args json.RawMessage, v any) error {
	if len(bytes.TrimSpace(args)) == 0 {
		args = json.RawMessage("{}")
	}
	return json.Unmarshal(args, v)
}
