package gen

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// This file holds what keeps hostile input from costing more than its size:
// a cap on the spec's size, a check that it is text, a budget for what its
// YAML aliases may expand to, and positions for YAML syntax errors.

// DefaultMaxSpecSize is the largest spec ReadSpec accepts unless told
// otherwise (jobgen's --max-spec-size): 1 MiB, some forty times the shipped
// spec and room for about 4,000 facts. Below it, the time and memory jobgen
// needs are linear in the spec's size.
const DefaultMaxSpecSize = 1 << 20

// ErrTooLarge is returned by ReadSpec for a spec over its size limit.
var ErrTooLarge = errors.New("spec is larger than the size limit")

// ReadSpec reads a spec file of at most limit bytes. It refuses anything
// that is not a regular file (a FIFO would block) and a file over the
// limit, before reading it, with an error wrapping ErrTooLarge.
func ReadSpec(name string, limit int64) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", name)
	}
	if info.Size() > limit {
		return nil, fmt.Errorf("%s: %w: %d bytes, over the limit of %d; raise it with --max-spec-size if the spec is meant to be this large", name, ErrTooLarge, info.Size(), limit)
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: %w: it grew past %d bytes while being read", name, ErrTooLarge, limit)
	}
	return data, nil
}

// checkText reports the first byte of data that cannot be in a YAML spec:
// invalid UTF-8, NUL, or a control character YAML does not allow, at its
// line and column (in runes, as YAML counts them).
func checkText(file string, data []byte) ErrorList {
	line, col := 1, 1
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		var problem string
		switch {
		case r == utf8.RuneError && size <= 1:
			problem = fmt.Sprintf("invalid UTF-8 (byte 0x%02x); a spec must be UTF-8 text", data[i])
		case r == 0:
			problem = "NUL byte; a spec must be text"
		case r == '\n':
			line, col = line+1, 1
			i += size
			continue
		case (r < ' ' && r != '\t' && r != '\r') || r == 0x7f || (r >= 0x80 && r < 0xa0 && r != 0x85) || r == 0xfffe || r == 0xffff:
			problem = fmt.Sprintf("control character %U is not allowed in YAML; write it as an escape in a double-quoted string", r)
		}
		if problem != "" {
			var errs ErrorList
			errs.Add(Pos{File: file, Line: line, Col: col}, "%s", problem)
			return errs
		}
		i += size
		col++
	}
	return nil
}

// minAliasBudget is the expansion every spec's aliases may have, however
// short the spec; a longer spec's aliases may add as many nodes as it
// writes out.
const minAliasBudget = 10_000

// checkAliases bounds what the document's aliases expand to, as the YAML
// libraries of other ecosystems do: a few kilobytes of nested aliases can
// otherwise stand for gigabytes of spec. Each alias adds the nodes of what
// it names (with the aliases inside that, expanded); all aliases together
// may add at most max(minAliasBudget, the document's own node count). The
// error is at the alias that crosses the budget, or at an alias naming a
// node that contains it.
func checkAliases(file string, root *yaml.Node) ErrorList {
	literal := 0
	var count func(n *yaml.Node)
	count = func(n *yaml.Node) {
		literal++
		for _, c := range n.Content {
			count(c)
		}
	}
	count(root)
	budget := max(minAliasBudget, literal)
	limit := budget + literal + 1 // sizes saturate here, so nothing overflows
	const active = -1
	size := map[*yaml.Node]int{}
	var errs ErrorList
	var expand func(n *yaml.Node) int
	expand = func(n *yaml.Node) int {
		if n.Kind == yaml.AliasNode {
			if n.Alias == nil {
				return 1
			}
			if size[n.Alias] == active {
				if len(errs) == 0 {
					errs.Add(nodePos(file, n), "YAML alias *%s names a node that contains it, which would never end; write the repeated part out", n.Value)
				}
				return limit
			}
			return expand(n.Alias)
		}
		if s, ok := size[n]; ok && s != active {
			return s
		}
		size[n] = active
		s := 1
		for _, c := range n.Content {
			s = min(limit, s+expand(c))
		}
		size[n] = s
		return s
	}
	expand(root)
	if len(errs) > 0 {
		return errs
	}
	// Walk the document as written, adding what each alias expands to.
	added := 0
	var walk func(n *yaml.Node) bool
	walk = func(n *yaml.Node) bool {
		if n.Kind == yaml.AliasNode {
			if n.Alias != nil {
				added += size[n.Alias] - 1
			}
			if added > budget {
				errs.Add(nodePos(file, n), "YAML alias *%s takes the spec's aliases past their budget of %d nodes (the spec's own size, or %d); write the repeated part out, or nest fewer aliases", n.Value, budget, minAliasBudget)
				return false
			}
			return true
		}
		for _, c := range n.Content {
			if !walk(c) {
				return false
			}
		}
		return true
	}
	walk(root)
	return errs
}

var yamlProblem = regexp.MustCompile(`^yaml: (?:line (\d+): )?(.*)$`)

// maxLocateParses bounds the parses syntaxPos may spend on one error.
const maxLocateParses = 24

// syntaxPos finds where a YAML syntax error is. yaml.v3 reports the line
// where the construct around the error began, counted from 0 (so one line
// early), or for some errors no line at all, and never a column. The
// parser stops at the first token it cannot take, so the smallest prefix
// of the document that fails with the same message ends at that token; we
// find it by galloping over lines from the reported one and bisecting
// within a line, which costs a few parses of the document. An error about
// an unclosed [ or { is placed at the bracket, the construct left open,
// found without parsing again. It returns line and column from 1. The
// gallop, the bisection and the bracket case share their parse state, which
// is why they stay in one function.
func syntaxPos(data []byte, msg string, reported int) (line, col int) {
	lineStarts := []int{0}
	for i, b := range data {
		if b == '\n' {
			lineStarts = append(lineStarts, i+1)
		}
	}
	flow := strings.Contains(msg, "did not find expected ',' or ']'") || strings.Contains(msg, "did not find expected ',' or '}'")
	if flow {
		// The construct left open: yaml.v3's line is where it began, so
		// take the innermost bracket still open at the end that is on it.
		open := unclosedFlow(data)
		for i := len(open) - 1; i >= 0; i-- {
			if l, c := offsetPos(data, lineStarts, open[i]); l == reported+1 {
				return l, c
			}
		}
		if len(open) > 0 {
			return offsetPos(data, lineStarts, open[len(open)-1])
		}
	}
	parses := 0
	fails := func(k int) bool {
		parses++
		return yamlErrorText(data[:k]) == msg
	}
	lineEnd := func(l int) int { // exclusive end of 0-based line l, with its newline
		if l+1 < len(lineStarts) {
			return lineStarts[l+1]
		}
		return len(data)
	}
	// Lines are 0-based here. A scanner error's line is the reported one; a
	// parser error's is after it, since yaml.v3 counts those from 0.
	lo := max(0, reported-1)
	if strings.HasPrefix(msg, "did not find expected key") || strings.HasPrefix(msg, "did not find expected node content") || strings.HasPrefix(msg, "did not find expected '-' indicator") {
		lo = reported
	}
	if lo >= len(lineStarts) {
		lo = len(lineStarts) - 1
	}
	// Gallop: find a line whose end makes the prefix fail.
	good, bad := lo-1, -1
	for step := 1; ; step *= 2 {
		l := min(lo+step-1, len(lineStarts)-1)
		if parses >= maxLocateParses {
			return lo + 1, 1
		}
		if fails(lineEnd(l)) {
			bad = l
			break
		}
		good = l
		if l == len(lineStarts)-1 {
			return lo + 1, 1 // no prefix fails alike: keep the line yaml.v3 gave, made 1-based
		}
	}
	for bad-good > 1 && parses < maxLocateParses {
		mid := (good + bad) / 2
		if fails(lineEnd(mid)) {
			bad = mid
		} else {
			good = mid
		}
	}
	// Within line bad: the smallest failing prefix length in (start, end].
	// Most often it ends at the line's first token, so try that first.
	lo2, hi2 := lineStarts[bad], lineEnd(bad)
	first := lo2
	for first < hi2-1 && (data[first] == ' ' || data[first] == '\t') {
		first++
	}
	if first+1 < hi2 {
		if fails(first + 1) {
			hi2 = first + 1
		} else {
			lo2 = first + 1
		}
	}
	for hi2-lo2 > 1 && parses < maxLocateParses {
		mid := (lo2 + hi2) / 2
		if fails(mid) {
			hi2 = mid
		} else {
			lo2 = mid
		}
	}
	at := max(lineStarts[bad], hi2-1)
	if at >= len(data) { // the error is at the end, after a last newline
		return offsetPos(data, lineStarts, len(data))
	}
	for at > lineStarts[bad] && !utf8.RuneStart(data[at]) {
		at--
	}
	if data[at] == '\n' && at > lineStarts[bad] {
		at-- // the token is what ended the line, not the newline
	}
	return offsetPos(data, lineStarts, at)
}

// offsetPos is the 1-based line and rune column of a byte offset.
func offsetPos(data []byte, lineStarts []int, at int) (int, int) {
	l := 0
	for l+1 < len(lineStarts) && lineStarts[l+1] <= at {
		l++
	}
	return l + 1, utf8.RuneCount(data[lineStarts[l]:at]) + 1
}

// unclosedFlow returns the offsets of the [ and { left open at the end of
// data, outermost first. It skips quoted scalars and comments, and takes a
// bracket as an opener only where a YAML token may start.
func unclosedFlow(data []byte) []int {
	var stack []int
	for i := 0; i < len(data); i++ {
		c := data[i]
		prev := byte('\n')
		if i > 0 {
			prev = data[i-1]
		}
		tokenStart := prev == ' ' || prev == '\t' || prev == '\n' || prev == '[' || prev == '{' || prev == ','
		switch {
		case c == '#' && (prev == ' ' || prev == '\t' || prev == '\n'):
			for i < len(data) && data[i] != '\n' {
				i++
			}
		case (c == '"' || c == '\'') && (tokenStart || prev == ':'):
			for i++; i < len(data) && data[i] != c; i++ {
				if c == '"' && data[i] == '\\' {
					i++
				}
			}
		case (c == '[' || c == '{') && (tokenStart || prev == ':'):
			stack = append(stack, i)
		case (c == ']' || c == '}') && len(stack) > 0:
			stack = stack[:len(stack)-1]
		}
	}
	return stack
}

// yamlErrorText is the problem yaml.v3 reports for data, without its line,
// or "" when data parses (as one document and nothing after it).
func yamlErrorText(data []byte) string {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var n yaml.Node
	err := dec.Decode(&n)
	if err == nil {
		err = dec.Decode(&n)
	}
	if err == nil || errors.Is(err, io.EOF) {
		return ""
	}
	m := yamlProblem.FindStringSubmatch(strings.TrimSpace(err.Error()))
	if m == nil {
		return err.Error()
	}
	return m[2]
}
