package gen

import (
	"go/token"
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

// goName turns a spec name such as "jobId", "tool_call", "job/settled" or
// "in-progress" into an exported Go identifier: "JobID", "ToolCall",
// "JobSettled", "InProgress".
func goName(s string) string {
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
	best, bestDist := "", 0
	for _, c := range candidates {
		d := editDistance(strings.ToLower(s), strings.ToLower(c))
		if best == "" || d < bestDist || (d == bestDist && c < best) {
			best, bestDist = c, d
		}
	}
	limit := max(1, min(3, len(s)/3))
	if best == "" || bestDist > limit {
		return ""
	}
	return best
}

// didYouMean formats a suggestion as a message suffix.
func didYouMean(s string, candidates []string) string {
	if c := suggest(s, candidates); c != "" {
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
