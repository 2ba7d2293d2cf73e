package gentest

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// A BoundDocument is a JSON document of a type of the front end's
// tools-table case (package waiter), whose fields are bounded (decision
// 0208), and whether Go's generated decoder takes it. Type is the record's
// name, or FactEnvelope for a fact; JSON is the document itself, so it
// travels to another language's decoder unchanged.
type BoundDocument struct {
	Type string          `json:"type"`
	Doc  json.RawMessage `json:"doc"`
	OK   bool            `json:"ok"`
}

// BoundDocuments is the table every backend's decoders are held to: each
// bound at its value and one past it, a bound in a nested record of
// another spec and in a fact, and strings counted in code points as Go
// counts runes (an astral character is one, a combining accent one more, a
// lone surrogate escape one U+FFFD), which neither UTF-16 units nor bytes
// count alike.
func BoundDocuments() []BoundDocument {
	order := func(guests int, name string, price string) string {
		return fmt.Sprintf(`{"id":%q,"dish":{"name":%s,"spice":"mild","price":%s},"course":"main","guests":%d}`, orderID, name, price, guests)
	}
	cooked := func(minutes int, note string) string {
		return fmt.Sprintf(`{"type":"order/cooked","v":1,"data":{"id":%q,"minutes":%d,"note":%s}}`, orderID, minutes, note)
	}
	var out []BoundDocument
	add := func(typ, doc string, ok bool) {
		out = append(out, BoundDocument{typ, json.RawMessage(doc), ok})
	}
	number := func(typ, field string, n int, ok bool) {
		add(typ, fmt.Sprintf(`{"id":%q,%q:%d}`, orderID, field, n), ok)
	}
	number("ListOrders", "limit", 100, true)
	number("ListOrders", "limit", 101, false)
	number("CookOrder", "within", 2700, true)
	number("CookOrder", "within", 2701, false)
	number("CookOrder", "plateBytes", -1, true)
	number("CookOrder", "plateBytes", -2, false)
	number("CookOrder", "plateBytes", 2048, true)
	number("CookOrder", "plateBytes", 2049, false)
	add("Order", order(1, `"soup"`, "0"), true)
	add("Order", order(12, `"soup"`, "9.5"), true)
	add("Order", order(0, `"soup"`, "1"), false)
	add("Order", order(13, `"soup"`, "1"), false)
	add("Order", order(2, `"soup"`, "-0.5"), false)
	add("FactEnvelope", cooked(45, `""`), true)
	add("FactEnvelope", cooked(46, `""`), false)
	for _, s := range []string{
		strings.Repeat("a", 16), strings.Repeat("a", 17),
		strings.Repeat("😀", 16), strings.Repeat("😀", 17),
		strings.Repeat("e\u0301", 8), strings.Repeat("e\u0301", 9),
		strings.Repeat(`\ud800`, 16), strings.Repeat(`\ud800`, 17),
	} {
		text := `"` + s + `"`
		add("ListOrders", `{"table":`+text+`}`, runes(text) <= 16)
		add("FactEnvelope", cooked(1, `"`+strings.Repeat(s, 5)+`"`), runes(`"`+strings.Repeat(s, 5)+`"`) <= 80)
		add("Order", order(2, `"`+strings.Repeat(s, 2)+`"`, "1"), runes(`"`+strings.Repeat(s, 2)+`"`) <= 40)
	}
	return out
}

// orderID is the order every document names.
const orderID = "6ba7b810-9dad-11d1-80b4-00c04fd430c8"

// runes is how many runes Go decodes the JSON string text into.
func runes(text string) int {
	var s string
	if err := json.Unmarshal([]byte(text), &s); err != nil {
		panic(err)
	}
	return utf8.RuneCountInString(s)
}
