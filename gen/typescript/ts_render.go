package typescript

import (
	"bytes"
	"regexp"
	"slices"
	"strings"
)

// This file turns what the writer wrote into the module's three files. The
// code is written once, as TypeScript in which every piece that is a type
// (an annotation, a cast, a type-only declaration) is marked with ty; the
// JavaScript is the code without those pieces, so the two cannot differ in
// anything but types (decision 0096). Comments are marked too, so that the
// names a comment mentions are not taken for names the code uses.

// The marks, bytes no generated text otherwise holds.
const (
	tyOpen, tyClose           = "\x01", "\x02"
	commentOpen, commentClose = "\x03", "\x04"
)

// ty marks s as TypeScript only.
func ty(s string) string { return tyOpen + s + tyClose }

// comment marks s as a comment.
func comment(s string) string { return commentOpen + s + commentClose }

// A tsBuffer is where the writer writes: a bytes.Buffer, which can be cut
// back to mark what was written as type-only.
type tsBuffer struct{ bytes.Buffer }

// A tsKind is one of the three files of a module.
type tsKind int

const (
	tsSource       tsKind = iota // the .ts file
	tsJS                         // the .mjs file
	tsDeclarations               // the .d.mts file
)

// importExt is the extension a file of the kind names its siblings with:
// the .ts sources import each other as .js, as tsc compiles them, and the
// JavaScript and declarations as the .mjs files that are there.
func (k tsKind) importExt() string {
	if k == tsSource {
		return ".js"
	}
	return ".mjs"
}

// typeOnly writes what fn writes as a type-only declaration: in the source
// and the declarations, not in the JavaScript.
func (w *tsWriter) typeOnly(fn func()) {
	mark := w.b.Len()
	fn()
	text := string(w.b.Bytes()[mark:])
	w.b.Truncate(mark)
	w.b.WriteString(ty(text))
	w.d.WriteString(text)
}

// A tsParam is one parameter of a generated function.
type tsParam struct {
	name, typ string
	dflt      string // its default value, "" when it has none
}

// jsonParams are the parameters of every decoder: the value and its path.
var jsonParams = []tsParam{{name: "json", typ: "unknown"}, {name: "path", typ: "string", dflt: `"$"`}}

// function writes a function, with a doc comment, whose body fn writes; an
// exported one is declared in the declarations too.
func (w *tsWriter) function(doc string, export bool, name string, params []tsParam, ret string, body func()) {
	w.line("")
	text := docText("", doc, "")
	w.b.WriteString(text)
	var code, decl []string
	for _, p := range params {
		switch {
		case p.dflt != "":
			code = append(code, p.name+" = "+p.dflt)
			decl = append(decl, p.name+"?: "+p.typ)
		default:
			code = append(code, p.name+ty(": "+p.typ))
			decl = append(decl, p.name+": "+p.typ)
		}
	}
	prefix := ""
	if export {
		prefix = "export "
		w.d.WriteString("\n" + text + "export declare function " + name + "(" + strings.Join(decl, ", ") + "): " + ret + ";\n")
	}
	w.line("%sfunction %s(%s)%s {", prefix, name, strings.Join(code, ", "), ty(": "+ret))
	body()
	w.line("}")
}

// constant writes an exported constant of type typ, or of the literal
// value's own type when typ is empty, after a blank line, and declares it.
func (w *tsWriter) constant(doc, name, typ, value string) {
	text := "\n" + docText("", doc, "")
	w.b.WriteString(text)
	if typ == "" {
		w.line("export const %s = %s;", name, value)
		w.d.WriteString(text + "export declare const " + name + " = " + value + ";\n")
		return
	}
	w.line("export const %s%s = %s;", name, ty(": "+typ), value)
	w.d.WriteString(text + "export declare const " + name + ": " + typ + ";\n")
}

// render is the file of the given kind, after its marker: the preamble, the
// imports, then the declarations.
func (w *tsWriter) render(kind tsKind) string {
	body := w.b.String()
	if kind == tsDeclarations {
		body = w.d.String()
	}
	imports := w.imports(kind, body)
	var out strings.Builder
	out.WriteString(unmark(w.preamble(), false))
	if imports != "" {
		out.WriteString("\n" + imports)
	}
	out.WriteString(unmark(body, kind == tsJS))
	if kind == tsJS {
		return collapseBlankLines(out.String())
	}
	return out.String()
}

// unmark removes the marks from text, and with types the text they mark
// as TypeScript only.
func unmark(text string, types bool) string {
	var b strings.Builder
	depth := 0
	for i := 0; i < len(text); i++ {
		switch c := text[i]; {
		case c == tyOpen[0]:
			depth++
		case c == tyClose[0]:
			depth--
		case c == commentOpen[0] || c == commentClose[0]:
		case depth > 0 && types:
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// code is text without its comments: what the module's names are looked
// for in. With types, the types are left out too.
func code(text string, types bool) string {
	var b strings.Builder
	for {
		before, rest, found := strings.Cut(text, commentOpen)
		b.WriteString(before)
		if !found {
			break
		}
		_, text, _ = strings.Cut(rest, commentClose)
	}
	return unmark(b.String(), types)
}

// collapseBlankLines leaves at most one blank line between two others, as
// the JavaScript has where a type-only declaration stood.
func collapseBlankLines(s string) string {
	for strings.Contains(s, "\n\n\n") {
		s = strings.ReplaceAll(s, "\n\n\n", "\n\n")
	}
	return strings.TrimRight(s, "\n") + "\n"
}

// runtimeValues and runtimeTypes are the names the runtime module exports,
// read from its source.
var runtimeValues, runtimeTypes = runtimeExports()

func runtimeExports() (values, types []string) {
	decl := regexp.MustCompile(`(?m)^export (?:declare )?(function|const|class|type|interface) ([A-Za-z_$][\w$]*)`)
	for _, m := range decl.FindAllStringSubmatch(runtimeSource, -1) {
		if m[1] == "type" || m[1] == "interface" {
			types = append(types, m[2])
		} else {
			values = append(values, m[2])
		}
	}
	return values, types
}

// imports are the import declarations of a file of the given kind whose
// declarations are body: the runtime names the file uses, and a namespace
// per imported spec it names. A name used only as a type is imported as a
// type, so that the JavaScript imports what it runs and nothing else
// (verbatimModuleSyntax).
func (w *tsWriter) imports(kind tsKind, body string) string {
	values, all := code(body, true), code(body, false)
	var names []string
	for _, n := range runtimeValues {
		if kind != tsDeclarations && uses(values, n) || kind == tsDeclarations && uses(all, n) {
			names = append(names, n)
		}
	}
	if kind != tsJS {
		for _, n := range runtimeTypes {
			if uses(all, n) && (kind != tsDeclarations || !slices.Contains(names, n)) {
				names = append(names, "type "+n)
			}
		}
	}
	var b strings.Builder
	if len(names) > 0 {
		if kind == tsDeclarations {
			// A declaration file imports for types alone.
			for i, n := range names {
				names[i] = strings.TrimPrefix(n, "type ")
			}
			b.WriteString("import type { " + strings.Join(names, ", ") + " } from \"" + w.runtimeSpecifier(kind) + "\";\n")
		} else {
			b.WriteString("import { " + strings.Join(names, ", ") + " } from \"" + w.runtimeSpecifier(kind) + "\";\n")
		}
	}
	for _, im := range w.spec.Imports {
		if im.Imported == nil || !w.uses[im.Alias] {
			continue
		}
		value := uses(values, im.Alias+".")
		switch {
		case kind == tsJS && !value, kind == tsDeclarations && !uses(all, im.Alias+"."):
			continue
		case kind == tsSource && value:
			b.WriteString("import * as " + im.Alias + " from \"" + w.specifier(im, kind) + "\";\n")
		case kind == tsJS:
			b.WriteString("import * as " + im.Alias + " from \"" + w.specifier(im, kind) + "\";\n")
		default:
			b.WriteString("import type * as " + im.Alias + " from \"" + w.specifier(im, kind) + "\";\n")
		}
	}
	return b.String()
}

// uses reports whether code names name (or, for "alias.", a member of the
// alias) as an identifier: not as part of a longer one, nor as a property.
func uses(code, name string) bool {
	for i := 0; ; {
		j := strings.Index(code[i:], name)
		if j < 0 {
			return false
		}
		j += i
		end := j + len(name)
		before := j == 0 || !isIdentByte(code[j-1]) && code[j-1] != '.'
		after := strings.HasSuffix(name, ".") || end == len(code) || !isIdentByte(code[end])
		if before && after {
			return true
		}
		i = j + 1
	}
}

func isIdentByte(c byte) bool {
	return c == '_' || c == '$' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
