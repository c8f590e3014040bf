package sfnapi_test

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
)

// TestMemberOrderOverTheWire checks, through the real SDK client, that
// DescribeExecution and GetExecutionHistory give every input and output
// with the members in the order the execution produced them.
func TestMemberOrderOverTheWire(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	const input = `{"zeta":{"y":1,"b":2},"alpha":[{"k":1,"c":2}],"mid":"m"}`
	arn := f.start(f.create(`{"StartAt":"Shape","States":{
		"Shape":{"Type":"Pass","Parameters":{"z.$":"$.zeta","first":1,"a.$":"$.alpha[0]"},"ResultPath":"$.shaped","Next":"Replace"},
		"Replace":{"Type":"Pass","Result":{"q":1,"c":2},"ResultPath":"$.zeta","End":true}}}`), input)
	const shaped = `{"zeta":{"y":1,"b":2},"alpha":[{"k":1,"c":2}],"mid":"m","shaped":{"z":{"y":1,"b":2},"first":1,"a":{"k":1,"c":2}}}`
	const output = `{"zeta":{"q":1,"c":2},"alpha":[{"k":1,"c":2}],"mid":"m","shaped":{"z":{"y":1,"b":2},"first":1,"a":{"k":1,"c":2}}}`

	x := f.finished(arn)
	if got := aws.ToString(x.Input); got != input {
		t.Errorf("DescribeExecution input\n got  %s\n want %s", got, input)
	}
	if got := aws.ToString(x.Output); got != output {
		t.Errorf("DescribeExecution output\n got  %s\n want %s", got, output)
	}

	var got []string
	for _, ev := range f.history(arn).Events {
		switch {
		case ev.ExecutionStartedEventDetails != nil:
			got = append(got, aws.ToString(ev.ExecutionStartedEventDetails.Input))
		case ev.StateEnteredEventDetails != nil:
			got = append(got, aws.ToString(ev.StateEnteredEventDetails.Input))
		case ev.StateExitedEventDetails != nil:
			got = append(got, aws.ToString(ev.StateExitedEventDetails.Output))
		case ev.ExecutionSucceededEventDetails != nil:
			got = append(got, aws.ToString(ev.ExecutionSucceededEventDetails.Output))
		}
	}
	want := []string{input, input, shaped, shaped, output, output}
	if len(got) != len(want) {
		t.Fatalf("history texts = %q, want %d of them", got, len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("history text %d\n got  %s\n want %s", i, got[i], want[i])
		}
	}
}
