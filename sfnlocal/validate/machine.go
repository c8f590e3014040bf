package validate

import "unicode/utf8"

// maxStateNameLength is the longest state name Step Functions accepts.
const maxStateNameLength = 80

// scope is one States object: the machine itself, a Parallel branch or a
// Map processor. Transitions may not leave it.
type scope struct {
	loc      string // "" for the machine, e.g. "/States/M/ItemProcessor" nested
	states   map[string]any
	startAt  string
	edges    map[string][]string
	targets  []target
	terminal bool // some state ends the scope (End, Succeed or Fail)
	untyped  bool // some state has no valid Type, so ends are unknown
}

// target is a state name a transition names, and where it is named.
type target struct{ name, loc string }

// state is one state being checked.
type state struct {
	scope *scope
	name  string
	loc   string
	obj   map[string]any
	typ   string
	ql    string // effective query language
}

// topMachine checks the definition's top level and everything under it.
func (c *checker) topMachine(root map[string]any) {
	c.topQL = jsonPath
	if q, ok := root["QueryLanguage"]; ok && q != jsonPath {
		c.topQL = jsonata // only the exact string selects JSONPath (measured)
	}
	c.required(root, "", "States", "StartAt")
	c.unsupported(root, "/", topFields)
	if q, ok := root["QueryLanguage"]; ok {
		c.enum("/QueryLanguage", q, jsonPath, jsonata)
	}
	if v, ok := root["Comment"]; ok {
		c.expectType("/Comment", v, "STRING")
	}
	if v, ok := root["Version"]; ok {
		c.enum("/Version", v, "1.0")
	}
	if v, ok := root["TimeoutSeconds"]; ok {
		c.number("/TimeoutSeconds", v, intRange(0, 99999999), jsonPath)
	}
	c.machineBody(root, "", true)
}

// nestedMachine checks a Parallel branch or a Map processor; neither is a
// state, so neither may carry a QueryLanguage.
func (c *checker) nestedMachine(v any, loc string, processor bool) {
	m, ok := v.(map[string]any)
	if !ok {
		c.expectType(loc, v, "OBJECT")
		return
	}
	c.required(m, loc, "States", "StartAt")
	allowed := set("Comment", "StartAt", "States")
	if processor {
		allowed["ProcessorConfig"] = true
	}
	c.unsupported(m, loc, allowed)
	if v, ok := m["Comment"]; ok {
		c.expectType(child(loc, "Comment"), v, "STRING")
	}
	c.machineBody(m, loc, false)
}

// machineBody checks StartAt, every state, then the transitions.
func (c *checker) machineBody(m map[string]any, loc string, top bool) {
	sc := &scope{loc: loc, edges: map[string][]string{}}
	hasStart := false
	if v, ok := m["StartAt"]; ok && c.expectType(child(loc, "StartAt"), v, "STRING") {
		sc.startAt, hasStart = v.(string), true
		sc.targets = append(sc.targets, target{sc.startAt, child(loc, "StartAt")})
	}
	v, ok := m["States"]
	if !ok {
		return
	}
	states, ok := v.(map[string]any)
	if !ok {
		c.expectType(child(loc, "States"), v, "OBJECT")
		return
	}
	sc.states = states
	for _, name := range sortedKeys(states) {
		c.state(sc, name, states[name])
	}
	if hasStart {
		c.transitions(sc, top)
	}
}

// state checks one state: its name, type, query language and fields.
func (c *checker) state(sc *scope, name string, v any) {
	loc := child(child(sc.loc, "States"), name)
	c.stateName(loc, name)
	obj, ok := v.(map[string]any)
	if !ok {
		c.expectType(loc, v, "OBJECT")
		sc.untyped = true
		return
	}
	if !c.required(obj, loc, "Type") {
		sc.untyped = true
		return
	}
	typ, _ := obj["Type"].(string)
	if stateFields[typ] == nil {
		c.schema(child(loc, "Type"), "The field 'Type' should have one of these values: %s", list(stateTypes))
		sc.untyped = true
		return
	}
	s := &state{scope: sc, name: name, loc: loc, obj: obj, typ: typ}
	downgraded := c.stateLanguage(s)
	c.unsupported(obj, loc, commonFields, stateFields[typ])
	if !downgraded {
		c.languageFields(obj, loc, s.ql, stateFields[typ])
	}
	if q, ok := obj["QueryLanguage"]; ok {
		c.enum(child(loc, "QueryLanguage"), q, jsonPath, jsonata)
	}
	if v, ok := obj["Comment"]; ok {
		c.expectType(child(loc, "Comment"), v, "STRING")
	}
	c.dataFields(s)
	switch typ {
	case "Task":
		c.task(s)
	case "Pass":
		c.pass(s)
	case "Wait":
		c.wait(s)
	case "Choice":
		c.choice(s)
	case "Succeed":
		sc.terminal = true
	case "Fail":
		c.fail(s)
		sc.terminal = true
	case "Parallel":
		c.parallel(s)
	case "Map":
		c.mapState(s)
	}
	if typ != "Choice" && typ != "Succeed" && typ != "Fail" {
		c.nextOrEnd(s)
	}
}

// stateLanguage resolves a state's query language: JSONPath only for the
// exact string "JSONPath", the machine's when absent, JSONata otherwise. It
// reports a JSONPath state under a JSONata machine, which AWS refuses.
func (c *checker) stateLanguage(s *state) (downgraded bool) {
	q, ok := s.obj["QueryLanguage"]
	switch {
	case !ok:
		s.ql = c.topQL
	case q == jsonPath:
		s.ql = jsonPath
		if c.topQL == jsonata {
			c.schema(s.loc, "'QueryLanguage' can not be 'JSONPath' if set to 'JSONata' for whole state machine")
			return true
		}
	default:
		s.ql = jsonata
	}
	return false
}

// stateName checks a state name's length and uniqueness in the machine.
func (c *checker) stateName(loc, name string) {
	switch {
	case name == "":
		c.add(SeverityError, CodeInvalidStateName, loc, "State name cannot be empty")
	case utf8.RuneCountInString(name) > maxStateNameLength:
		c.add(SeverityError, CodeInvalidStateName, loc, "State name exceeds the maximum length of %d characters", maxStateNameLength)
	}
	if c.names[name] {
		c.add(SeverityError, CodeDuplicateStateName, loc, "Duplicate State name: %s", name)
	}
	c.names[name] = true
}

// nextOrEnd checks that a state either transitions or ends, not both.
func (c *checker) nextOrEnd(s *state) {
	next, hasNext := s.obj["Next"]
	end, hasEnd := s.obj["End"]
	if hasEnd && !c.expectType(child(s.loc, "End"), end, "BOOLEAN") {
		return
	}
	switch {
	case hasNext && hasEnd:
		c.schema(s.loc, "There should only be one of the following fields: [Next, End]")
	case !hasNext && end != true:
		c.schema(s.loc, "This object should have only one of the following fields: [Next, End]")
	}
	if hasNext {
		c.transition(s, child(s.loc, "Next"), next)
	}
	if end == true {
		s.scope.terminal = true
	}
}

// transition records an edge to the state named by v, found at loc.
func (c *checker) transition(s *state, loc string, v any) {
	name, ok := v.(string)
	if !c.expectType(loc, v, "STRING") || !ok {
		return
	}
	s.scope.edges[s.name] = append(s.scope.edges[s.name], name)
	s.scope.targets = append(s.scope.targets, target{name, loc})
}
