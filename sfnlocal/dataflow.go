package sfnlocal

import (
	"errors"
	"fmt"
	"strings"

	"go.uber.org/zap"

	"github.com/sfnapprovals/approvals/jsonata/jsonvalue"
	"github.com/sfnapprovals/approvals/sfnlocal/intrinsics"
	"github.com/sfnapprovals/approvals/sfnlocal/jsonata"
	"github.com/sfnapprovals/approvals/sfnlocal/jsonpath"
)

// resolver resolves JSONPath paths of the current state: "$" against input,
// "$$" against the context object, "$name" against variables.
func (t *thread) resolver(input any) func(string) (any, error) {
	return func(path string) (any, error) {
		var ctx any
		if strings.HasPrefix(path, "$$") {
			ctx = t.contextObject()
		}
		return jsonpath.Resolve(path, input, ctx, t.vars)
	}
}

// template expands a JSONPath payload template (Parameters, ResultSelector,
// ItemSelector, Assign) with $ bound to input.
func (t *thread) template(name string, tmpl any, input any) (any, *stateError) {
	resolve := t.resolver(input)
	var out any
	err := t.guard(name, func() (err error) {
		out, err = jsonpath.Template(tmpl, resolve, func(expr string) (any, error) {
			return intrinsics.Eval(expr, resolve)
		})
		return err
	})
	if err != nil {
		return nil, t.evalError(err, input)
	}
	return out, nil
}

// evalError turns an evaluation failure into the error AWS raises.
func (t *thread) evalError(err error, input any) *stateError {
	var je *jsonata.Error
	if errors.As(err, &je) {
		return t.evaluationFailed(je.Name, je.Message, je.Field)
	}
	var ie *intrinsics.Error
	if errors.As(err, &ie) {
		return &stateError{Name: ie.Name, Cause: ie.Message}
	}
	var fe *jsonpath.FieldError
	var nm *jsonpath.NoMatchError
	if errors.As(err, &fe) && errors.As(err, &nm) {
		return t.runtimef("The JSONPath '%s' specified for the field '%s' could not be found in the input '%s'", fe.Value, fe.Field, jsonvalue.Encode(input))
	}
	var rp *jsonpath.ResultPathError
	if errors.As(err, &rp) {
		return &stateError{Name: errResultPathMatchFailure, Cause: fmt.Sprintf("Unable to apply step \"%s\" to input %s", rp.Path, jsonvalue.Encode(input))}
	}
	return t.runtimef("%v", err)
}

// evaluationFailed is an error found evaluating the state's field
// location, recorded in an EvaluationFailed event as the state fails.
func (t *thread) evaluationFailed(name, msg, location string) *stateError {
	cause := t.located(msg)
	return &stateError{Name: name, Cause: cause,
		evaluation: &EvaluationFailedEventDetails{Error: name, Cause: cause, Location: location}}
}

// runtimef is a States.Runtime error located at the current state.
func (t *thread) runtimef(format string, args ...any) *stateError {
	return &stateError{Name: errRuntime, Cause: t.located(fmt.Sprintf(format, args...))}
}

// located prefixes a runtime error's message with the state it happened
// in, as AWS does for States.Runtime and JSONata's
// States.QueryEvaluationError.
func (t *thread) located(msg string) string {
	return fmt.Sprintf("An error occurred while executing the state '%s' (entered at the event id #%d). ", t.st.name, t.enteredID) + msg
}

// noMatch is AWS's cause for a path field (InputPath, OutputPath,
// ItemsPath, SecondsPath, …) whose path selects nothing: "Invalid path
// '$.a.b' : Missing property in path $['a']".
func (t *thread) noMatch(path string, err error) *stateError {
	var nm *jsonpath.NoMatchError
	if errors.As(err, &nm) && nm.Reason != "" {
		return t.runtimef("Invalid path '%s' : %s", path, nm.Reason)
	}
	if nm != nil {
		return t.runtimef("Invalid path '%s' : No results for path: %s", path, path)
	}
	return t.runtimef("Invalid path '%s' : %v", path, err)
}

// pathValue applies InputPath, OutputPath or ItemsPath: absent is "$",
// null is {}.
func (t *thread) pathValue(p optPath, input any) (any, *stateError) {
	if !p.set || p.path == "$" {
		return input, nil
	}
	if p.null {
		return jsonvalue.NewObject(0), nil
	}
	v, err := t.resolver(input)(p.path)
	if err != nil {
		return nil, t.noMatch(p.path, err)
	}
	return v, nil
}

// resultPath places result into the raw state input: absent or "$" replaces
// it, null discards the result.
func (t *thread) resultPath(p optPath, input, result any) (any, *stateError) {
	switch {
	case !p.set || p.path == "$":
		return result, nil
	case p.null:
		return input, nil
	}
	out, err := jsonpath.Set(input, p.path, result)
	if err != nil {
		return nil, &stateError{Name: errResultPathMatchFailure,
			Cause: fmt.Sprintf("Unable to apply ResultPath \"%s\" to input \"%s\"", p.path, jsonvalue.Encode(input))}
	}
	return out, nil
}

// jsonataVars binds $states and the workflow variables.
func (t *thread) jsonataVars(input any, result, errorOutput *any) jsonata.Vars {
	vars := make(jsonata.Vars, len(t.vars)+1)
	for k, v := range t.vars {
		vars[k] = v
	}
	states := jsonvalue.NewObject(4)
	states.Set("input", input)
	if result != nil {
		states.Set("result", *result)
	}
	if errorOutput != nil {
		states.Set("errorOutput", *errorOutput)
	}
	states.Set("context", t.contextObject())
	vars["states"] = states
	return vars
}

// jsonataField evaluates a JSONata-language field (Arguments, Output, …)
// at the engine clock's current instant. An evaluation still running when
// the thread is aborted stops with the context's error, which nobody sees:
// the stop, timeout or close that aborted the thread is what the history
// records.
func (t *thread) jsonataField(name string, v any, vars jsonata.Vars) (any, *stateError) {
	var out any
	err := t.guard(name, func() (err error) {
		out, err = jsonata.TemplateField(t.ctx, name, v, jsonata.Env{Vars: vars, Now: t.x.e.clock.Now()})
		return err
	})
	var p *evalPanic
	if errors.As(err, &p) {
		return nil, t.evaluationFailed(errQueryEvaluation, p.Error(), name)
	}
	if err != nil {
		return nil, t.evalError(err, nil)
	}
	return out, nil
}

// evalPanic is an evaluation that panicked: a bug in an evaluator, which
// must fail the state, not the process.
type evalPanic struct {
	field string
	value any
}

func (p *evalPanic) Error() string {
	return fmt.Sprintf("The evaluation of the field '%s' failed in the local engine: %v", p.field, p.value)
}

// guard runs an evaluation of a state's field, turning a panic into an
// *evalPanic error (and a log line). Evaluations run without x.mu held, so
// nothing is left locked.
func (t *thread) guard(field string, eval func() error) (err error) {
	defer func() {
		if v := recover(); v != nil {
			t.x.e.log.Error("evaluation panicked", zap.String("execution_arn", t.x.arn), zap.String("state", t.st.name),
				zap.String("field", field), zap.Any("panic", v), zap.Stack("stack"))
			err = &evalPanic{field: field, value: v}
		}
	}()
	return eval()
}

// assignments evaluates an Assign block; every value sees the variables
// as they were when the state was entered. For JSONPath, $ is bound to in.
func (t *thread) assignments(st *state, assign field, in any, vars jsonata.Vars) (map[string]any, *stateError) {
	if !assign.set {
		return nil, nil
	}
	var out any
	var serr *stateError
	if st.lang == langJSONata {
		out, serr = t.jsonataField("Assign", assign.value, vars)
	} else {
		out, serr = t.template("Assign", assign.value, in)
	}
	if serr != nil {
		return nil, serr
	}
	o, _ := out.(*jsonvalue.Object)
	if o.Len() == 0 {
		return nil, nil
	}
	m := make(map[string]any, o.Len())
	o.Range(func(k string, v any) bool { m[k] = v; return true })
	return m, nil
}

// withVars returns vars with assigned merged in, copying so that scopes
// sharing vars never see the change.
func withVars(vars, assigned map[string]any) map[string]any {
	if len(assigned) == 0 {
		return vars
	}
	out := make(map[string]any, len(vars)+len(assigned))
	for k, v := range vars {
		out[k] = v
	}
	for k, v := range assigned {
		out[k] = v
	}
	return out
}

// finishJSONPath is the tail of JSONPath data flow for states with a
// result: ResultSelector, Assign, ResultPath, OutputPath.
func (t *thread) finishJSONPath(st *state, result any) (output any, assigned map[string]any, serr *stateError) {
	if st.typ == "Task" { // AWS shows no result for Pass (its Result aside), Map or Parallel
		t.inspect("result", result)
	}
	if st.resultSelector.set {
		if result, serr = t.template("ResultSelector", st.resultSelector.value, result); serr != nil {
			return nil, nil, serr
		}
	}
	t.inspect("afterResultSelector", result)
	if assigned, serr = t.assignments(st, st.assign, result, nil); serr != nil {
		return nil, nil, serr
	}
	if output, serr = t.resultPath(st.resultPath, t.input, result); serr != nil {
		return nil, nil, serr
	}
	t.inspect("afterResultPath", output)
	if output, serr = t.pathValue(st.outputPath, output); serr != nil {
		return nil, nil, serr
	}
	return output, assigned, nil
}

// finishJSONata is the tail of JSONata data flow: Assign and Output, both
// seeing $states.result; Output defaults to the result.
func (t *thread) finishJSONata(st *state, result any) (output any, assigned map[string]any, serr *stateError) {
	if st.typ == "Task" { // AWS shows no result for Pass (its Result aside), Map or Parallel
		t.inspect("result", result)
	}
	vars := t.jsonataVars(t.input, &result, nil)
	if assigned, serr = t.assignments(st, st.assign, nil, vars); serr != nil {
		return nil, nil, serr
	}
	if !st.output.set {
		return result, assigned, nil
	}
	if output, serr = t.jsonataField("Output", st.output.value, vars); serr != nil {
		return nil, nil, serr
	}
	return output, assigned, nil
}

// finish runs the data-flow tail for the state's language.
func (t *thread) finish(st *state, result any) (any, map[string]any, *stateError) {
	if st.lang == langJSONata {
		return t.finishJSONata(st, result)
	}
	return t.finishJSONPath(st, result)
}

// effectiveInput is InputPath then Parameters (JSONPath) or Arguments
// (JSONata): the payload a Task, Parallel or Map works on.
func (t *thread) effectiveInput(st *state) (any, *stateError) {
	var v any
	var serr *stateError
	switch {
	case st.lang == langJSONata && !st.arguments.set:
		return t.input, nil
	case st.lang == langJSONata:
		v, serr = t.jsonataField("Arguments", st.arguments.value, t.jsonataVars(t.input, nil, nil))
		if serr == nil {
			t.inspect("afterArguments", v)
		}
	default:
		var in any
		if in, serr = t.pathValue(st.inputPath, t.input); serr != nil {
			return in, serr
		}
		t.inspect("afterInputPath", in)
		if !st.parameters.set {
			t.inspect("afterParameters", in)
			return in, nil
		}
		v, serr = t.template("Parameters", st.parameters.value, in)
		if serr == nil {
			t.inspect("afterParameters", v)
		}
	}
	if serr == nil {
		serr = t.withinPayload(v)
	}
	return v, serr
}
