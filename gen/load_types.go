package gen

// The loader's half of type expressions: reading the Go type written in a
// YAML scalar into the model's Type. The model (types.go) knows no YAML.

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"strings"

	"gopkg.in/yaml.v3"
)

// parseType parses the Go type expression in a YAML scalar. Positions of
// problems inside the expression point at the offending character.
func parseType(n *yaml.Node, file string, imports func(alias string) (string, bool), errs *ErrorList) *Type {
	src := n.Value
	base := nodePos(file, n)
	if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0 {
		base.Col++ // skip the opening quote
	}
	at := func(p token.Pos) Pos {
		q := base
		if p.IsValid() {
			q.Col += int(p) - 1
		}
		return q
	}
	if strings.TrimSpace(src) == "" {
		errs.Add(base, "empty type")
		return nil
	}
	fset := token.NewFileSet()
	expr, err := parser.ParseExprFrom(fset, "", src, 0)
	if err != nil {
		pos, msg := base, err.Error()
		var list scanner.ErrorList
		if errors.As(err, &list) && len(list) > 0 {
			msg = list[0].Msg
			if list[0].Pos.Column > 0 {
				pos.Col += list[0].Pos.Column - 1
			}
		}
		errs.Add(pos, "type %q is not a Go type expression: %s", src, msg)
		return nil
	}
	c := typeConverter{at: at, imports: imports, errs: errs, src: src}
	return c.convert(expr)
}

// A typeConverter turns one parsed expression into a Type, reporting what a
// spec may not say at the position of the offending part.
type typeConverter struct {
	at      func(token.Pos) Pos
	imports func(alias string) (string, bool)
	errs    *ErrorList
	src     string
}

// convert returns the Type e spells, or nil after reporting why it cannot.
func (c *typeConverter) convert(e ast.Expr) *Type {
	pos := c.at(e.Pos())
	switch e := e.(type) {
	case *ast.Ident:
		if builtin(e.Name) {
			return &Type{Kind: TypeBuiltin, Name: e.Name, Pos: pos}
		}
		return &Type{Kind: TypeNamed, Name: e.Name, Pos: pos}
	case *ast.ParenExpr:
		return c.convert(e.X)
	case *ast.SelectorExpr:
		pkg, ok := e.X.(*ast.Ident)
		if !ok {
			c.errs.Add(pos, "type %q: %s is not a package-qualified name", c.src, exprText(c.src, e))
			return nil
		}
		path, ok := c.imports(pkg.Name)
		if !ok {
			c.errs.Add(pos, "type %q: unknown package %s; declare it under imports", c.src, pkg.Name)
			return nil
		}
		return &Type{Kind: TypeQualified, Name: e.Sel.Name, Alias: pkg.Name, Pkg: path, Pos: pos}
	case *ast.ArrayType:
		if e.Len != nil {
			c.errs.Add(pos, "type %q: arrays are not supported; use a slice", c.src)
			return nil
		}
		elem := c.convert(e.Elt)
		if elem == nil {
			return nil
		}
		return &Type{Kind: TypeSlice, Elem: elem, Pos: pos}
	case *ast.MapType:
		key, elem := c.convert(e.Key), c.convert(e.Value)
		if key == nil || elem == nil {
			return nil
		}
		return &Type{Kind: TypeMap, Key: key, Elem: elem, Pos: pos}
	case *ast.StarExpr:
		elem := c.convert(e.X)
		if elem == nil {
			return nil
		}
		return &Type{Kind: TypePointer, Elem: elem, Pos: pos}
	case *ast.ChanType:
		elem := c.convert(e.Value)
		if elem == nil {
			return nil
		}
		return &Type{Kind: TypeChan, Dir: e.Dir, Elem: elem, Pos: pos}
	case *ast.FuncType:
		t := &Type{Kind: TypeFunc, Pos: pos}
		ok := true
		t.Params, t.Variadic, ok = c.fields(e.Params, true)
		if e.Results != nil {
			var ok2 bool
			t.Results, _, ok2 = c.fields(e.Results, false)
			ok = ok && ok2
		}
		if !ok {
			return nil
		}
		return t
	}
	c.errs.Add(pos, "type %q: %s is not supported in a spec", c.src, exprText(c.src, e))
	return nil
}

// fields converts a parameter or result list; it reports whether the last
// parameter was variadic and whether every entry converted.
func (c *typeConverter) fields(list *ast.FieldList, allowVariadic bool) ([]*Param, bool, bool) {
	if list == nil {
		return nil, false, true
	}
	var out []*Param
	variadic, ok := false, true
	for i, f := range list.List {
		typ := f.Type
		if el, isEllipsis := typ.(*ast.Ellipsis); isEllipsis {
			if !allowVariadic || i != len(list.List)-1 {
				c.errs.Add(c.at(el.Pos()), "type %q: ... is allowed only on the last parameter", c.src)
				ok = false
				continue
			}
			variadic = true
			typ = el.Elt
		}
		t := c.convert(typ)
		if t == nil {
			ok = false
			continue
		}
		if len(f.Names) == 0 {
			out = append(out, &Param{Type: t})
		}
		for _, n := range f.Names {
			out = append(out, &Param{Name: n.Name, Type: t})
		}
	}
	return out, variadic, ok
}

// exprText is the source text of e, for messages.
func exprText(src string, e ast.Expr) string {
	start, end := int(e.Pos())-1, int(e.End())-1
	if start < 0 || end > len(src) || start >= end {
		return "this expression"
	}
	return src[start:end]
}
