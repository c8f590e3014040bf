package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	"github.com/aws/aws-sdk-go-v2/service/sfn/types"

	"github.com/sfnapprovals/approvals/internal/s3local"
)

// A distributed Map reads its items from the S3 at AWS_ENDPOINT_URL_S3,
// runs each as an ECS task on an -ecs-task command, and writes its results
// back: the exit code decides each item.
func TestRunReadsS3AndRunsECSTasks(t *testing.T) {
	t.Parallel()
	store, err := s3local.Start(s3local.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	c := awss3.New(awss3.Options{Region: "us-east-1", BaseEndpoint: aws.String(store.URL()), UsePathStyle: true,
		Credentials: credentials.NewStaticCredentialsProvider("local", "local", "")})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := c.CreateBucket(ctx, &awss3.CreateBucketInput{Bucket: aws.String("batch")}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.PutObject(ctx, &awss3.PutObjectInput{Bucket: aws.String("batch"), Key: aws.String("in/items.csv"),
		Body: strings.NewReader("id,code\na,0\nb,3\nc,0\n")}); err != nil {
		t.Fatal(err)
	}
	s := startRunEnv(t, map[string]string{"AWS_ENDPOINT_URL_S3": store.URL()}, "-ecs-task", "worker=sh -c")
	client := newClient(s.url)
	def := `{"StartAt":"Process","States":{"Process":{"Type":"Map","ToleratedFailurePercentage":100,
		"ItemReader":{"Resource":"arn:aws:states:::s3:getObject","ReaderConfig":{"InputType":"CSV","CSVHeaderLocation":"FIRST_ROW"},
			"Parameters":{"Bucket":"batch","Key":"in/items.csv"}},
		"ItemProcessor":{"ProcessorConfig":{"Mode":"DISTRIBUTED","ExecutionType":"STANDARD"},"StartAt":"Work","States":{"Work":{
			"Type":"Task","Resource":"arn:aws:states:::ecs:runTask.sync","Parameters":{"TaskDefinition":"worker",
				"Overrides":{"ContainerOverrides":[{"Name":"worker","Command":["exit $CODE"],"Environment":[{"Name":"CODE","Value.$":"$.code"}]}]}},
			"ResultSelector":{"exit.$":"$.Containers[0].ExitCode"},"End":true}}},
		"ResultWriter":{"Resource":"arn:aws:states:::s3:putObject","Parameters":{"Bucket":"batch","Prefix":"out"}},"End":true}}}`
	sm, err := client.CreateStateMachine(ctx, &sfn.CreateStateMachineInput{Name: aws.String("csv-workers"), Definition: aws.String(def), RoleArn: aws.String("arn:aws:iam::123456789012:role/r")})
	if err != nil {
		t.Fatal(err)
	}
	x, err := client.StartExecution(ctx, &sfn.StartExecutionInput{StateMachineArn: sm.StateMachineArn, Input: aws.String("{}")})
	if err != nil {
		t.Fatal(err)
	}
	var d *sfn.DescribeExecutionOutput
	for {
		if d, err = client.DescribeExecution(ctx, &sfn.DescribeExecutionInput{ExecutionArn: x.ExecutionArn}); err != nil {
			t.Fatal(err)
		}
		if d.Status != types.ExecutionStatusRunning {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the execution is still running; logs:\n%s", s.logs)
		case <-time.After(20 * time.Millisecond):
		}
	}
	if d.Status != types.ExecutionStatusSucceeded {
		t.Fatalf("status %s: %s %s; logs:\n%s", d.Status, aws.ToString(d.Error), aws.ToString(d.Cause), s.logs)
	}
	var out struct{ ResultWriterDetails struct{ Bucket, Key string } }
	if err := json.Unmarshal([]byte(aws.ToString(d.Output)), &out); err != nil || out.ResultWriterDetails.Bucket != "batch" || !strings.HasPrefix(out.ResultWriterDetails.Key, "out/") {
		t.Fatalf("output %s", aws.ToString(d.Output))
	}
	read := func(key string) string {
		o, err := c.GetObject(ctx, &awss3.GetObjectInput{Bucket: aws.String("batch"), Key: aws.String(key)})
		if err != nil {
			t.Fatalf("%s: %v", key, err)
		}
		defer o.Body.Close()
		var b strings.Builder
		buf := make([]byte, 4096)
		for {
			n, err := o.Body.Read(buf)
			b.Write(buf[:n])
			if err != nil {
				return b.String()
			}
		}
	}
	var m struct {
		ResultFiles struct{ FAILED, SUCCEEDED []struct{ Key string } }
	}
	if err := json.Unmarshal([]byte(read(out.ResultWriterDetails.Key)), &m); err != nil || len(m.ResultFiles.FAILED) != 1 || len(m.ResultFiles.SUCCEEDED) != 1 {
		t.Fatalf("manifest %+v (%v)", m, err)
	}
	var failed []struct{ Error, Cause, Input string }
	_ = json.Unmarshal([]byte(read(m.ResultFiles.FAILED[0].Key)), &failed)
	if len(failed) != 1 || failed[0].Error != "States.TaskFailed" || failed[0].Input != `{"id":"b","code":"3"}` || !strings.Contains(failed[0].Cause, `"ExitCode":3`) {
		t.Errorf("FAILED records %+v", failed)
	}
	var succeeded []struct{ Output string }
	_ = json.Unmarshal([]byte(read(m.ResultFiles.SUCCEEDED[0].Key)), &succeeded)
	if len(succeeded) != 2 || succeeded[0].Output != `{"exit":0}` {
		t.Errorf("SUCCEEDED records %+v", succeeded)
	}
}
