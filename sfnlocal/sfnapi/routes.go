package sfnapi

// routes lists every operation served, by the name after
// "AWSStepFunctions." in X-Amz-Target. Any other target is answered with
// UnknownOperationException.
func (h *handler) routes() map[string]operation {
	return map[string]operation{
		// State machines (machines.go)
		"CreateStateMachine":             h.createStateMachine,
		"DescribeStateMachine":           h.describeStateMachine,
		"UpdateStateMachine":             h.updateStateMachine,
		"DeleteStateMachine":             h.deleteStateMachine,
		"ListStateMachines":              h.listStateMachines,
		"ValidateStateMachineDefinition": h.validateStateMachineDefinition, // validate.go
		"TestState":                      h.testState,                      // teststate.go

		// Executions (executions.go, history.go)
		"StartExecution":                   h.startExecution,
		"DescribeExecution":                h.describeExecution,
		"DescribeStateMachineForExecution": h.describeStateMachineForExecution,
		"StopExecution":                    h.stopExecution,
		"ListExecutions":                   h.listExecutions,
		"GetExecutionHistory":              h.getExecutionHistory,

		// Callbacks (tasks.go)
		"SendTaskSuccess":   h.sendTaskSuccess,
		"SendTaskFailure":   h.sendTaskFailure,
		"SendTaskHeartbeat": h.sendTaskHeartbeat,
	}
}
