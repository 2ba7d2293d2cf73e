package gen

import (
	"go/token"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// initialisms are the words Go style writes in one case ("JobID", not "JobID").
var initialisms = map[string]bool{
	"ACL": true, "API": true, "ASCII": true, "CPU": true, "CSS": true, "DNS": true,
	"EOF": true, "GUID": true, "HTML": true, "HTTP": true, "HTTPS": true, "ID": true,
	"IP": true, "JSON": true, "QPS": true, "RAM": true, "RPC": true, "SLA": true,
	"SMTP": true, "SQL": true, "SSH": true, "TCP": true, "TLS": true, "TTL": true,
	"UDP": true, "UI": true, "UID": true, "UUID": true, "URI": true, "URL": true,
	"UTF8": true, "VM": true, "XML": true, "XSRF": true, "XSS": true,
}

// GoName turns a spec name such as "jobId", "tool_call", "job/settled" or
// "in-progress" into an exported Go identifier: "JobID", "ToolCall",
// "JobSettled", "InProgress".
func GoName(s string) string {
	var b strings.Builder
	for _, w := range words(s) {
		if fixed := initialismWord(w); fixed != w || initialisms[fixed] {
			b.WriteString(fixed)
			continue
		}
		r, size := utf8.DecodeRuneInString(w)
		b.WriteRune(unicode.ToUpper(r))
		b.WriteString(w[size:])
	}
	return b.String()
}

// words splits a name at separators and at lower-to-upper case changes.
func words(s string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			out = append(out, string(cur))
			cur = cur[:0]
		}
	}
	prev := rune(0)
	for _, r := range s {
		switch {
		case r == '/' || r == '-' || r == '_' || r == '.' || r == ' ':
			flush()
		case unicode.IsUpper(r) && (unicode.IsLower(prev) || unicode.IsDigit(prev)):
			flush()
			cur = append(cur, r)
		default:
			cur = append(cur, r)
		}
		prev = r
	}
	flush()
	return out
}

// predeclared are Go's predeclared identifiers; a spec may not shadow them.
var predeclared = map[string]bool{
	"any": true, "bool": true, "byte": true, "comparable": true, "complex64": true,
	"complex128": true, "error": true, "float32": true, "float64": true, "int": true,
	"int8": true, "int16": true, "int32": true, "int64": true, "rune": true,
	"string": true, "uint": true, "uint8": true, "uint16": true, "uint32": true,
	"uint64": true, "uintptr": true, "true": true, "false": true, "iota": true,
	"nil": true, "append": true, "cap": true, "clear": true, "close": true,
	"complex": true, "copy": true, "delete": true, "imag": true, "len": true,
	"make": true, "max": true, "min": true, "new": true, "panic": true,
	"print": true, "println": true, "real": true, "recover": true,
}

// checkIdent reports why s cannot name what the spec wants it to, or "" when
// it can. exported asks for an exported identifier.
func checkIdent(s string, exported bool) string {
	switch {
	case s == "":
		return "is empty"
	case token.IsKeyword(s):
		return "is a Go keyword"
	case !token.IsIdentifier(s):
		return "is not a Go identifier"
	case predeclared[s]:
		return "would shadow Go's predeclared " + s
	case exported && !token.IsExported(s):
		return "must start with an upper-case letter (it becomes an exported Go name)"
	}
	return ""
}

// suggest returns the candidate closest to s, or "" when none is close enough
// to be a likely typo.
func suggest(s string, candidates []string) string {
	return newSuggester(candidates).suggest(s)
}

// didYouMean formats a suggestion as a message suffix.
func didYouMean(s string, candidates []string) string {
	return newSuggester(candidates).didYouMean(s)
}

// A suggester finds, for a misspelt name, the closest of a fixed set of
// candidates: the one at the smallest edit distance (ignoring case), the
// first in sorted order on a tie, and only when that distance is at most
// suggestLimit of the name. A spec with thousands of unknown names against
// thousands of declared ones must not take time quadratic in them, so the
// suggester computes each name's answer once, and walks the candidates as a
// trie of their lower-case runes, computing one row of the distance table
// per trie node: a shared prefix is computed once, and a subtree is left as
// soon as every entry of its row exceeds the best distance found so far.
// This gives exactly the answer a comparison with every candidate would. As
// a last line of defence against a candidate set crafted to defeat the
// pruning, it stops suggesting once it has filled suggestBudget table cells
// in all (a few tenths of a second).
type suggester struct {
	root   trieNode
	cache  map[string]string
	budget int
	rows   [][]int // one row per trie depth, reused
}

// A trieNode is a lower-case prefix of candidates; names are the
// candidates that are exactly this prefix, sorted.
type trieNode struct {
	r        rune
	children []*trieNode // sorted by rune
	names    []string
	// shortest and longest candidate below, in runes, for pruning
	minLen, maxLen int
}

// suggestBudget bounds the work of one suggester.
const suggestBudget = 50_000_000

func newSuggester(candidates []string) *suggester {
	sorted := slices.Clone(candidates)
	slices.Sort(sorted)
	g := &suggester{cache: map[string]string{}, budget: suggestBudget}
	g.root.minLen = -1
	for _, c := range slices.Compact(sorted) {
		lower := []rune(strings.ToLower(c))
		n := &g.root
		n.span(len(lower))
		for _, r := range lower {
			i, found := slices.BinarySearchFunc(n.children, r, func(child *trieNode, r rune) int { return int(child.r) - int(r) })
			if !found {
				n.children = slices.Insert(n.children, i, &trieNode{r: r, minLen: -1})
			}
			n = n.children[i]
			n.span(len(lower))
		}
		n.names = append(n.names, c)
	}
	return g
}

func (n *trieNode) span(length int) {
	if n.minLen < 0 || length < n.minLen {
		n.minLen = length
	}
	n.maxLen = max(n.maxLen, length)
}

// suggestLimit is the largest edit distance at which a candidate is taken
// for a typo of s.
func suggestLimit(s string) int { return max(1, min(3, len(s)/3)) }

func (g *suggester) suggest(s string) string {
	if c, ok := g.cache[s]; ok {
		return c
	}
	word := []rune(strings.ToLower(s))
	b := best{dist: suggestLimit(s)}
	g.walk(&g.root, 0, word, &b)
	if g.budget < 0 {
		b.name = ""
	}
	g.cache[s] = b.name
	return b.name
}

// best is the closest candidate so far; dist is the bound a candidate must
// meet, which is the limit until one is found.
type best struct {
	name string
	dist int
}

func (b *best) consider(d int, names []string) {
	if len(names) == 0 || d > b.dist {
		return
	}
	if b.name == "" || d < b.dist || names[0] < b.name {
		b.name, b.dist = names[0], d
	}
}

// walk fills the row of node, at the given depth, from its parent's, and
// goes on into the children that may still hold a close enough candidate.
func (g *suggester) walk(node *trieNode, depth int, word []rune, b *best) {
	if g.budget < 0 {
		return
	}
	row := g.row(depth, len(word))
	g.budget -= len(row)
	if depth == 0 {
		for j := range row {
			row[j] = j
		}
	} else {
		prev := g.rows[depth-1]
		row[0] = depth
		for j := 1; j < len(row); j++ {
			cost := 1
			if word[j-1] == node.r {
				cost = 0
			}
			row[j] = min(row[j-1]+1, prev[j]+1, prev[j-1]+cost)
		}
	}
	low := slices.Min(row)
	b.consider(row[len(word)], node.names)
	if low > b.dist {
		return
	}
	// Every candidate below is minLen to maxLen runes long, so the rest of
	// the word after j runes must be matched by depth-minLen to depth-maxLen
	// more: each rune of difference in length is one more edit.
	low = b.dist + 1
	for j, d := range row {
		rest := len(word) - j
		low = min(low, d+max(0, node.minLen-depth-rest, rest-(node.maxLen-depth)))
	}
	if low > b.dist {
		return
	}
	// The child that matches the word's next rune goes first: it finds a
	// close candidate soonest, and the tighter bound prunes its siblings.
	next := -1
	if depth < len(word) {
		if i, ok := slices.BinarySearchFunc(node.children, word[depth], func(child *trieNode, r rune) int { return int(child.r) - int(r) }); ok {
			next = i
			g.walk(node.children[i], depth+1, word, b)
		}
	}
	for i, child := range node.children {
		if i != next {
			g.walk(child, depth+1, word, b)
		}
	}
}

// row returns the reusable row for a depth, len(word)+1 long.
func (g *suggester) row(depth, n int) []int {
	for len(g.rows) <= depth {
		g.rows = append(g.rows, nil)
	}
	if cap(g.rows[depth]) < n+1 {
		g.rows[depth] = make([]int, n+1)
	}
	g.rows[depth] = g.rows[depth][:n+1]
	return g.rows[depth]
}

func (g *suggester) didYouMean(s string) string {
	if c := g.suggest(s); c != "" {
		return "; did you mean " + c + "?"
	}
	return ""
}

// editDistance is the Levenshtein distance between a and b, counted in runes.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

func itoa(i int) string { return strconv.Itoa(i) }
