package sfnapi_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	"github.com/aws/aws-sdk-go-v2/service/sfn/types"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/sfnapprovals/approvals/sfnlocal"
	"github.com/sfnapprovals/approvals/sfnlocal/integrations"
	"github.com/sfnapprovals/approvals/sfnlocal/integrations/lambda"
	"github.com/sfnapprovals/approvals/sfnlocal/sfnapi"
	"github.com/sfnapprovals/approvals/sfnlocal/task"
)

// noHostPrefix keeps the SDK from calling TestState on "sync-127.0.0.1":
// the operation's host prefix, which a local endpoint cannot take (the
// AWS CLI: AWS_DISABLE_HOST_PREFIX_INJECTION=true).
func noHostPrefix(o *sfn.Options) {
	o.APIOptions = append(o.APIOptions, func(stack *middleware.Stack) error {
		return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("NoHostPrefix",
			func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
				return next.HandleInitialize(smithyhttp.DisableEndpointHostPrefix(ctx, true), in)
			}), middleware.Before)
	})
}

// The outcomes AWS recorded for TestState (LocalStack's AWS-validated
// test_state/test_test_state_scenarios: BASE_PASS_STATE,
// BASE_RESULT_PASS_STATE, IO_PASS_STATE, BASE_FAIL_STATE,
// BASE_SUCCEED_STATE, BASE_CHOICE_STATE, test_state_task_catch_error,
// test_base_map_state_inspect, test_state_with_variables), through the
// real SDK client: status, output, error, cause, next state and, at
// DEBUG, the inspection data. The definitions are rebuilt from the
// recorded outputs.
func TestTestStateOutcomes(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	const hello = `{"Value":"HelloWorld"}`
	const ioInput = `{"initialData":{"fieldFromInput":"value from input","otherField":"other"},"unrelatedData":{"someOtherField":1234}}`
	tests := []struct {
		name, definition, input, variables, role string
		mock                                     *types.MockInput
		config                                   *types.TestStateConfiguration
		want                                     sfn.TestStateOutput
		wantOutput                               string
		wantInspection                           map[string]string // member → JSON text, or "*" for any
		wantDetails                              *types.InspectionErrorDetails
	}{
		{name: "Pass", definition: `{"Type":"Pass","End":true}`, input: hello,
			want: sfn.TestStateOutput{Status: types.TestExecutionStatusSucceeded}, wantOutput: hello,
			wantInspection: map[string]string{"input": hello, "afterInputPath": hello, "afterParameters": hello, "afterResultSelector": hello, "afterResultPath": hello}},
		{name: "Pass with Result", definition: `{"Type":"Pass","Result":{"resultKey":"result value"},"End":true}`, input: hello,
			want: sfn.TestStateOutput{Status: types.TestExecutionStatusSucceeded}, wantOutput: `{"resultKey":"result value"}`,
			wantInspection: map[string]string{"input": hello, "result": `{"resultKey":"result value"}`, "afterResultSelector": `{"resultKey":"result value"}`, "afterResultPath": `{"resultKey":"result value"}`}},
		{name: "Pass with InputPath, Parameters and ResultPath",
			definition: `{"Type":"Pass","InputPath":"$.initialData","Parameters":{"staticValue":"some value","inputValue.$":"$.fieldFromInput"},"ResultPath":"$.modifiedData","End":true}`,
			input:      ioInput,
			want:       sfn.TestStateOutput{Status: types.TestExecutionStatusSucceeded},
			wantOutput: `{"initialData":{"fieldFromInput":"value from input","otherField":"other"},"unrelatedData":{"someOtherField":1234},"modifiedData":{"staticValue":"some value","inputValue":"value from input"}}`,
			wantInspection: map[string]string{"input": ioInput, "afterInputPath": `{"fieldFromInput":"value from input","otherField":"other"}`,
				"afterParameters": `{"staticValue":"some value","inputValue":"value from input"}`, "afterResultSelector": `{"staticValue":"some value","inputValue":"value from input"}`,
				"afterResultPath": `{"initialData":{"fieldFromInput":"value from input","otherField":"other"},"unrelatedData":{"someOtherField":1234},"modifiedData":{"staticValue":"some value","inputValue":"value from input"}}`}},
		{name: "Fail", definition: `{"Type":"Fail","Error":"SomeFailure","Cause":"This state machines raises a 'SomeFailure' failure."}`, input: hello,
			want:           sfn.TestStateOutput{Status: types.TestExecutionStatusFailed, Error: aws.String("SomeFailure"), Cause: aws.String("This state machines raises a 'SomeFailure' failure.")},
			wantInspection: map[string]string{"input": hello, "afterInputPath": hello}},
		{name: "Succeed", definition: `{"Type":"Succeed"}`, input: hello,
			want: sfn.TestStateOutput{Status: types.TestExecutionStatusSucceeded}, wantOutput: hello,
			wantInspection: map[string]string{"input": hello, "afterInputPath": hello}},
		{name: "Choice", input: `{"type":"Private","value":22}`,
			definition: `{"Type":"Choice","Choices":[{"Variable":"$.type","StringEquals":"Public","Next":"Public"},
				{"And":[{"Variable":"$.value","NumericGreaterThanEquals":20},{"Variable":"$.value","NumericLessThan":30}],"Next":"ValueInTwenties"}],"Default":"DefaultState"}`,
			want: sfn.TestStateOutput{Status: types.TestExecutionStatusSucceeded, NextState: aws.String("ValueInTwenties")}, wantOutput: `{"type":"Private","value":22}`,
			wantInspection: map[string]string{"input": `{"type":"Private","value":22}`, "afterInputPath": `{"type":"Private","value":22}`}},
		{name: "Task, mocked error caught", input: hello,
			definition: `{"Type":"Task","QueryLanguage":"JSONata","Resource":"arn:aws:states:::lambda:invoke","Arguments":{"FunctionName":"foo","Payload":"bar"},
				"Catch":[{"ErrorEquals":["MockException"],"Output":{"errorOutput":"{% $states.errorOutput %}"},"Next":"HandleMockError"},
				         {"ErrorEquals":["States.TaskFailed"],"Next":"HandleThreshold"}],"End":true}`,
			mock:           &types.MockInput{ErrorOutput: &types.MockErrorOutput{Error: aws.String("MockException"), Cause: aws.String("Mock the cause of the error.")}},
			want:           sfn.TestStateOutput{Status: types.TestExecutionStatusCaughtError, Error: aws.String("MockException"), Cause: aws.String("Mock the cause of the error."), NextState: aws.String("HandleMockError")},
			wantOutput:     `{"errorOutput":{"Error":"MockException","Cause":"Mock the cause of the error."}}`,
			wantInspection: map[string]string{"input": hello, "afterArguments": `{"FunctionName":"foo","Payload":"bar"}`},
			wantDetails:    &types.InspectionErrorDetails{CatchIndex: aws.Int32(0)}},
		{name: "Task, mocked error retriable", input: hello,
			definition: `{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke","Parameters":{"FunctionName":"foo"},
				"Retry":[{"ErrorEquals":["Other"]},{"ErrorEquals":["MockException"],"IntervalSeconds":3,"BackoffRate":2,"MaxAttempts":3}],"End":true}`,
			mock:           &types.MockInput{ErrorOutput: &types.MockErrorOutput{Error: aws.String("MockException"), Cause: aws.String("c")}},
			config:         &types.TestStateConfiguration{RetrierRetryCount: aws.Int32(1)},
			want:           sfn.TestStateOutput{Status: types.TestExecutionStatusRetriable, Error: aws.String("MockException"), Cause: aws.String("c")},
			wantInspection: map[string]string{"input": hello, "afterInputPath": hello, "afterParameters": `{"FunctionName":"foo"}`},
			wantDetails:    &types.InspectionErrorDetails{RetryIndex: aws.Int32(1), RetryBackoffIntervalSeconds: aws.Int32(6)}},
		{name: "Task, retries used up", input: hello,
			definition: `{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke","Parameters":{"FunctionName":"foo"},
				"Retry":[{"ErrorEquals":["MockException"],"MaxAttempts":2}],"End":true}`,
			mock:           &types.MockInput{ErrorOutput: &types.MockErrorOutput{Error: aws.String("MockException"), Cause: aws.String("c")}},
			config:         &types.TestStateConfiguration{RetrierRetryCount: aws.Int32(2)},
			want:           sfn.TestStateOutput{Status: types.TestExecutionStatusFailed, Error: aws.String("MockException"), Cause: aws.String("c")},
			wantInspection: map[string]string{"input": hello, "afterInputPath": hello, "afterParameters": `{"FunctionName":"foo"}`}},
		{name: "Task on a real function", input: `{"request":{"id":"r1"}}`, role: roleArn,
			definition: `{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke","Parameters":{"FunctionName":"notifier","Payload":{"token":"t","request.$":"$.request"}},
				"ResultSelector":{"posted.$":"$.Payload.posted"},"ResultPath":"$.result","Next":"Done"}`,
			want:       sfn.TestStateOutput{Status: types.TestExecutionStatusSucceeded, NextState: aws.String("Done")},
			wantOutput: `{"request":{"id":"r1"},"result":{"posted":true}}`,
			wantInspection: map[string]string{"input": `{"request":{"id":"r1"}}`, "afterInputPath": `{"request":{"id":"r1"}}`,
				"afterParameters": `{"FunctionName":"notifier","Payload":{"token":"t","request":{"id":"r1"}}}`,
				"result":          "*", "afterResultSelector": `{"posted":true}`, "afterResultPath": `{"request":{"id":"r1"},"result":{"posted":true}}`}},
		{name: "Map, mocked result", input: `{"Values":[1,2,3]}`,
			definition: `{"Type":"Map","QueryLanguage":"JSONata","MaxConcurrency":1,"Items":"{% $states.input.Values %}",
				"ItemProcessor":{"StartAt":"P","States":{"P":{"Type":"Pass","End":true}}},"Output":{"input":"{% $states.input %}","result":"{% $states.result %}"},"End":true}`,
			mock:           &types.MockInput{Result: aws.String(`[1,1,1]`)},
			want:           sfn.TestStateOutput{Status: types.TestExecutionStatusSucceeded},
			wantOutput:     `{"input":{"Values":[1,2,3]},"result":[1,1,1]}`,
			wantInspection: map[string]string{"input": `{"Values":[1,2,3]}`}},
		{name: "variables", input: `{"input_values":[1,2,3]}`, variables: `{"var_input_value":"test_value","var_constant_1":10}`,
			definition: `{"Type":"Pass","QueryLanguage":"JSONata","Output":{"ja_var_access":"{% $var_input_value %}","ja_expr":"{% $var_constant_1 + $sum($states.input.input_values) %}"},"End":true}`,
			want:       sfn.TestStateOutput{Status: types.TestExecutionStatusSucceeded}, wantOutput: `{"ja_var_access":"test_value","ja_expr":16}`,
			wantInspection: map[string]string{"input": `{"input_values":[1,2,3]}`, "variables": `{"var_input_value":"test_value","var_constant_1":10}`}},
	}
	for _, tt := range tests {
		for _, level := range []types.InspectionLevel{types.InspectionLevelInfo, types.InspectionLevelDebug} {
			t.Run(tt.name+"/"+string(level), func(t *testing.T) {
				t.Parallel()
				in := &sfn.TestStateInput{Definition: aws.String(tt.definition), Input: aws.String(tt.input), InspectionLevel: level,
					Mock: tt.mock, StateConfiguration: tt.config}
				if tt.variables != "" {
					in.Variables = aws.String(tt.variables)
				}
				if tt.role != "" {
					in.RoleArn = aws.String(tt.role)
				}
				got, err := f.client.TestState(testContext(t), in, noHostPrefix)
				if err != nil {
					t.Fatalf("TestState: %v", err)
				}
				if got.Status != tt.want.Status || aws.ToString(got.Error) != aws.ToString(tt.want.Error) ||
					aws.ToString(got.Cause) != aws.ToString(tt.want.Cause) || aws.ToString(got.NextState) != aws.ToString(tt.want.NextState) {
					t.Errorf("got status %s error %q cause %q next %q, want %s %q %q %q", got.Status, aws.ToString(got.Error), aws.ToString(got.Cause),
						aws.ToString(got.NextState), tt.want.Status, aws.ToString(tt.want.Error), aws.ToString(tt.want.Cause), aws.ToString(tt.want.NextState))
				}
				switch {
				case tt.wantOutput == "" && got.Output != nil:
					t.Errorf("output %s, want none", aws.ToString(got.Output))
				case tt.wantOutput != "":
					jsonEqual(t, aws.ToString(got.Output), tt.wantOutput)
				}
				if level == types.InspectionLevelInfo {
					if got.InspectionData != nil {
						t.Errorf("INFO has inspection data %+v", got.InspectionData)
					}
					return
				}
				compareInspection(t, got.InspectionData, tt.wantInspection, tt.wantDetails)
			})
		}
	}
}

func compareInspection(t *testing.T, d *types.InspectionData, want map[string]string, details *types.InspectionErrorDetails) {
	t.Helper()
	if d == nil {
		t.Fatal("no inspection data")
	}
	got := map[string]*string{"input": d.Input, "afterInputPath": d.AfterInputPath, "afterParameters": d.AfterParameters,
		"afterArguments": d.AfterArguments, "result": d.Result, "afterResultSelector": d.AfterResultSelector,
		"afterResultPath": d.AfterResultPath, "variables": d.Variables}
	for k, v := range got {
		w, wanted := want[k]
		switch {
		case !wanted && v != nil:
			t.Errorf("inspection %s = %s, want none", k, *v)
		case wanted && v == nil:
			t.Errorf("inspection %s missing, want %s", k, w)
		case w == "*": // present, whatever it holds
		case wanted:
			jsonEqual(t, *v, w)
		}
	}
	gd, _ := json.Marshal(d.ErrorDetails)
	wd, _ := json.Marshal(details)
	if string(gd) != string(wd) {
		t.Errorf("errorDetails %s, want %s", gd, wd)
	}
}

// A Map state tested under a mock shows its MaxConcurrency and tolerance,
// as AWS records (test_base_map_state_inspect: 0 when unset).
func TestTestStateMapInspection(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	got, err := f.client.TestState(testContext(t), &sfn.TestStateInput{
		Definition: aws.String(`{"Type":"Map","QueryLanguage":"JSONata","ToleratedFailurePercentage":1,"ItemProcessor":{"ProcessorConfig":{"Mode":"DISTRIBUTED","ExecutionType":"STANDARD"},
			"StartAt":"P","States":{"P":{"Type":"Pass","End":true}}},"Items":"{% $states.input.Values %}","End":true}`),
		Input: aws.String(`{"Values":[1,2,3]}`), InspectionLevel: types.InspectionLevelDebug, Mock: &types.MockInput{Result: aws.String(`[1,1,1]`)},
	}, noHostPrefix)
	if err != nil {
		t.Fatalf("TestState: %v", err)
	}
	d := got.InspectionData
	if d == nil || aws.ToInt32(d.MaxConcurrency) != 0 || d.MaxConcurrency == nil || aws.ToFloat32(d.ToleratedFailurePercentage) != 1 {
		t.Errorf("inspection %+v, want maxConcurrency 0 and toleratedFailurePercentage 1", d)
	}
}

// TestState's refusals, worded as AWS words them (LocalStack's
// AWS-validated test_state_mock_validation and
// test_base_lambda_service_task_state_no_role_arn_validation).
func TestTestStateRefusals(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	mapDef := `{"Type":"Map","ItemProcessor":{"StartAt":"P","States":{"P":{"Type":"Pass","End":true}}},"End":true}`
	parallelDef := `{"Type":"Parallel","Branches":[{"StartAt":"A","States":{"A":{"Type":"Pass","End":true}}},{"StartAt":"B","States":{"B":{"Type":"Pass","End":true}}}],"End":true}`
	taskDef := `{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke","Parameters":{"FunctionName":"notifier"},"End":true}`
	result := func(s string) *types.MockInput { return &types.MockInput{Result: aws.String(s)} }
	tests := []struct {
		name      string
		in        sfn.TestStateInput
		code, msg string
	}{
		{"Map without a mock", sfn.TestStateInput{Definition: aws.String(mapDef)}, "InvalidDefinition",
			"TestState API does not support Map or Parallel states. Supported state types include: [Task, Wait, Pass, Succeed, Fail, Choice]"},
		{"Parallel without a mock", sfn.TestStateInput{Definition: aws.String(parallelDef)}, "InvalidDefinition",
			"TestState API does not support Map or Parallel states. Supported state types include: [Task, Wait, Pass, Succeed, Fail, Choice]"},
		{"a mocked Pass", sfn.TestStateInput{Definition: aws.String(`{"Type":"Pass","End":true}`), Mock: result(`{}`)}, "ValidationException",
			"State type 'Pass' is not supported when a mock is specified"},
		{"a mocked Succeed", sfn.TestStateInput{Definition: aws.String(`{"Type":"Succeed"}`), Mock: &types.MockInput{ErrorOutput: &types.MockErrorOutput{Error: aws.String("E")}}}, "ValidationException",
			"State type 'Succeed' is not supported when a mock is specified"},
		{"result and errorOutput", sfn.TestStateInput{Definition: aws.String(taskDef), Mock: &types.MockInput{Result: aws.String(`{}`), ErrorOutput: &types.MockErrorOutput{Error: aws.String("E")}}}, "ValidationException",
			"A test mock should have only one of the following fields: [result, errorOutput]."},
		{"revealSecrets with a mock", sfn.TestStateInput{Definition: aws.String(taskDef), RevealSecrets: true, Mock: result(`{}`)}, "ValidationException",
			"TestState does not support RevealSecrets when a mock is specified."},
		{"a Map's mocked result not an array", sfn.TestStateInput{Definition: aws.String(mapDef), Mock: result(`{}`)}, "ValidationException",
			"Mocked result must be an array."},
		{"a Parallel's mocked result not an array", sfn.TestStateInput{Definition: aws.String(parallelDef), Mock: result(`{}`)}, "ValidationException",
			"Mocked result must be an array."},
		{"a Parallel's mocked result of the wrong size", sfn.TestStateInput{Definition: aws.String(parallelDef), Mock: result(`[1]`)}, "ValidationException",
			"Mocked result must contain the same number of items as number of Parallel branches."},
		{"a Task without a role", sfn.TestStateInput{Definition: aws.String(taskDef)}, "ValidationException",
			"RoleArn must be specified when testing a Task state"},
		{"a definition that is not a state", sfn.TestStateInput{Definition: aws.String(`{"Type":"Nope"}`)}, "InvalidDefinition", ""},
		{"input that is not JSON", sfn.TestStateInput{Definition: aws.String(`{"Type":"Pass","End":true}`), Input: aws.String(`{`)}, "InvalidExecutionInput", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := f.client.TestState(testContext(t), &tt.in, noHostPrefix)
			wantCode(t, err, tt.code)
			var apiErr smithy.APIError
			if tt.msg != "" && errors.As(err, &apiErr) && apiErr.ErrorMessage() != tt.msg {
				t.Errorf("message %q, want %q", apiErr.ErrorMessage(), tt.msg)
			}
		})
	}
}

// A TestState of a Task that takes longer than the server's ReadTimeout
// and WriteTimeout still answers: once a request has arrived, no server
// timeout cuts its response. When the client goes away, the run stops and
// the function's call is cancelled.
func TestTestStateOutlivesServerTimeouts(t *testing.T) {
	t.Parallel()
	fns := lambda.New(nil)
	cancelled := make(chan struct{})
	fns.Register("slow", func(ctx context.Context, _ []byte) ([]byte, error) {
		select {
		case <-time.After(500 * time.Millisecond): // a function slower than the server's timeouts
			return []byte(`{"done":true}`), nil
		case <-ctx.Done():
			close(cancelled)
			return nil, ctx.Err()
		}
	})
	engine := sfnlocal.New(sfnlocal.Options{Integrations: []task.Integration{integrations.NewRouter(nil, fns)}})
	t.Cleanup(engine.Close)
	srv := httptest.NewUnstartedServer(sfnapi.NewHandler(engine))
	srv.Config.ReadTimeout = 100 * time.Millisecond
	srv.Config.WriteTimeout = 100 * time.Millisecond
	srv.Config.IdleTimeout = time.Minute
	srv.Start()
	t.Cleanup(srv.Close)
	client := newClient(srv.URL)
	in := &sfn.TestStateInput{RoleArn: aws.String(roleArn),
		Definition: aws.String(`{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke","Parameters":{"FunctionName":"slow"},"OutputPath":"$.Payload","End":true}`)}
	got, err := client.TestState(testContext(t), in, noHostPrefix)
	if err != nil || got.Status != types.TestExecutionStatusSucceeded {
		t.Fatalf("TestState: %v, %+v", err, got)
	}
	jsonEqual(t, aws.ToString(got.Output), `{"done":true}`)

	ctx, cancel := context.WithCancel(testContext(t))
	go func() {
		<-time.After(50 * time.Millisecond)
		cancel()
	}()
	if _, err := client.TestState(ctx, in, noHostPrefix); err == nil {
		t.Fatal("TestState with a cancelled client succeeded")
	}
	select {
	case <-cancelled:
	case <-testContext(t).Done():
		t.Fatal("the function's call was not cancelled when the client went away")
	}
}
