package gen

import "slices"

// A Category is who a breaking change breaks.
type Category string

// The categories of breaking changes.
const (
	Durable Category = "durable"
	Wire    Category = "wire"
	GoAPI   Category = "goapi"
)

// Categories returns every category, in the order documentation lists them.
func Categories() []Category { return []Category{Durable, Wire, GoAPI} }

// A RuleID names a kind of breaking change. IDs are stable: specs name them
// in allow_breaking, and jobgen breaking prints them.
type RuleID string

// A Rule is one kind of breaking change, with a stable ID.
type Rule struct {
	ID         RuleID
	Categories string // as documented; a finding's own categories may be fewer
	Summary    string
}

// The rule IDs. They are stable: specs name them in allow_breaking.
const (
	RuleFactDeleted             RuleID = "FACT_DELETED"
	RuleFactVersionDeleted      RuleID = "FACT_VERSION_DELETED"
	RuleFactVersionAdded        RuleID = "FACT_VERSION_ADDED"
	RuleFieldDeletedNotReserved RuleID = "FIELD_DELETED_NOT_RESERVED"
	RuleReservedNameDeleted     RuleID = "RESERVED_NAME_DELETED"
	RuleReservedNameReused      RuleID = "RESERVED_NAME_REUSED"
	RuleFieldDeleted            RuleID = "FIELD_DELETED"
	RuleFieldRenamed            RuleID = "FIELD_RENAMED"
	RuleFieldJSONNameChanged    RuleID = "FIELD_JSON_NAME_CHANGED"
	RuleFieldTypeChanged        RuleID = "FIELD_TYPE_CHANGED"
	RuleFieldMadeRequired       RuleID = "FIELD_MADE_REQUIRED"
	RuleFieldMadeOptional       RuleID = "FIELD_MADE_OPTIONAL"
	RuleFieldMadeTerminal       RuleID = "FIELD_MADE_TERMINAL"
	RuleRequiredFieldAdded      RuleID = "REQUIRED_FIELD_ADDED"
	RuleEnumValueDeleted        RuleID = "ENUM_VALUE_DELETED"
	RuleEnumValueAdded          RuleID = "ENUM_VALUE_ADDED"
	RuleIDKindChanged           RuleID = "ID_KIND_CHANGED"
	RuleVariantDeleted          RuleID = "VARIANT_DELETED"
	RuleVariantAdded            RuleID = "VARIANT_ADDED"
	RuleDiscriminatorChanged    RuleID = "DISCRIMINATOR_CHANGED"
	RuleVariantFieldMoved       RuleID = "VARIANT_FIELD_MOVED"
	RuleFaceMethodRemoved       RuleID = "FACE_METHOD_REMOVED"
	RuleFaceMethodChanged       RuleID = "FACE_METHOD_CHANGED"
	RuleFaceMethodAdded         RuleID = "FACE_METHOD_ADDED"
	RuleTypeDeleted             RuleID = "TYPE_DELETED"
	RuleAllowanceUnused         RuleID = "ALLOWANCE_UNUSED"
)

// Rules returns every rule in the order the documentation lists them.
func Rules() []Rule {
	rules := []Rule{
		{RuleFactDeleted, "durable", "a fact was deleted; its history no longer decodes"},
		{RuleFactVersionDeleted, "durable", "a live fact version was deleted instead of marked retired: true"},
		{RuleFactVersionAdded, "durable (forward)", "a fact has a newer version than the old spec reads: builds of the old spec keep it unknown (the finding names what their salvage misses)"},
		{RuleFieldDeletedNotReserved, "durable, goapi", "a fact field was deleted without listing its name under the fact's reserved:"},
		{RuleReservedNameDeleted, "durable", "a name was removed from a fact's reserved: list, so it could come back with another meaning"},
		{RuleReservedNameReused, "durable", "a field uses a name (spec or JSON) the fact had reserved"},
		{RuleFieldDeleted, "goapi; durable, wire when reached", "a field of a record or variant was deleted (or a reserved fact field: its Go field is gone)"},
		{RuleFieldRenamed, "goapi", "a field's Go name changed (its spec key, with the JSON name kept): code naming the old field no longer compiles"},
		{RuleFieldJSONNameChanged, "durable, wire", "a field's JSON name changed"},
		{RuleFieldTypeChanged, "goapi; durable, wire when old JSON does not decode", "a field's type changed: any change breaks Go code using the field; durable and wire only when old JSON does not decode into the new type (widening int32 → int64, T → *T, an enum or id → string are fine there)"},
		{RuleFieldMadeRequired, "durable, wire", "an optional field became required (lists and maps excepted: they are never missing)"},
		{RuleFieldMadeOptional, "durable, wire (forward)", "a required field became optional, so readers of the old spec refuse what leaves it out"},
		{RuleFieldMadeTerminal, "durable, wire", "a field became terminal: true, so a value that is not a terminal state no longer decodes"},
		{RuleRequiredFieldAdded, "durable, wire", "a required field was added to an existing record, variant or fact version"},
		{RuleEnumValueDeleted, "goapi; durable, wire when reached", "an enum value was deleted or renamed, and its Go constant with it"},
		{RuleEnumValueAdded, "durable, wire when reached (forward)", "an enum value was added, which readers of the old spec do not know"},
		{RuleIDKindChanged, "goapi; durable, wire for string → uuid", "an id changed kind; old string ids need not parse as UUIDs"},
		{RuleVariantDeleted, "wire, goapi", "a union variant was deleted"},
		{RuleVariantAdded, "wire; durable when reached (forward)", "a union variant was added, which readers of the old spec do not know"},
		{RuleDiscriminatorChanged, "wire", "a union's discriminator field, or a variant's tag, changed"},
		{RuleVariantFieldMoved, "wire", "a field left a variant for another variant of the union"},
		{RuleFaceMethodRemoved, "goapi", "a face lost a method (directly or through embeds)"},
		{RuleFaceMethodChanged, "goapi", "a face method's signature changed"},
		{RuleFaceMethodAdded, "goapi", "a face gained a method, which its implementations outside the package (test fakes) lack"},
		{RuleTypeDeleted, "goapi; durable, wire when reached", "a declared type (id, enum, record, union, variant, face, machine) was deleted or renamed"},
		{RuleAllowanceUnused, "always reported", "an allow_breaking entry matches no finding; delete it"},
	}
	return slices.Insert(rules, len(rules)-1, append(routeRules(), toolRules()...)...) // ALLOWANCE_UNUSED stays last
}

// knownRule reports whether id names a rule an allowance can accept.
func knownRule(id RuleID) bool {
	return id != RuleAllowanceUnused && slices.ContainsFunc(Rules(), func(r Rule) bool { return r.ID == id })
}

// RuleID is the rule an allowance names.
func (a *Allowance) RuleID() RuleID { return RuleID(a.Rule.Name) }
