// Package docscheck holds the project's rules for its decision records,
// checked by its test: every record under docs/decisions opens with its
// number, its title and one status line (accepted, superseded by a record,
// or amended by records that exist); the index, docs/decisions/README.md,
// lists every record exactly once with the title and status its file gives;
// and no record, nor the index, points outside the repository: no issue
// numbers, no design document or notes that only the people who wrote a
// record could open. The same rule holds every comment, doc, spec and
// script of the module, the changelog included; and every citation of a
// record by number, in those and in the records, names a record that
// exists, so that a record folded into a package doc leaves no pointer to
// nothing.
//
// It also holds the docs that map the code to the code: docs/architecture.md
// names every package and client directory; every package.Name the guides
// and the architecture cite is declared; and the make targets table of
// docs/guides/contributing.md has one row per target of the Makefile.
//
// The records are where the reasons behind the code live; a record that
// cites what a reader cannot open, or an index that has drifted from the
// files, sends the reader nowhere. How to write one is in the index.
package docscheck
