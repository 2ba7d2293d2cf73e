// Package doctext holds the doc sentences more than one backend writes:
// paragraphs refilled to comment lines, an article for a name, and a spec
// doc reworded to open with the generated identifier. It knows no target's
// syntax beyond the line comment.
package doctext
