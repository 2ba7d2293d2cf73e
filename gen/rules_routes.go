package gen

// The rules of jobgen breaking for a spec's routes (decision 0169).
const (
	RuleRouteDeleted          RuleID = "ROUTE_DELETED"
	RuleRouteMoved            RuleID = "ROUTE_MOVED"
	RuleRouteParamTypeChanged RuleID = "ROUTE_PARAM_TYPE_CHANGED"
	RuleRouteParamDeleted     RuleID = "ROUTE_PARAM_DELETED"
	RuleRouteQueryRequired    RuleID = "ROUTE_QUERY_REQUIRED"
	RuleRouteBodyChanged      RuleID = "ROUTE_BODY_CHANGED"
	RuleRouteResponseChanged  RuleID = "ROUTE_RESPONSE_CHANGED"
	RuleRouteStreamChanged    RuleID = "ROUTE_STREAM_CHANGED"
	RuleRouteAdded            RuleID = "ROUTE_ADDED"
)

// routeRules are the route rules in the order the documentation lists them.
func routeRules() []Rule {
	return []Rule{
		{RuleRouteDeleted, "wire, goapi", "a route was deleted (renamed, with the same method and path: goapi only)"},
		{RuleRouteMoved, "wire", "a route's method or path changed shape: old clients ask where nothing answers"},
		{RuleRouteParamTypeChanged, "goapi; wire when old text does not parse", "a path or query parameter's type changed"},
		{RuleRouteParamDeleted, "goapi", "a query parameter was deleted: the request's field is gone (an old client's parameter is ignored)"},
		{RuleRouteQueryRequired, "wire", "a query parameter became required, or a required one was added"},
		{RuleRouteBodyChanged, "wire, goapi", "a route's request body changed type, was added or removed, or became required"},
		{RuleRouteResponseChanged, "wire, goapi", "a route's answer changed type or kind, lost its with record, or a media answer its type or a header"},
		{RuleRouteStreamChanged, "wire, goapi", "a stream's union changed, an event was deleted or changed type, or its resume changed"},
		{RuleRouteAdded, "goapi", "a route was added: Go implementations of Server lack its method"},
	}
}
