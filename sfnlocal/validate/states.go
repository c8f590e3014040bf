package validate

import (
	"math/big"
	"strings"
	"time"
)

// expressResource reports a resource an Express machine cannot run: a
// callback (.waitForTaskToken) or a .sync job (".sync" or ".sync:2").
func (c *checker) expressResource(loc, resource string) {
	var suffix string
	switch {
	case strings.HasSuffix(resource, ".waitForTaskToken"):
		suffix = ".waitForTaskToken"
	case strings.HasSuffix(resource, ".sync"), strings.Contains(resource, ".sync:"):
		suffix = ".sync"
	default:
		return
	}
	c.schema(loc, "Express state machine does not support '%s' service integration", suffix)
}

// task checks a Task state.
func (c *checker) task(s *state) {
	if c.required(s.obj, s.loc, "Resource") {
		loc := child(s.loc, "Resource")
		if v := s.obj["Resource"]; c.expectType(loc, v, "STRING") {
			res := v.(string)
			if !strings.HasPrefix(res, "arn:") {
				c.schema(loc, "Value is not a valid resource ARN")
			}
			if c.express {
				c.expressResource(loc, res)
			}
		}
	}
	c.onlyOne(s.obj, child(s.loc, "TimeoutSeconds"), "TimeoutSeconds", "TimeoutSecondsPath")
	c.onlyOne(s.obj, child(s.loc, "HeartbeatSeconds"), "HeartbeatSeconds", "HeartbeatSecondsPath")
	var timeout, heartbeat *big.Rat
	if v, ok := s.obj["TimeoutSeconds"]; ok {
		timeout, _ = c.number(child(s.loc, "TimeoutSeconds"), v, intRange(1, 99999999), s.ql)
	}
	if v, ok := s.obj["HeartbeatSeconds"]; ok {
		heartbeat, _ = c.number(child(s.loc, "HeartbeatSeconds"), v, intRange(1, 99999999), s.ql)
	}
	if timeout != nil && heartbeat != nil && heartbeat.Cmp(timeout) >= 0 {
		c.schema(child(s.loc, "HeartbeatSeconds"), "The value of 'HeartbeatSeconds' must be less than the value of 'TimeoutSeconds'")
	}
	if s.ql == jsonPath {
		for _, f := range []string{"TimeoutSecondsPath", "HeartbeatSecondsPath"} {
			if v, ok := s.obj[f]; ok {
				c.path(child(s.loc, f), f, v, valuePath)
			}
		}
	}
	if v, ok := s.obj["Credentials"]; ok {
		c.credentials(child(s.loc, "Credentials"), v, s.ql)
	}
	c.retry(s)
	c.catch(s)
}

// credentials checks a Task's cross-account role.
func (c *checker) credentials(loc string, v any, ql string) {
	m, ok := v.(map[string]any)
	if !ok {
		if _, expr := jsonataExpr(v); !(expr && ql == jsonata) {
			c.expectType(loc, v, "OBJECT")
		}
		return
	}
	if !has(m, "RoleArn") && !has(m, "RoleArn.$") {
		c.schema(loc, "The field 'RoleArn' is required but was missing")
	}
	if ql == jsonPath {
		c.template(loc, m)
	}
}

// pass checks a Pass state; a path inside its static Result is a warning.
func (c *checker) pass(s *state) {
	if v, ok := s.obj["Result"]; ok && hasDynamicKey(v) {
		c.warn(CodePassResultIsStatic, child(s.loc, "Result"), "Attempt to use a path in the result of a pass state.")
	}
}

func hasDynamicKey(v any) bool {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			if strings.HasSuffix(k, ".$") || hasDynamicKey(e) {
				return true
			}
		}
	case []any:
		for _, e := range v {
			if hasDynamicKey(e) {
				return true
			}
		}
	}
	return false
}

// waitFields are the Wait state's timing fields, in AWS's order.
var waitFields = []string{"SecondsPath", "Seconds", "TimestampPath", "Timestamp"}

// wait checks a Wait state: exactly one timing field, well formed.
func (c *checker) wait(s *state) {
	if c.onlyOne(s.obj, s.loc, waitFields...) == 0 {
		c.schema(s.loc, "This object should have only one of the following fields: %s", list(waitFields))
	}
	if v, ok := s.obj["Seconds"]; ok {
		c.number(child(s.loc, "Seconds"), v, intRange(0, 99999999), s.ql)
	}
	if v, ok := s.obj["Timestamp"]; ok {
		c.timestamp(child(s.loc, "Timestamp"), v, s.ql)
	}
	if s.ql == jsonPath {
		for _, f := range []string{"SecondsPath", "TimestampPath"} {
			if v, ok := s.obj[f]; ok {
				c.path(child(s.loc, f), f, v, valuePath)
			}
		}
	}
}

// timestamp checks an RFC 3339 timestamp with an uppercase T and Z.
func (c *checker) timestamp(loc string, v any, ql string) {
	if expr, ok := jsonataExpr(v); ok && ql == jsonata {
		c.jsonataExpression(loc, expr, false)
		return
	}
	if !c.expectType(loc, v, "STRING") {
		return
	}
	if _, err := time.Parse(time.RFC3339Nano, v.(string)); err != nil {
		c.schema(loc, "String does not match RFC3339 timestamp")
	}
}

// fail checks a Fail state's error and cause.
func (c *checker) fail(s *state) {
	for _, f := range []string{"Error", "Cause"} {
		c.onlyOne(s.obj, child(s.loc, f), f, f+"Path")
		if v, ok := s.obj[f]; ok {
			loc := child(s.loc, f)
			if !c.expectType(loc, v, "STRING") {
				continue
			}
			if expr, ok := jsonataExpr(v); ok && s.ql == jsonata {
				c.jsonataExpression(loc, expr, false)
			} else if s.ql == jsonPath && strings.HasPrefix(v.(string), "$.") {
				c.warn(CodeNoPath, loc, "The value for the field '%s' looks like a path, but the field name does not end with 'Path'", f)
			}
		}
		if v, ok := s.obj[f+"Path"]; ok && s.ql == jsonPath {
			loc := child(s.loc, f+"Path")
			if str, ok := v.(string); !ok || (checkPath(str, valuePath) != nil && checkIntrinsic(str) != nil) {
				c.schema(loc, "The value for the field '%sPath' must be a valid JSONPath or a valid intrinsic function call", f)
			}
		}
	}
}
