// Package codeshape holds the project's rules for the shape of its own
// hand-written code, checked by its test: no file over 600 lines, and no
// function over 80 lines unless its doc comment says, in a sentence with
// the words "long because", why it reads better as one piece.
//
// The limits are where a reader stops being able to hold a file or a
// function in view. Generated files, tests and testdata are
// outside the rules: the generator's output is shaped by the spec, and a
// test's length is the length of the promise it states.
package codeshape
