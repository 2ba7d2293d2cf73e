// Package proptest holds the property tests of the registry, the pump and
// the journal: a model-based state machine of registry and journal, a forced
// teardown property, a pump resources property, a journal recovery
// property, the subagent manager's machine and a machine of the PostgreSQL
// store against a real server, all driven by pgregory.net/rapid. The package has no API; its
// tests are the product. README.md says what each property protects, how to
// run them and how `make mutants` shows that they catch deliberate bugs.
package proptest
