package mcpserver

// Bound reports how many MCP sessions the handler holds a binding for.
func (h *Handler) Bound() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.sessions)
}
