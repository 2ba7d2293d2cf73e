// Package breaking compares two specs of one vocabulary — the one released (old) and
// the one proposed (new) — and reports each change that would break someone
// relying on the old one. What "break" means depends on who relies on it,
// which is the finding's category:
//
//   - durable: facts, and the records, enums and ids they reach. History
//     written with the old spec must decode with the new one, forever.
//   - wire: unions (the follow stream, job starts), and the records, enums and
//     ids they reach. A reader built from the new spec must read what a writer
//     built from the old one sends, and fields must not change meaning under
//     the peers that still use the old one.
//   - goapi: the generated Go API — faces, exported types that vanish, and
//     the fields, field types and enum constants Go callers name. Every
//     record and enum counts here, reached by a fact or union or not.
//
// Deploy order matters for the wire: the rules assume readers are upgraded
// before writers, the order in which adding an optional field, an enum value
// or a variant is safe.
//
// Compare runs every rule; the rules' IDs, which a spec's allow_breaking
// names, are the front end's (gen.Rules), since Validate checks them.
package breaking
