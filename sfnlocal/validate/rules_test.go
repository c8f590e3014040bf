package validate

import (
	"strings"
	"testing"
)

// one wraps a single state S into a machine that starts at it.
func one(state string) string {
	return `{"StartAt":"S","States":{"S":` + state + `}}`
}

// oneJSONata is one under a JSONata machine.
func oneJSONata(state string) string {
	return `{"QueryLanguage":"JSONata","StartAt":"S","States":{"S":` + state + `}}`
}

func TestRules(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		def  string
		// want lists every diagnostic as "SEVERITY CODE location".
		want []string
		// msg, when set, is the first diagnostic's exact message.
		msg string
	}{
		// Document.
		{"empty", ``, []string{"ERROR SCHEMA_VALIDATION_FAILED "}, "Definition must be a valid JSON object"},
		{"not JSON", `not a definition`, []string{"ERROR INVALID_JSON_DESCRIPTION line: 1, column: 2"}, ""},
		{"trailing data", `{} {}`, []string{"ERROR INVALID_JSON_DESCRIPTION line: 1, column: 4"}, ""},
		{"not an object", `[1]`, []string{"ERROR SCHEMA_VALIDATION_FAILED "}, "Definition must be a valid JSON object"},
		{"empty object", `{}`, []string{"ERROR SCHEMA_VALIDATION_FAILED /"}, "These fields are required: [States, StartAt]"},
		{"no StartAt", `{"States":{"S":{"Type":"Succeed"}}}`, []string{"ERROR SCHEMA_VALIDATION_FAILED /"}, "These fields are required: [StartAt]"},
		{"unknown top-level field", `{"Coment":"x","StartAt":"S","States":{"S":{"Type":"Succeed"}}}`,
			[]string{"ERROR SCHEMA_VALIDATION_FAILED /"}, "Field 'Coment' is not supported"},
		{"bad Version", `{"Version":"2.0","StartAt":"S","States":{"S":{"Type":"Succeed"}}}`,
			[]string{"ERROR SCHEMA_VALIDATION_FAILED /Version"}, "Value should be one of the following: [1.0]"},
		{"negative machine timeout", `{"TimeoutSeconds":-1,"StartAt":"S","States":{"S":{"Type":"Succeed"}}}`,
			[]string{"ERROR SCHEMA_VALIDATION_FAILED /TimeoutSeconds"}, "Minimum value is 0"},
		{"StartAt unknown", `{"StartAt":"Nope","States":{"A":{"Type":"Pass","End":true}}}`,
			[]string{"ERROR MISSING_TRANSITION_TARGET /StartAt", "ERROR MISSING_TRANSITION_TARGET /States/A"}, "Missing 'Next' target: Nope"},

		// Query language.
		{"QueryLanguage outside the enum", `{"QueryLanguage":"jsonata","StartAt":"S","States":{"S":{"Type":"Pass","Output":1,"End":true}}}`,
			[]string{"ERROR SCHEMA_VALIDATION_FAILED /QueryLanguage"}, "Value should be one of the following: [JSONPath, JSONata]"},
		{"state QueryLanguage not a string", one(`{"Type":"Pass","QueryLanguage":5,"InputPath":"$.a","End":true}`),
			[]string{"ERROR SCHEMA_VALIDATION_FAILED /States/S", "ERROR SCHEMA_VALIDATION_FAILED /States/S/QueryLanguage"},
			"The QueryLanguage is set to 'JSONata', but field 'InputPath' is only supported for the 'JSONPath' QueryLanguage"},
		{"JSONPath state under JSONata machine", oneJSONata(`{"Type":"Pass","QueryLanguage":"JSONPath","Output":1,"End":true}`),
			[]string{"ERROR SCHEMA_VALIDATION_FAILED /States/S"}, "'QueryLanguage' can not be 'JSONPath' if set to 'JSONata' for whole state machine"},
		{"JSONata state under JSONPath machine", one(`{"Type":"Pass","QueryLanguage":"JSONata","Output":"{% 1 %}","End":true}`), nil, ""},
		{"JSONata field on JSONPath state", one(`{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke","Output":{},"Arguments":{},"End":true}`),
			[]string{"ERROR SCHEMA_VALIDATION_FAILED /States/S", "ERROR SCHEMA_VALIDATION_FAILED /States/S"},
			"The QueryLanguage is set to 'JSONPath', but field 'Output' is only supported for the 'JSONata' QueryLanguage"},
		{"JSONPath fields on JSONata state", oneJSONata(`{"Type":"Pass","InputPath":"$.a","OutputPath":"$.b","ResultPath":"$.c","Parameters":{},"End":true}`),
			[]string{"ERROR SCHEMA_VALIDATION_FAILED /States/S", "ERROR SCHEMA_VALIDATION_FAILED /States/S", "ERROR SCHEMA_VALIDATION_FAILED /States/S", "ERROR SCHEMA_VALIDATION_FAILED /States/S"},
			"The QueryLanguage is set to 'JSONata', but field 'InputPath' is only supported for the 'JSONPath' QueryLanguage"},
		{"Items on JSONPath Map", one(`{"Type":"Map","Items":[1],"ItemProcessor":{"StartAt":"P","States":{"P":{"Type":"Pass","End":true}}},"End":true}`),
			[]string{"ERROR SCHEMA_VALIDATION_FAILED /States/S"}, "The QueryLanguage is set to 'JSONPath', but field 'Items' is only supported for the 'JSONata' QueryLanguage"},
		{"nested states inherit the machine's language, not the Map's",
			one(`{"Type":"Map","QueryLanguage":"JSONata","Items":"{% [1] %}","ItemProcessor":{"StartAt":"P","States":{"P":{"Type":"Pass","Output":1,"End":true}}},"End":true}`),
			[]string{"ERROR SCHEMA_VALIDATION_FAILED /States/S/ItemProcessor/States/P"}, "The QueryLanguage is set to 'JSONPath', but field 'Output' is only supported for the 'JSONata' QueryLanguage"},
		{"QueryLanguage on a processor", one(`{"Type":"Map","ItemProcessor":{"QueryLanguage":"JSONata","StartAt":"P","States":{"P":{"Type":"Pass","End":true}}},"End":true}`),
			[]string{"ERROR SCHEMA_VALIDATION_FAILED /States/S/ItemProcessor"}, "Field 'QueryLanguage' is not supported"},
		{"Condition on JSONPath rule", one(`{"Type":"Choice","Choices":[{"Condition":"{% true %}","Next":"S"}]}`),
			[]string{"ERROR SCHEMA_VALIDATION_FAILED /States/S/Choices[0]", "ERROR SCHEMA_VALIDATION_FAILED /States/S/Choices[0]", "ERROR MISSING_END_STATE "},
			"The QueryLanguage is set to 'JSONPath', but field 'Condition' is only supported for the 'JSONata' QueryLanguage"},

		// States.
		{"state name too long", `{"StartAt":"` + strings.Repeat("n", 81) + `","States":{"` + strings.Repeat("n", 81) + `":{"Type":"Succeed"}}}`,
			[]string{"ERROR INVALID_STATE_NAME /States/" + strings.Repeat("n", 81)}, "State name exceeds the maximum length of 80 characters"},
		{"duplicate state name in one object", `{"StartAt":"A","States":{"A":{"Type":"Pass","End":true},"A":{"Type":"Succeed"}}}`,
			[]string{"ERROR DUPLICATE_STATE_NAME /States/A"}, "Duplicate State name: A"},
		{"duplicate state name across branches", `{"StartAt":"P","States":{"P":{"Type":"Parallel","Branches":[{"StartAt":"P","States":{"P":{"Type":"Succeed"}}}],"End":true}}}`,
			[]string{"ERROR DUPLICATE_STATE_NAME /States/P/Branches[0]/States/P"}, "Duplicate State name: P"},
		{"missing Type", one(`{"End":true}`), []string{"ERROR SCHEMA_VALIDATION_FAILED /States/S"}, "These fields are required: [Type]"},
		{"unknown Type", one(`{"Type":"Sleep","End":true}`), []string{"ERROR SCHEMA_VALIDATION_FAILED /States/S/Type"},
			"The field 'Type' should have one of these values: [Task, Wait, Pass, Succeed, Fail, Choice, Parallel, Map]"},
		{"field of another type", one(`{"Type":"Pass","TimeoutSeconds":5,"End":true}`), []string{"ERROR SCHEMA_VALIDATION_FAILED /States/S"}, "Field 'TimeoutSeconds' is not supported"},
		{"Catch on Pass", one(`{"Type":"Pass","End":true,"Catch":[{"ErrorEquals":["States.ALL"],"Next":"S"}]}`),
			[]string{"ERROR SCHEMA_VALIDATION_FAILED /States/S"}, "Field 'Catch' is not supported"},
		{"unknown field", one(`{"Type":"Succeed","Nxt":"S"}`), []string{"ERROR SCHEMA_VALIDATION_FAILED /States/S"}, "Field 'Nxt' is not supported"},

		// Transitions.
		{"neither Next nor End", `{"StartAt":"S","States":{"S":{"Type":"Pass"},"E":{"Type":"Succeed"}}}`,
			[]string{"ERROR SCHEMA_VALIDATION_FAILED /States/S", "ERROR MISSING_TRANSITION_TARGET /States/E"},
			"This object should have only one of the following fields: [Next, End]"},
		{"both Next and End", one(`{"Type":"Pass","Next":"S","End":true}`), []string{"ERROR SCHEMA_VALIDATION_FAILED /States/S"},
			"There should only be one of the following fields: [Next, End]"},
		{"Next on Succeed", `{"StartAt":"S","States":{"S":{"Type":"Succeed","Next":"S"}}}`, []string{"ERROR SCHEMA_VALIDATION_FAILED /States/S"}, "Field 'Next' is not supported"},
		{"unknown Next", one(`{"Type":"Pass","Next":"Ghost"}`),
			[]string{"ERROR MISSING_TRANSITION_TARGET /States/S/Next", "ERROR MISSING_END_STATE "}, "Missing 'Next' target: Ghost"},
		{"unreachable state", `{"StartAt":"A","States":{"A":{"Type":"Pass","Next":"B"},"B":{"Type":"Pass","Next":"A"},"C":{"Type":"Pass","End":true}}}`,
			[]string{"ERROR MISSING_TRANSITION_TARGET /States/C"}, `State "C" is not reachable.`},
		{"no terminal state", `{"StartAt":"A","States":{"A":{"Type":"Pass","Next":"B"},"B":{"Type":"Pass","Next":"A"},"U":{"Type":"Pass","Next":"A"}}}`,
			[]string{"ERROR MISSING_END_STATE "}, "Workflow has no terminal state"},
		{"nested loop is accepted", one(`{"Type":"Map","ItemProcessor":{"StartAt":"A","States":{"A":{"Type":"Pass","Next":"B"},"B":{"Type":"Pass","Next":"A"}}},"End":true}`), nil, ""},
		{"transition leaves its branch", `{"StartAt":"P","States":{"P":{"Type":"Parallel","Branches":[{"StartAt":"A","States":{"A":{"Type":"Pass","Next":"Out"}}}],"Next":"Out"},"Out":{"Type":"Succeed"}}}`,
			[]string{"ERROR MISSING_TRANSITION_TARGET /States/P/Branches[0]/States/A/Next"}, "Missing 'Next' target: Out"},

		// Choice.
		{"empty Choices", one(`{"Type":"Choice","Choices":[],"Default":"S"}`), []string{"ERROR SCHEMA_VALIDATION_FAILED /States/S/Choices", "ERROR MISSING_END_STATE "}, "Value cannot be empty"},
		{"rule without Next", `{"StartAt":"C","States":{"C":{"Type":"Choice","Choices":[{"Variable":"$.x","IsPresent":true}],"Default":"E"},"E":{"Type":"Succeed"}}}`,
			[]string{"ERROR SCHEMA_VALIDATION_FAILED /States/C/Choices[0]"}, "These fields are required: [Next]"},
		{"comparison value of the wrong type", `{"StartAt":"C","States":{"C":{"Type":"Choice","Choices":[{"Variable":"$.x","NumericEquals":"1","Next":"E"}]},"E":{"Type":"Succeed"}}}`,
			[]string{"ERROR SCHEMA_VALIDATION_FAILED /States/C/Choices[0]/NumericEquals"}, "Expected value of type [NUMBER]"},
		{"two comparisons", `{"StartAt":"C","States":{"C":{"Type":"Choice","Choices":[{"Variable":"$.x","IsNull":true,"IsString":true,"Next":"E"}]},"E":{"Type":"Succeed"}}}`,
			[]string{"ERROR SCHEMA_VALIDATION_FAILED /States/C/Choices[0]"}, "There should only be one of the following fields: [IsNull, IsString]"},
		{"bad timestamp", `{"StartAt":"C","States":{"C":{"Type":"Choice","Choices":[{"Variable":"$.t","TimestampEquals":"2020-01-01 00:00:00","Next":"E"}]},"E":{"Type":"Succeed"}}}`,
			[]string{"ERROR SCHEMA_VALIDATION_FAILED /States/C/Choices[0]/TimestampEquals"}, "String does not match RFC3339 timestamp"},
		{"Next inside And", `{"StartAt":"C","States":{"C":{"Type":"Choice","Choices":[{"And":[{"Variable":"$.x","IsNull":true,"Next":"E"}],"Next":"E"}]},"E":{"Type":"Succeed"}}}`,
			[]string{"ERROR SCHEMA_VALIDATION_FAILED /States/C/Choices[0]/And[0]"}, "Field 'Next' is not supported"},
		{"unknown Default", `{"StartAt":"C","States":{"C":{"Type":"Choice","Choices":[{"Variable":"$.x","IsNull":true,"Next":"E"}],"Default":"Ghost"},"E":{"Type":"Succeed"}}}`,
			[]string{"ERROR MISSING_TRANSITION_TARGET /States/C/Default"}, "Missing 'Next' target: Ghost"},
		{"JSONata rule without Condition", `{"QueryLanguage":"JSONata","StartAt":"C","States":{"C":{"Type":"Choice","Choices":[{"Variable":"$.x","IsNull":true,"Next":"E"}]},"E":{"Type":"Succeed"}}}`,
			[]string{"ERROR SCHEMA_VALIDATION_FAILED /States/C/Choices[0]", "ERROR SCHEMA_VALIDATION_FAILED /States/C/Choices[0]", "ERROR SCHEMA_VALIDATION_FAILED /States/C/Choices[0]"},
			"The QueryLanguage is set to 'JSONata', but field 'IsNull' is only supported for the 'JSONPath' QueryLanguage"},
		{"JSONata Condition not an expression", `{"QueryLanguage":"JSONata","StartAt":"C","States":{"C":{"Type":"Choice","Choices":[{"Condition":"$x > 1","Next":"E"}]},"E":{"Type":"Succeed"}}}`,
			[]string{"ERROR SCHEMA_VALIDATION_FAILED /States/C/Choices[0]/Condition"}, "The value for the field 'Condition' must be a JSONata expression"},

		// Wait.
		{"Wait without timing", one(`{"Type":"Wait","End":true}`), []string{"ERROR SCHEMA_VALIDATION_FAILED /States/S"},
			"This object should have only one of the following fields: [SecondsPath, Seconds, TimestampPath, Timestamp]"},
		{"Wait with two timings", one(`{"Type":"Wait","Seconds":1,"SecondsPath":"$.s","End":true}`), []string{"ERROR SCHEMA_VALIDATION_FAILED /States/S"},
			"There should only be one of the following fields: [SecondsPath, Seconds, TimestampPath, Timestamp]"},
		{"negative Seconds", one(`{"Type":"Wait","Seconds":-1,"End":true}`), []string{"ERROR SCHEMA_VALIDATION_FAILED /States/S/Seconds"}, "Minimum value is 0"},
		{"Seconds as a JSONPath string", one(`{"Type":"Wait","Seconds":"{% 1 %}","End":true}`), []string{"ERROR SCHEMA_VALIDATION_FAILED /States/S/Seconds"}, "Expected value of type [INTEGER]"},
		{"lowercase timestamp", one(`{"Type":"Wait","Timestamp":"2030-01-01t00:00:00z","End":true}`), []string{"ERROR SCHEMA_VALIDATION_FAILED /States/S/Timestamp"}, "String does not match RFC3339 timestamp"},
		{"SecondsPath not a reference path", one(`{"Type":"Wait","SecondsPath":"$.a[*]","End":true}`), []string{"ERROR SCHEMA_VALIDATION_FAILED /States/S/SecondsPath"}, "The value for the field 'SecondsPath' must be a valid JSONPath"},

		// Fail.
		{"Error and ErrorPath", one(`{"Type":"Fail","Error":"E","ErrorPath":"$.e"}`), []string{"ERROR SCHEMA_VALIDATION_FAILED /States/S/Error"}, "There should only be one of the following fields: [Error, ErrorPath]"},
		{"Cause and CausePath", one(`{"Type":"Fail","Cause":"C","CausePath":"$.c"}`), []string{"ERROR SCHEMA_VALIDATION_FAILED /States/S/Cause"}, "There should only be one of the following fields: [Cause, CausePath]"},
		{"bad CausePath", one(`{"Type":"Fail","CausePath":"cause"}`), []string{"ERROR SCHEMA_VALIDATION_FAILED /States/S/CausePath"},
			"The value for the field 'CausePath' must be a valid JSONPath or a valid intrinsic function call"},
		{"path-looking Error", one(`{"Type":"Fail","Error":"$.error"}`), []string{"WARNING NO_PATH /States/S/Error"}, ""},

		// Task.
		{"Task without Resource", one(`{"Type":"Task","End":true}`), []string{"ERROR SCHEMA_VALIDATION_FAILED /States/S"}, "These fields are required: [Resource]"},
		{"Resource not an ARN", one(`{"Type":"Task","Resource":"lambda","End":true}`), []string{"ERROR SCHEMA_VALIDATION_FAILED /States/S/Resource"}, "Value is not a valid resource ARN"},
		{"zero TimeoutSeconds", one(`{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke","TimeoutSeconds":0,"End":true}`),
			[]string{"ERROR SCHEMA_VALIDATION_FAILED /States/S/TimeoutSeconds"}, "Minimum value is 1"},
		{"fractional HeartbeatSeconds", one(`{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke","HeartbeatSeconds":1.5,"End":true}`),
			[]string{"ERROR SCHEMA_VALIDATION_FAILED /States/S/HeartbeatSeconds"}, "Expected value of type [INTEGER]"},
		{"heartbeat not below timeout", one(`{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke","TimeoutSeconds":60,"HeartbeatSeconds":60,"End":true}`),
			[]string{"ERROR SCHEMA_VALIDATION_FAILED /States/S/HeartbeatSeconds"}, "The value of 'HeartbeatSeconds' must be less than the value of 'TimeoutSeconds'"},
		{"TimeoutSeconds and TimeoutSecondsPath", one(`{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke","TimeoutSeconds":60,"TimeoutSecondsPath":"$.t","End":true}`),
			[]string{"ERROR SCHEMA_VALIDATION_FAILED /States/S/TimeoutSeconds"}, "There should only be one of the following fields: [TimeoutSeconds, TimeoutSecondsPath]"},
		{"Credentials without RoleArn", one(`{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke","Credentials":{},"End":true}`),
			[]string{"ERROR SCHEMA_VALIDATION_FAILED /States/S/Credentials"}, "The field 'RoleArn' is required but was missing"},

		// Retry and Catch.
		{"empty ErrorEquals", one(`{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke","Retry":[{"ErrorEquals":[]}],"End":true}`),
			[]string{"ERROR SCHEMA_VALIDATION_FAILED /States/S/Retry[0]/ErrorEquals"}, "Value cannot be empty"},
		{"States.ALL not alone", one(`{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke","Retry":[{"ErrorEquals":["States.ALL","X"]}],"End":true}`),
			[]string{"ERROR SCHEMA_VALIDATION_FAILED /States/S/Retry[0]/ErrorEquals"}, "States.ALL must appear alone and at end of list"},
		{"States.ALL not last", one(`{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke","Retry":[{"ErrorEquals":["States.ALL"]},{"ErrorEquals":["X"]}],"End":true}`),
			[]string{"ERROR SCHEMA_VALIDATION_FAILED /States/S/Retry[0]/ErrorEquals"}, "States.ALL must appear alone and at end of list"},
		{"retrier limits", one(`{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke","Retry":[{"ErrorEquals":["X"],"IntervalSeconds":-1,"MaxAttempts":-1,"BackoffRate":0.5,"MaxDelaySeconds":0,"JitterStrategy":"SOME"}],"End":true}`),
			[]string{"ERROR SCHEMA_VALIDATION_FAILED /States/S/Retry[0]/IntervalSeconds", "ERROR SCHEMA_VALIDATION_FAILED /States/S/Retry[0]/MaxAttempts",
				"ERROR SCHEMA_VALIDATION_FAILED /States/S/Retry[0]/BackoffRate", "ERROR SCHEMA_VALIDATION_FAILED /States/S/Retry[0]/MaxDelaySeconds",
				"ERROR SCHEMA_VALIDATION_FAILED /States/S/Retry[0]/JitterStrategy"}, "Minimum value is 0"},
		{"retrier without ErrorEquals", one(`{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke","Retry":[{"MaxAttempts":1}],"End":true}`),
			[]string{"ERROR SCHEMA_VALIDATION_FAILED /States/S/Retry[0]"}, "These fields are required: [ErrorEquals]"},
		{"catcher without Next", one(`{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke","Catch":[{"ErrorEquals":["States.ALL"]}],"End":true}`),
			[]string{"ERROR SCHEMA_VALIDATION_FAILED /States/S/Catch[0]"}, "These fields are required: [Next]"},
		{"catcher to an unknown state", one(`{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke","Catch":[{"ErrorEquals":["States.ALL"],"Next":"Ghost"}],"End":true}`),
			[]string{"ERROR MISSING_TRANSITION_TARGET /States/S/Catch[0]/Next"}, "Missing 'Next' target: Ghost"},
		{"catcher Output in JSONPath", one(`{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke","Catch":[{"ErrorEquals":["States.ALL"],"Output":{},"Next":"S"}],"End":true}`),
			[]string{"ERROR SCHEMA_VALIDATION_FAILED /States/S/Catch[0]"}, "The QueryLanguage is set to 'JSONPath', but field 'Output' is only supported for the 'JSONata' QueryLanguage"},

		// Parallel.
		{"no Branches", one(`{"Type":"Parallel","End":true}`), []string{"ERROR SCHEMA_VALIDATION_FAILED /States/S"}, "These fields are required: [Branches]"},
		{"branch without States", one(`{"Type":"Parallel","Branches":[{"StartAt":"A"}],"End":true}`),
			[]string{"ERROR SCHEMA_VALIDATION_FAILED /States/S/Branches[0]"}, "These fields are required: [States]"},
		{"error inside a branch", one(`{"Type":"Parallel","Branches":[{"StartAt":"A","States":{"A":{"Type":"Wait","Seconds":-5,"End":true}}}],"End":true}`),
			[]string{"ERROR SCHEMA_VALIDATION_FAILED /States/S/Branches[0]/States/A/Seconds"}, "Minimum value is 0"},

		// Map.
		{"Map without processor", one(`{"Type":"Map","End":true}`), []string{"ERROR SCHEMA_VALIDATION_FAILED /States/S"},
			"This object should have only one of the following fields: [ItemProcessor, Iterator]"},
		{"bad Mode", one(`{"Type":"Map","ItemProcessor":{"ProcessorConfig":{"Mode":"FAST"},"StartAt":"P","States":{"P":{"Type":"Pass","End":true}}},"End":true}`),
			[]string{"ERROR SCHEMA_VALIDATION_FAILED /States/S/ItemProcessor/ProcessorConfig/Mode"}, "Value should be one of the following: [INLINE, DISTRIBUTED]"},
		{"distributed without ExecutionType", one(`{"Type":"Map","ItemProcessor":{"ProcessorConfig":{"Mode":"DISTRIBUTED"},"StartAt":"P","States":{"P":{"Type":"Pass","End":true}}},"End":true}`),
			[]string{"ERROR SCHEMA_VALIDATION_FAILED /States/S/ItemProcessor/ProcessorConfig"}, "These fields are required: [ExecutionType]"},
		{"negative MaxConcurrency", one(`{"Type":"Map","MaxConcurrency":-1,"ItemProcessor":{"StartAt":"P","States":{"P":{"Type":"Pass","End":true}}},"End":true}`),
			[]string{"ERROR SCHEMA_VALIDATION_FAILED /States/S/MaxConcurrency"}, "Minimum value is 0"},
		{"MaxConcurrency and its path", one(`{"Type":"Map","MaxConcurrency":2,"MaxConcurrencyPath":"$.n","ItemProcessor":{"StartAt":"P","States":{"P":{"Type":"Pass","End":true}}},"End":true}`),
			[]string{"ERROR SCHEMA_VALIDATION_FAILED /States/S/MaxConcurrency"}, "There should only be one of the following fields: [MaxConcurrency, MaxConcurrencyPath]"},
		{"tolerated percentage above 100", one(`{"Type":"Map","ToleratedFailurePercentage":101,"ItemProcessor":{"StartAt":"P","States":{"P":{"Type":"Pass","End":true}}},"End":true}`),
			[]string{"ERROR SCHEMA_VALIDATION_FAILED /States/S/ToleratedFailurePercentage"}, "Maximum value is 100"},
		{"ItemBatcher inline", one(`{"Type":"Map","ItemBatcher":{"MaxItemsPerBatch":2},"ItemProcessor":{"StartAt":"P","States":{"P":{"Type":"Pass","End":true}}},"End":true}`),
			[]string{"ERROR SCHEMA_VALIDATION_FAILED /States/S/ItemBatcher"}, ""},
		{"unknown ItemReader resource", one(`{"Type":"Map","ItemReader":{"Resource":"arn:aws:states:::s3:unknownOperation","Parameters":{}},"ItemProcessor":{"StartAt":"P","States":{"P":{"Type":"Pass","End":true}}},"End":true}`),
			[]string{"ERROR SCHEMA_VALIDATION_FAILED /States/S/ItemReader/Resource"}, "The field 'Resource' does not match any of the allowed values"},
		{"empty ResultWriter", one(`{"Type":"Map","ResultWriter":{},"ItemProcessor":{"ProcessorConfig":{"Mode":"DISTRIBUTED","ExecutionType":"STANDARD"},"StartAt":"P","States":{"P":{"Type":"Pass","End":true}}},"End":true}`),
			[]string{"ERROR SCHEMA_VALIDATION_FAILED /States/S/ResultWriter"}, ""},
		{"JSONPath ResultWriter with Arguments", one(`{"Type":"Map","ResultWriter":{"Resource":"arn:aws:states:::s3:putObject","Parameters":{"Bucket":"b"},"Arguments":{}},"ItemProcessor":{"ProcessorConfig":{"Mode":"DISTRIBUTED","ExecutionType":"STANDARD"},"StartAt":"P","States":{"P":{"Type":"Pass","End":true}}},"End":true}`),
			[]string{"ERROR SCHEMA_VALIDATION_FAILED /States/S/ResultWriter/Arguments"}, ""},
		{"invalid Label", one(`{"Type":"Map","Label":"has space","ItemProcessor":{"StartAt":"P","States":{"P":{"Type":"Pass","End":true}}},"End":true}`),
			[]string{"ERROR INVALID_LABEL_NAME /States/S/Label"}, ""},
		{"unreachable state in a processor", one(`{"Type":"Map","ItemProcessor":{"StartAt":"W","States":{"W":{"Type":"Pass","End":true},"Ghost":{"Type":"Pass","End":true}}},"End":true}`),
			[]string{"ERROR MISSING_TRANSITION_TARGET /States/S/ItemProcessor/States/Ghost"}, `State "Ghost" is not reachable.`},
		{"error deep in nested processors", one(`{"Type":"Map","ItemProcessor":{"StartAt":"I","States":{"I":{"Type":"Map","MaxConcurrency":-1,"ItemProcessor":{"StartAt":"P","States":{"P":{"Type":"Pass","End":true}}},"End":true}}},"End":true}`),
			[]string{"ERROR SCHEMA_VALIDATION_FAILED /States/S/ItemProcessor/States/I/MaxConcurrency"}, "Minimum value is 0"},

		// Paths and templates.
		{"bad InputPath", one(`{"Type":"Pass","InputPath":"a.b","End":true}`), []string{"ERROR SCHEMA_VALIDATION_FAILED /States/S/InputPath"}, "The value for the field 'InputPath' must be a valid JSONPath"},
		{"ResultPath with a wildcard", one(`{"Type":"Pass","ResultPath":"$.a[*]","End":true}`), []string{"ERROR SCHEMA_VALIDATION_FAILED /States/S/ResultPath"}, "The value for the field 'ResultPath' must be a valid JSONPath"},
		{"ResultPath into the context", one(`{"Type":"Pass","ResultPath":"$$.Execution","End":true}`), []string{"ERROR SCHEMA_VALIDATION_FAILED /States/S/ResultPath"}, ""},
		{"bad .$ value", one(`{"Type":"Pass","Parameters":{"a":{"b.$":"foo"}},"End":true}`),
			[]string{"ERROR SCHEMA_VALIDATION_FAILED /States/S/Parameters/a/b.$"}, "The value for the field 'b.$' must be a valid JSONPath or a valid intrinsic function call"},
		{"unknown intrinsic", one(`{"Type":"Pass","Parameters":{"a.$":"States.Nope($.x)"},"End":true}`), []string{"ERROR SCHEMA_VALIDATION_FAILED /States/S/Parameters/a.$"}, ""},
		{"unterminated intrinsic string", one(`{"Type":"Pass","Parameters":{"a.$":"States.Format('x {}, $.x)"},"End":true}`), []string{"ERROR SCHEMA_VALIDATION_FAILED /States/S/Parameters/a.$"}, ""},
		{"path without .$", one(`{"Type":"Pass","Parameters":{"a":"$.x"},"End":true}`), []string{"WARNING NO_DOLLAR /States/S/Parameters/a"}, ""},
		{"path in a Pass Result", one(`{"Type":"Pass","Result":{"a.$":"$.x"},"End":true}`), []string{"WARNING PASS_RESULT_IS_STATIC /States/S/Result"}, "Attempt to use a path in the result of a pass state."},

		// Assign.
		{"invalid variable name", one(`{"Type":"Pass","Assign":{"my-var":1},"End":true}`), []string{"ERROR SCHEMA_VALIDATION_FAILED /States/S/Assign/my-var"}, "The variable name 'my-var' is not a valid identifier"},
		{"reserved variable", one(`{"Type":"Pass","Assign":{"states.$":"$.x"},"End":true}`), []string{"ERROR SCHEMA_VALIDATION_FAILED /States/S/Assign/states.$"}, "The variable name 'states' is reserved"},
		{"Assign .$ value", one(`{"Type":"Pass","Assign":{"x.$":"x"},"End":true}`), []string{"ERROR SCHEMA_VALIDATION_FAILED /States/S/Assign/x.$"}, ""},

		// JSONata.
		{"unbalanced JSONata", oneJSONata(`{"Type":"Pass","Output":{"v":"{% $states.input.a[1 %}"},"End":true}`),
			[]string{"ERROR INVALID_JSONATA_EXPRESSION /States/S/Output/v"}, `Expected "]" before end of expression`},
		{"unterminated JSONata string", oneJSONata(`{"Type":"Pass","Output":"{% \"abc %}","End":true}`),
			[]string{"ERROR INVALID_JSONATA_EXPRESSION /States/S/Output"}, "String literal must be terminated by a matching quote"},
		{"JSONata ending in an operator", oneJSONata(`{"Type":"Pass","Output":"{% 1 + %}","End":true}`),
			[]string{"ERROR INVALID_JSONATA_EXPRESSION /States/S/Output"}, "Unexpected end of expression"},
		{"empty JSONata", oneJSONata(`{"Type":"Pass","Output":"{%%}","End":true}`), []string{"ERROR INVALID_JSONATA_EXPRESSION /States/S/Output"}, "Unexpected end of expression"},
		{"JSONata object missing a value", oneJSONata(`{"Type":"Pass","Output":"{% {\"a\":} %}","End":true}`),
			[]string{"ERROR INVALID_JSONATA_EXPRESSION /States/S/Output"}, `The symbol "}" cannot be used as a unary operator`},
		{"unterminated regex", oneJSONata(`{"Type":"Pass","Output":"{% $match(\"a\", /abc %}","End":true}`),
			[]string{"ERROR INVALID_JSONATA_EXPRESSION /States/S/Output"}, "No terminating / in regular expression"},
		{"JSONata $$", oneJSONata(`{"Type":"Pass","Output":"{% $$ %}","End":true}`),
			[]string{"ERROR UNSUPPORTED_JSONATA_EXPRESSION /States/S/Output"}, "Reference to '$$' is not supported."},
		{"errorOutput outside a catcher", oneJSONata(`{"Type":"Pass","Output":"{% $states.errorOutput %}","End":true}`),
			[]string{"ERROR UNSUPPORTED_JSONATA_EXPRESSION /States/S/Output"}, "Field '$states.errorOutput' does not exist."},
		{"JSONata in an Assign", oneJSONata(`{"Type":"Pass","Assign":{"x":"{% ($a := 1 %}"},"End":true}`),
			[]string{"ERROR INVALID_JSONATA_EXPRESSION /States/S/Assign/x"}, ""},
		{"JSONata in a Condition", `{"QueryLanguage":"JSONata","StartAt":"C","States":{"C":{"Type":"Choice","Choices":[{"Condition":"{% $x > %}","Next":"E"}]},"E":{"Type":"Succeed"}}}`,
			[]string{"ERROR INVALID_JSONATA_EXPRESSION /States/C/Choices[0]/Condition"}, "Unexpected end of expression"},
		{"JSONata in TimeoutSeconds", oneJSONata(`{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke","TimeoutSeconds":"{% ( %}","End":true}`),
			[]string{"ERROR INVALID_JSONATA_EXPRESSION /States/S/TimeoutSeconds"}, ""},
		{"JSONata literal string is not an integer", oneJSONata(`{"Type":"Wait","Seconds":"10","End":true}`),
			[]string{"ERROR SCHEMA_VALIDATION_FAILED /States/S/Seconds"}, "Expected value of type [INTEGER]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := Definition([]byte(tt.def))
			var gotKeys []string
			for _, d := range got {
				gotKeys = append(gotKeys, d.Severity+" "+d.Code+" "+d.Location)
			}
			if strings.Join(gotKeys, "\n") != strings.Join(tt.want, "\n") {
				t.Fatalf("diagnostics:\n got %q\nwant %q\nfull: %+v", gotKeys, tt.want, got)
			}
			if tt.msg != "" && got[0].Message != tt.msg {
				t.Errorf("message = %q, want %q", got[0].Message, tt.msg)
			}
		})
	}
}

func TestExpressRules(t *testing.T) {
	t.Parallel()
	task := func(resource string) string {
		return `{"Type":"Task","Resource":"` + resource + `","End":true}`
	}
	tests := []struct {
		name    string
		def     string
		typ     string
		want    []string // "location message"
		wantErr bool     // CheckFor fails
	}{
		{"callback", one(task("arn:aws:states:::lambda:invoke.waitForTaskToken")), "EXPRESS",
			[]string{"/States/S/Resource Express state machine does not support '.waitForTaskToken' service integration"}, true},
		{".sync", one(task("arn:aws:states:::ecs:runTask.sync")), "EXPRESS",
			[]string{"/States/S/Resource Express state machine does not support '.sync' service integration"}, true},
		{".sync:2", one(task("arn:aws:states:::states:startExecution.sync:2")), "EXPRESS",
			[]string{"/States/S/Resource Express state machine does not support '.sync' service integration"}, true},
		{"callback in a Parallel branch", one(`{"Type":"Parallel","Branches":[{"StartAt":"B","States":{"B":` + task("arn:aws:states:::sqs:sendMessage.waitForTaskToken") + `}}],"End":true}`), "EXPRESS",
			[]string{"/States/S/Branches[0]/States/B/Resource Express state machine does not support '.waitForTaskToken' service integration"}, true},
		{"request-response", one(task("arn:aws:states:::lambda:invoke")), "EXPRESS", nil, false},
		{"callback in a Standard machine", one(task("arn:aws:states:::lambda:invoke.waitForTaskToken")), "STANDARD", nil, false},
		{"no type is Standard", one(task("arn:aws:states:::lambda:invoke.waitForTaskToken")), "", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got []string
			for _, d := range DefinitionFor([]byte(tt.def), tt.typ) {
				if d.Code != CodeSchema || d.Severity != SeverityError {
					t.Errorf("diagnostic %+v, want an ERROR %s", d, CodeSchema)
				}
				got = append(got, d.Location+" "+d.Message)
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("DefinitionFor:\n got %q\nwant %q", got, tt.want)
			}
			if err := CheckFor([]byte(tt.def), tt.typ); (err != nil) != tt.wantErr {
				t.Errorf("CheckFor = %v, want an error: %v", err, tt.wantErr)
			}
		})
	}
}
