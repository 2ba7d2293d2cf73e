// Package registrytest holds fakes for testing code that runs on the
// registry's output pump: a recording job that keeps its appends, a
// producer's output that keeps a bounded window, a signal that counts its
// subscriptions and a timer factory that counts its timers. The registry's
// own pump tests, procjob's tests and the property tests of package
// proptest share them.
//
// The package imports only the generated job vocabulary, so that the
// registry's internal tests can use it; its types satisfy the registry's
// interfaces (jobs.RecordingJob, registry.OffsetReader, registry.Signal,
// registry.Timer) by their method sets.
package registrytest
