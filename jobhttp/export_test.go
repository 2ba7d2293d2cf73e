package jobhttp

// FleetRetained is how many jobs and runs of hosts f's view holds.
func FleetRetained(f *Fleet) (jobs, runs int) {
	f.view.mu.Lock()
	defer f.view.mu.Unlock()
	return len(f.view.jobs), len(f.view.runs)
}
