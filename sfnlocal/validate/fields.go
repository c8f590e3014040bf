package validate

// stateTypes lists the state types in the order AWS names them.
var stateTypes = []string{"Task", "Wait", "Pass", "Succeed", "Fail", "Choice", "Parallel", "Map"}

// commonFields are accepted on every state type.
var commonFields = set("Type", "Comment", "QueryLanguage")

// stateFields are the fields each state type accepts besides commonFields,
// in either query language (measured against ValidateStateMachineDefinition).
var stateFields = map[string]map[string]bool{
	"Pass": set("InputPath", "OutputPath", "Result", "ResultPath", "Parameters", "Output", "Assign", "Next", "End"),
	"Task": set("InputPath", "OutputPath", "ResultPath", "Parameters", "Arguments", "Output", "Assign",
		"Resource", "Credentials", "ResultSelector", "Retry", "Catch",
		"TimeoutSeconds", "TimeoutSecondsPath", "HeartbeatSeconds", "HeartbeatSecondsPath", "Next", "End"),
	"Wait": set("InputPath", "OutputPath", "Output", "Assign", "Seconds", "Timestamp", "SecondsPath", "TimestampPath", "Next", "End"),
	"Parallel": set("InputPath", "OutputPath", "ResultPath", "Parameters", "Arguments", "Output", "Assign",
		"ResultSelector", "Retry", "Catch", "Branches", "Next", "End"),
	"Map": set("InputPath", "OutputPath", "ResultPath", "Parameters", "Output", "Assign", "ResultSelector",
		"Retry", "Catch", "ItemProcessor", "Iterator", "ItemsPath", "Items", "ItemSelector", "ItemReader",
		"ItemBatcher", "ResultWriter", "MaxConcurrency", "MaxConcurrencyPath",
		"ToleratedFailurePercentage", "ToleratedFailurePercentagePath",
		"ToleratedFailureCount", "ToleratedFailureCountPath", "Label", "Next", "End"),
	"Choice":  set("InputPath", "OutputPath", "Output", "Assign", "Choices", "Default"),
	"Succeed": set("InputPath", "OutputPath", "Output"),
	"Fail":    set("Error", "Cause", "ErrorPath", "CausePath"),
}

// jsonataOnly and jsonPathOnly are the fields a state may carry only in one
// query language, in the order their diagnostics are reported.
var (
	jsonataOnly  = []string{"Output", "Arguments", "Items"}
	jsonPathOnly = []string{"InputPath", "OutputPath", "ResultPath", "ResultSelector", "Parameters", "Result",
		"ItemsPath", "MaxConcurrencyPath", "TimeoutSecondsPath", "HeartbeatSecondsPath", "SecondsPath",
		"TimestampPath", "ErrorPath", "CausePath", "ToleratedFailurePercentagePath", "ToleratedFailureCountPath"}
)

// topFields are the fields of a state machine; nested machines (Parallel
// branches, Map processors) accept only Comment, StartAt and States, plus
// ProcessorConfig in a Map.
var topFields = set("Comment", "QueryLanguage", "StartAt", "TimeoutSeconds", "Version", "States")

// Retrier and catcher fields.
var (
	retrierFields = set("ErrorEquals", "IntervalSeconds", "MaxAttempts", "BackoffRate", "MaxDelaySeconds", "JitterStrategy", "Comment")
	catcherFields = set("ErrorEquals", "Next", "ResultPath", "Output", "Assign", "Comment")
)

// languageFields reports, in list order, the allowed fields of obj that
// belong to the other query language. AWS locates these at the object, not
// the field.
func (c *checker) languageFields(obj map[string]any, loc, ql string, allowed map[string]bool) {
	fields := jsonPathOnly
	if ql == jsonPath {
		fields = jsonataOnly
	}
	for _, f := range fields {
		if has(obj, f) && allowed[f] {
			c.wrongLanguage(loc, f, ql)
		}
	}
}

func (c *checker) wrongLanguage(loc, field, ql string) {
	other := jsonPath
	if ql == jsonPath {
		other = jsonata
	}
	c.schema(loc, "The QueryLanguage is set to '%s', but field '%s' is only supported for the '%s' QueryLanguage", ql, field, other)
}

// unsupported reports the fields of obj outside allowed, in sorted order.
func (c *checker) unsupported(obj map[string]any, loc string, allowed ...map[string]bool) {
	for _, f := range sortedKeys(obj) {
		ok := false
		for _, a := range allowed {
			ok = ok || a[f]
		}
		if !ok {
			c.schema(loc, "Field '%s' is not supported", f)
		}
	}
}

func set(items ...string) map[string]bool {
	m := make(map[string]bool, len(items))
	for _, it := range items {
		m[it] = true
	}
	return m
}
