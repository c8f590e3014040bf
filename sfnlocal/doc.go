// Package sfnlocal is a local AWS Step Functions engine: it runs Amazon
// States Language definitions with AWS's semantics (data flow, Retry and
// Catch, callbacks with task tokens, execution history), in process or
// behind the Step Functions API (cmd/sfn-local), so the approvals bot, the
// notifier and users' own tests talk to it through the real aws-sdk-go-v2
// client.
//
// Conventions shared by its subpackages: a JSON value is a
// *jsonvalue.Object, []any, string, json.Number, bool or nil (see
// jsonata/jsonvalue). Objects keep their members in order, as Step
// Functions does: the text's order for inputs and task results, the
// template's order for Parameters, ResultSelector, ItemSelector,
// Arguments, Output and Assign, in place for a key ResultPath or
// States.JsonMerge replaces and last for a key they add. Numbers keep their
// exact text. Equality (Choice rules, filters, ArrayContains) compares
// objects by content, whatever their order. Values are never changed once
// built, so executions, Parallel branches and Map iterations share them
// freely; whatever derives a new value copies what it changes.
//
// The Engine is the in-process service: its methods (CreateStateMachine,
// StartExecution, SendTaskSuccess, GetExecutionHistory, …) take and return
// the fields of the Step Functions API operation of the same name, and
// fail with an *APIError carrying AWS's error code, so an API server maps
// them one to one. TestState runs one state once, as the operation of
// that name does, and records no execution. Executions run in the
// background on the engine's Clock
// (a FakeClock in tests); a paused execution holds no goroutine. Ended
// executions are remembered, histories and all, up to
// Options.MaxFinishedExecutions (a local memory bound; AWS keeps them 90
// days) and until their state machine is deleted; then they answer
// ExecutionDoesNotExist.
//
// With Options.Events set, the engine also emits the execution status
// change events AWS sends EventBridge (RUNNING, then the final status of
// every Standard execution); package eventrule delivers them to a Lambda
// function as an EventBridge rule does.
//
// Whatever the definition and input, an execution is bounded as on AWS.
// Its history holds at most 25,000 events, Map iterations and Parallel
// branches included: an execution that needs more fails with
// States.Runtime, its ExecutionFailed being event 25,000 (a distributed
// Map child run, an execution of its own on AWS, counts its own events
// and fails the same way). A state's output, its input after Parameters
// or Arguments and the variables it assigns are limited to 256 KiB of
// JSON text (States.DataLimitExceeded, which no Retry or Catch takes), as
// is a task's result (a task failure, which Catch takes). Waits and
// timeouts too long for a time.Duration last past any execution's time
// limit. An evaluator that panics fails its state with an error rather
// than the process.
package sfnlocal
