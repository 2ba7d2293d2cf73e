package doctext

import (
	"strings"

	"github.com/jobgen/jobgen/gen"
)

// Lines renders documentation as // comment lines. Paragraphs are
// refilled to 80 columns; lines that start with a space, a tab or "- " are kept
// as written, so lists and indented examples survive. An empty doc falls back
// to the given sentence so no exported name is left bare.
func Lines(doc, fallback string) string {
	if strings.TrimSpace(doc) == "" {
		doc = fallback
	}
	var out []string
	var para []string
	flush := func() {
		if len(para) > 0 {
			out = append(out, Wrap(strings.Join(para, " "), 77)...)
			para = nil
		}
	}
	for _, line := range strings.Split(strings.TrimSpace(doc), "\n") {
		line = strings.TrimRight(line, " \t")
		switch {
		case line == "":
			flush()
			out = append(out, "")
		case strings.HasPrefix(line, " ") || strings.HasPrefix(line, "\t") || strings.HasPrefix(line, "- "):
			flush()
			out = append(out, line)
		default:
			para = append(para, line)
		}
	}
	flush()
	for i, l := range out {
		if l == "" {
			out[i] = "//"
		} else {
			out[i] = "// " + l
		}
	}
	return strings.Join(out, "\n")
}

func Wrap(line string, width int) []string {
	var out []string
	cur := ""
	for _, w := range strings.Fields(line) {
		if cur != "" && len(cur)+1+len(w) > width {
			out = append(out, cur)
			cur = w
			continue
		}
		if cur != "" {
			cur += " "
		}
		cur += w
	}
	return append(out, cur)
}

// Article returns "a" or "an" for the word that follows it.
func Article(word string) string {
	if word != "" && strings.ContainsRune("AEIOUaeiou", rune(word[0])) {
		return "an"
	}
	return "a"
}

// Named rewrites a doc that opens with the spec's name for a thing so that it
// opens with the Go identifier instead, as Go doc comments do.
func Named(doc, specName, goIdent string) string {
	first, rest, _ := strings.Cut(doc, " ")
	if first == "A" || first == "An" || first == "The" {
		return first + " " + Named(rest, specName, goIdent)
	}
	if first != goIdent && (strings.EqualFold(first, specName) || strings.EqualFold(first, gen.GoName(specName))) {
		return goIdent + " " + rest
	}
	return doc
}

// Possessive is name followed by 's, or by ' alone when name ends in s:
// "wire's", "tools'".
func Possessive(name string) string {
	if strings.HasSuffix(name, "s") {
		return name + "'"
	}
	return name + "'s"
}
