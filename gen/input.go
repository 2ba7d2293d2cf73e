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
	literal := countNodes(root)
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

// countNodes is the number of nodes in the tree at n as written, each alias
// one node.
func countNodes(n *yaml.Node) int {
	count := 1
	for _, c := range n.Content {
		count += countNodes(c)
	}
	return count
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
// found without parsing again. It returns line and column from 1.
func syntaxPos(data []byte, msg string, reported int) (line, col int) {
	p := &prefixSearch{data: data, msg: msg, lineStarts: []int{0}}
	for i, b := range data {
		if b == '\n' {
			p.lineStarts = append(p.lineStarts, i+1)
		}
	}
	if strings.Contains(msg, "did not find expected ',' or ']'") || strings.Contains(msg, "did not find expected ',' or '}'") {
		if l, c, ok := p.openBracket(reported); ok {
			return l, c
		}
	}
	lo := p.firstLine(reported)
	bad, ok := p.failingLine(lo)
	if !ok {
		return lo + 1, 1 // no prefix fails alike, or the search ran out: keep the line yaml.v3 gave, made 1-based
	}
	return offsetPos(data, p.lineStarts, p.failingOffset(bad))
}

// A prefixSearch looks for the shortest prefix of data on which yaml.v3
// fails with msg, counting the parses it spends against maxLocateParses.
// Lines are 0-based here.
type prefixSearch struct {
	data       []byte
	msg        string
	lineStarts []int // the offset where each line starts
	parses     int
}

// fails reports whether the first k bytes fail to parse with the message.
func (p *prefixSearch) fails(k int) bool {
	p.parses++
	return yamlErrorText(p.data[:k]) == p.msg
}

// lineEnd is the exclusive end of line l, with its newline.
func (p *prefixSearch) lineEnd(l int) int {
	if l+1 < len(p.lineStarts) {
		return p.lineStarts[l+1]
	}
	return len(p.data)
}

// openBracket places an error about an unclosed [ or { at the construct
// left open: yaml.v3's line is where it began, so it takes the innermost
// bracket still open at the end that is on that line, else the innermost.
func (p *prefixSearch) openBracket(reported int) (line, col int, ok bool) {
	open := unclosedFlow(p.data)
	for i := len(open) - 1; i >= 0; i-- {
		if l, c := offsetPos(p.data, p.lineStarts, open[i]); l == reported+1 {
			return l, c, true
		}
	}
	if len(open) == 0 {
		return 0, 0, false
	}
	l, c := offsetPos(p.data, p.lineStarts, open[len(open)-1])
	return l, c, true
}

// firstLine is the first line the error can be on. A scanner error's line
// is the reported one; a parser error's is after it, since yaml.v3 counts
// those from 0.
func (p *prefixSearch) firstLine(reported int) int {
	lo := max(0, reported-1)
	if strings.HasPrefix(p.msg, "did not find expected key") || strings.HasPrefix(p.msg, "did not find expected node content") || strings.HasPrefix(p.msg, "did not find expected '-' indicator") {
		lo = reported
	}
	return min(lo, len(p.lineStarts)-1)
}

// failingLine is the first line from lo whose end makes the prefix fail,
// found by galloping forward and then bisecting; ok is false when no
// prefix fails alike or the parses ran out before one did.
func (p *prefixSearch) failingLine(lo int) (bad int, ok bool) {
	last := len(p.lineStarts) - 1
	good := lo - 1
	for step := 1; ; step *= 2 {
		l := min(lo+step-1, last)
		if p.parses >= maxLocateParses {
			return 0, false
		}
		if p.fails(p.lineEnd(l)) {
			bad = l
			break
		}
		good = l
		if l == last {
			return 0, false
		}
	}
	for bad-good > 1 && p.parses < maxLocateParses {
		mid := (good + bad) / 2
		if p.fails(p.lineEnd(mid)) {
			bad = mid
		} else {
			good = mid
		}
	}
	return bad, true
}

// failingOffset is the offset of the token on line bad where the prefix
// starts to fail: the smallest failing prefix length in (start, end] of
// the line, less one, bisected. Most often it ends at the line's first
// token, so that is tried first.
func (p *prefixSearch) failingOffset(bad int) int {
	data, start := p.data, p.lineStarts[bad]
	lo, hi := start, p.lineEnd(bad)
	first := lo
	for first < hi-1 && (data[first] == ' ' || data[first] == '\t') {
		first++
	}
	if first+1 < hi {
		if p.fails(first + 1) {
			hi = first + 1
		} else {
			lo = first + 1
		}
	}
	for hi-lo > 1 && p.parses < maxLocateParses {
		mid := (lo + hi) / 2
		if p.fails(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	at := max(start, hi-1)
	if at >= len(data) { // the error is at the end, after a last newline
		return len(data)
	}
	for at > start && !utf8.RuneStart(data[at]) {
		at--
	}
	if data[at] == '\n' && at > start {
		at-- // the token is what ended the line, not the newline
	}
	return at
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
