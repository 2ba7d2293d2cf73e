package agenttools

// Kept reports what the tools keep between calls: the output cursors of
// job_output, the bytes they hold that no call has shown yet, and the
// parent sessions whose subagents job_list remembers. A test reads it to
// see that this state ends with its job or its session.
func (t *Tools) Kept() (cursors, waitingBytes, parents int) {
	t.cursors.mu.Lock()
	for _, c := range t.cursors.m {
		c.mu.Lock()
		waitingBytes += len(c.carry) + len(c.partial)
		c.mu.Unlock()
	}
	cursors = len(t.cursors.m)
	t.cursors.mu.Unlock()
	t.children.mu.Lock()
	parents = len(t.children.m)
	t.children.mu.Unlock()
	return cursors, waitingBytes, parents
}
