package deploy

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/cloudformation"
	cfntypes "github.com/aws/aws-sdk-go-v2/service/cloudformation/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/aws/aws-sdk-go-v2/service/sfn"

	"github.com/sfnapprovals/approvals/workflow/definitions"
)

// motoLacks are the resource types of cloudformation.yaml that moto's
// CloudFormation (moto 5.2) does not implement: it completes the stack
// without creating them, and lists no resource for them. The test checks
// that exactly these are missing, so a moto that learns one fails here
// until it is taken off the list. cfn-lint and the strict goformation
// parse (goformation_test.go) check their properties instead.
var motoLacks = []string{
	"AWS::CloudWatch::Alarm",
	"AWS::Lambda::EventInvokeConfig",
	"AWS::Logs::MetricFilter",
	"AWS::SQS::QueuePolicy",
}

// prerequisites is what the stack needs that a deployer brings: a VPC with
// two subnets, and a customer managed key (so that the KmsKeyArn branches
// are created too). The Slack secret is created through Secrets Manager's
// API, as deploy/README.md does.
const prerequisites = `AWSTemplateFormatVersion: "2010-09-09"
Resources:
  Key:
    Type: AWS::KMS::Key
    Properties:
      KeyPolicy:
        Version: "2012-10-17"
        Statement:
          - Effect: Allow
            Principal: { AWS: !Sub "arn:${AWS::Partition}:iam::${AWS::AccountId}:root" }
            Action: kms:*
            Resource: "*"
  Vpc:
    Type: AWS::EC2::VPC
    Properties: { CidrBlock: 10.0.0.0/16 }
  SubnetA:
    Type: AWS::EC2::Subnet
    Properties: { VpcId: !Ref Vpc, CidrBlock: 10.0.1.0/24 }
  SubnetB:
    Type: AWS::EC2::Subnet
    Properties: { VpcId: !Ref Vpc, CidrBlock: 10.0.2.0/24 }
Outputs:
  KeyArn: { Value: !GetAtt Key.Arn }
  VpcId: { Value: !Ref Vpc }
  Subnets: { Value: !Join [",", [!Ref SubnetA, !Ref SubnetB]] }
`

// TestStackCreatesInMoto creates the whole stack, with a customer managed
// key and all four shipped workflows, in moto's CloudFormation through the
// SDK's CloudFormation client, then updates it with a new notifier code
// key. It uploads stand-ins for make package's zips (one executable
// bootstrap each) and the shipped definitions, creates the secret and the
// network, waits for CREATE_COMPLETE, checks that every resource the
// template holds for this deployment was created (all but motoLacks) and
// what DynamoDB, Lambda and Step Functions then report, and waits for
// UPDATE_COMPLETE with the notifier's code at the new key.
//
// What moto does not check: it runs neither the Lambdas nor the state
// machines, and ignores DefinitionS3Location and DefinitionSubstitutions
// (its state machines have an empty definition; engine_test.go creates
// the substituted definitions on the local engine instead); it does not
// evaluate the template's Rules or parameter patterns, check that a
// function's code is in the bucket (the test reads the key back instead),
// enforce IAM,
// apply the KMS key to the table or the log groups, keep a function's
// Architectures (it reports x86_64), or start ECS tasks; and it creates
// no motoLacks resource.
//
// It needs moto_server on the PATH (pip install 'moto[server]'); without
// it the test is skipped, except in CI (CI set), where it fails.
func TestStackCreatesInMoto(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cfg := aws.Config{
		Region:       region,
		Credentials:  credentials.NewStaticCredentialsProvider("moto", "moto", ""),
		BaseEndpoint: aws.String(startMoto(t)),
	}
	cfn := cloudformation.NewFromConfig(cfg)

	// What the deployer brings.
	secret, err := secretsmanager.NewFromConfig(cfg).CreateSecret(ctx, &secretsmanager.CreateSecretInput{
		Name:         aws.String("approvals/slack"),
		SecretString: aws.String(`{"botToken":"xoxb-stand-in","appToken":"xapp-stand-in"}`),
	})
	if err != nil {
		t.Fatalf("create the secret: %v", err)
	}
	if err := createStack(ctx, cfn, "prerequisites", prerequisites, nil); err != nil {
		t.Fatal(err)
	}
	network, err := stackOutputs(ctx, cfn, "prerequisites")
	if err != nil {
		t.Fatal(err)
	}
	const bucket = "approvals-artifacts"
	uploads := map[string][]byte{}
	for _, key := range []string{"notifier/1a2b3c4.zip", "events/1a2b3c4.zip", "notifier/5d6e7f8.zip"} {
		uploads[key] = standInZip(t)
	}
	for _, name := range definitions.Names() {
		if uploads["definitions/1a2b3c4/"+name], err = definitions.Load(name); err != nil {
			t.Fatal(err)
		}
	}
	if err := upload(ctx, cfg, bucket, uploads); err != nil {
		t.Fatal(err)
	}

	params := everything()
	for k, v := range map[string]string{
		"NotifierCodeBucket": bucket,
		"NotifierCodeKey":    "notifier/1a2b3c4.zip",
		"EventsCodeKey":      "events/1a2b3c4.zip",
		"ArchiveCodeKey":     "archive/1a2b3c4.zip",
		"BotImage":           "123456789012.dkr.ecr.us-east-1.amazonaws.com/approvals-bot@sha256:" + strings.Repeat("0", 64),
		"SlackSecretArn":     aws.ToString(secret.ARN),
		"KmsKeyArn":          network["KeyArn"],
		"VpcId":              network["VpcId"],
		"DefinitionsPrefix":  "definitions/1a2b3c4/",
	} {
		params[k] = []string{v}
	}
	params["Subnets"] = strings.Split(network["Subnets"], ",")
	text, err := os.ReadFile("cloudformation.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := createStack(ctx, cfn, stackName, string(text), params); err != nil {
		t.Fatal(err)
	}

	tmpl, err := parseTemplate(text, params)
	if err != nil {
		t.Fatal(err)
	}
	checkStackResources(ctx, t, cfn, tmpl)
	outputs, err := stackOutputs(ctx, cfn, stackName)
	if err != nil {
		t.Fatal(err)
	}
	checkServices(ctx, t, cfg, tmpl, outputs)
	if got := notifierCodeKey(ctx, t, cfg); got != "notifier/1a2b3c4.zip" {
		t.Errorf("after create, the notifier's code is at %q, want notifier/1a2b3c4.zip", got)
	}

	// A new build: the same template with a new code key.
	params["NotifierCodeKey"] = []string{"notifier/5d6e7f8.zip"}
	if err := updateStack(ctx, cfn, stackName, string(text), params); err != nil {
		t.Fatal(err)
	}
	if got := notifierCodeKey(ctx, t, cfg); got != "notifier/5d6e7f8.zip" {
		t.Errorf("after update, the notifier's code is at %q, want notifier/5d6e7f8.zip", got)
	}
	checkStackResources(ctx, t, cfn, tmpl)
}

// startMoto starts moto_server on a free loopback port, waits until it
// answers and stops it when the test ends. It returns its endpoint.
func startMoto(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("moto_server")
	if err != nil {
		const install = "moto_server is not on the PATH: pip install 'moto[server]' (moto 5.2)"
		if os.Getenv("CI") == "" {
			t.Skip(install + "; CI runs this test")
		}
		t.Fatal(install)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := fmt.Sprint(l.Addr().(*net.TCPAddr).Port)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(t.TempDir(), "moto.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(path, "-H", "127.0.0.1", "-p", port)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		t.Fatalf("start moto_server: %v", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
		_ = logFile.Close()
		if t.Failed() {
			out, _ := os.ReadFile(logPath)
			t.Logf("moto_server's log:\n%s", lastLines(string(out), 40))
		}
	})

	endpoint := "http://127.0.0.1:" + port
	deadline := time.NewTimer(60 * time.Second)
	defer deadline.Stop()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	client := &http.Client{Timeout: 2 * time.Second}
	for {
		resp, err := client.Get(endpoint + "/moto-api/")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return endpoint
			}
		}
		select {
		case err := <-exited:
			exited <- err // for the cleanup
			out, _ := os.ReadFile(logPath)
			t.Fatalf("moto_server exited before answering (%v):\n%s", err, lastLines(string(out), 40))
		case <-deadline.C:
			t.Fatalf("moto_server did not answer on %s within 60 s", endpoint)
		case <-tick.C:
		}
	}
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// standInZip is a stand-in for a make package zip: one executable file,
// bootstrap.
func standInZip(t *testing.T) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	h := &zip.FileHeader{Name: "bootstrap", Method: zip.Deflate}
	h.SetMode(0o755)
	w, err := zw.CreateHeader(h)
	if err == nil {
		_, err = w.Write([]byte("#!/bin/sh\nexit 1\n"))
	}
	if err == nil {
		err = zw.Close()
	}
	if err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// upload creates the bucket and puts each key → content in it.
func upload(ctx context.Context, cfg aws.Config, bucket string, objects map[string][]byte) error {
	client := s3.NewFromConfig(cfg, func(o *s3.Options) { o.UsePathStyle = true })
	if _, err := client.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		return fmt.Errorf("create the bucket: %w", err)
	}
	for key, body := range objects {
		if _, err := client.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), Body: bytes.NewReader(body)}); err != nil {
			return fmt.Errorf("upload %s: %w", key, err)
		}
	}
	return nil
}

func cfnParameters(params map[string][]string) []cfntypes.Parameter {
	var out []cfntypes.Parameter
	for k, v := range params {
		out = append(out, cfntypes.Parameter{ParameterKey: aws.String(k), ParameterValue: aws.String(strings.Join(v, ","))})
	}
	return out
}

// stackWait bounds the waiters: moto completes a stack at once, so the
// first poll normally finds it done.
var stackWait = func(o *cloudformation.StackCreateCompleteWaiterOptions) {
	o.MinDelay, o.MaxDelay = time.Second, 2*time.Second
}

func createStack(ctx context.Context, cfn *cloudformation.Client, name, body string, params map[string][]string) error {
	_, err := cfn.CreateStack(ctx, &cloudformation.CreateStackInput{
		StackName:    aws.String(name),
		TemplateBody: aws.String(body),
		Parameters:   cfnParameters(params),
		Capabilities: []cfntypes.Capability{cfntypes.CapabilityCapabilityIam},
	})
	if err != nil {
		return fmt.Errorf("create the stack %s: %w", name, err)
	}
	w := cloudformation.NewStackCreateCompleteWaiter(cfn, stackWait)
	if err := w.Wait(ctx, &cloudformation.DescribeStacksInput{StackName: aws.String(name)}, 2*time.Minute); err != nil {
		return fmt.Errorf("stack %s did not reach CREATE_COMPLETE: %w (%s)", name, err, stackStatus(ctx, cfn, name))
	}
	return nil
}

func updateStack(ctx context.Context, cfn *cloudformation.Client, name, body string, params map[string][]string) error {
	_, err := cfn.UpdateStack(ctx, &cloudformation.UpdateStackInput{
		StackName:    aws.String(name),
		TemplateBody: aws.String(body),
		Parameters:   cfnParameters(params),
		Capabilities: []cfntypes.Capability{cfntypes.CapabilityCapabilityIam},
	})
	if err != nil {
		return fmt.Errorf("update the stack %s: %w", name, err)
	}
	w := cloudformation.NewStackUpdateCompleteWaiter(cfn, func(o *cloudformation.StackUpdateCompleteWaiterOptions) {
		o.MinDelay, o.MaxDelay = time.Second, 2*time.Second
	})
	if err := w.Wait(ctx, &cloudformation.DescribeStacksInput{StackName: aws.String(name)}, 2*time.Minute); err != nil {
		return fmt.Errorf("stack %s did not reach UPDATE_COMPLETE: %w (%s)", name, err, stackStatus(ctx, cfn, name))
	}
	return nil
}

func stackStatus(ctx context.Context, cfn *cloudformation.Client, name string) string {
	out, err := cfn.DescribeStacks(ctx, &cloudformation.DescribeStacksInput{StackName: aws.String(name)})
	if err != nil || len(out.Stacks) != 1 {
		return fmt.Sprintf("describe: %v", err)
	}
	s := out.Stacks[0]
	return fmt.Sprintf("status %s: %s", s.StackStatus, aws.ToString(s.StackStatusReason))
}

func stackOutputs(ctx context.Context, cfn *cloudformation.Client, name string) (map[string]string, error) {
	out, err := cfn.DescribeStacks(ctx, &cloudformation.DescribeStacksInput{StackName: aws.String(name)})
	if err != nil {
		return nil, fmt.Errorf("describe the stack %s: %w", name, err)
	}
	if len(out.Stacks) != 1 {
		return nil, fmt.Errorf("describe the stack %s: %d stacks", name, len(out.Stacks))
	}
	outputs := map[string]string{}
	for _, o := range out.Stacks[0].Outputs {
		outputs[aws.ToString(o.OutputKey)] = aws.ToString(o.OutputValue)
	}
	return outputs, nil
}

// checkStackResources compares the stack's resources with the template's
// for the deployment: each resource whose condition holds is there and
// complete, unless moto lacks its type; nothing else is.
func checkStackResources(ctx context.Context, t *testing.T, cfn *cloudformation.Client, tmpl *template) {
	t.Helper()
	got := map[string]cfntypes.StackResourceSummary{}
	unnamed := 0
	pages := cloudformation.NewListStackResourcesPaginator(cfn, &cloudformation.ListStackResourcesInput{StackName: aws.String(stackName)})
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			t.Fatalf("list the stack's resources: %v", err)
		}
		for _, r := range page.StackResourceSummaries {
			if id := aws.ToString(r.LogicalResourceId); id != "" {
				got[id] = r
			} else {
				unnamed++ // moto lists a resource it did not create without a name
			}
		}
	}
	resources := tmpl.path("Resources")
	want, lacking, types := map[string]bool{}, 0, map[string]bool{}
	for i := 0; i+1 < len(resources.Content); i += 2 {
		id := resources.Content[i].Value
		present, err := tmpl.present(id)
		if err != nil {
			t.Fatal(err)
		}
		if !present {
			continue
		}
		typ := tmpl.resourceType(id)
		types[typ] = true
		r, created := got[id]
		switch {
		case slices.Contains(motoLacks, typ) && created:
			t.Errorf("moto created %s (%s): take %s off motoLacks", id, typ, typ)
		case slices.Contains(motoLacks, typ):
			lacking++
		case !created:
			t.Errorf("%s (%s) was not created", id, typ)
		case aws.ToString(r.ResourceType) != typ || !strings.HasSuffix(string(r.ResourceStatus), "_COMPLETE"):
			t.Errorf("%s is a %s in state %s, want a complete %s", id, aws.ToString(r.ResourceType), r.ResourceStatus, typ)
		}
		want[id] = true
	}
	for id := range got {
		if !want[id] {
			t.Errorf("the stack has %s, which the template does not create for this deployment", id)
		}
	}
	if unnamed != lacking {
		t.Errorf("moto lists %d unnamed resources, want the %d of the types it lacks", unnamed, lacking)
	}
	for _, typ := range motoLacks {
		if !types[typ] {
			t.Errorf("motoLacks names %s, which the template no longer uses", typ)
		}
	}
}

// checkServices asks the services what the stack made: the table's
// indexes, the four workflows and the outputs pointing at them.
func checkServices(ctx context.Context, t *testing.T, cfg aws.Config, tmpl *template, outputs map[string]string) {
	t.Helper()
	table, err := dynamodb.NewFromConfig(cfg).DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("approvals")})
	if err != nil {
		t.Fatalf("describe the table: %v", err)
	}
	var indexes []string
	for _, g := range table.Table.GlobalSecondaryIndexes {
		indexes = append(indexes, aws.ToString(g.IndexName))
	}
	slices.Sort(indexes)
	if want := []string{"execution-index", "queue-index"}; !slices.Equal(indexes, want) {
		t.Errorf("the table's indexes are %q, want %q", indexes, want)
	}

	stream := aws.ToString(table.Table.LatestStreamArn)
	if spec := table.Table.StreamSpecification; spec == nil || !aws.ToBool(spec.StreamEnabled) || spec.StreamViewType != "NEW_AND_OLD_IMAGES" || stream == "" {
		t.Errorf("the table's stream is %+v (%q), want NEW_AND_OLD_IMAGES", spec, stream)
	}
	mappings, err := lambda.NewFromConfig(cfg).ListEventSourceMappings(ctx, &lambda.ListEventSourceMappingsInput{FunctionName: aws.String(stackName + "-archive")})
	if err != nil {
		t.Fatalf("list the archive's event source mappings: %v", err)
	}
	if len(mappings.EventSourceMappings) != 1 || aws.ToString(mappings.EventSourceMappings[0].EventSourceArn) != stream {
		t.Errorf("the archive function's mappings are %+v, want one from the table's stream %s", mappings.EventSourceMappings, stream)
	}

	machines, err := tmpl.stateMachines()
	if err != nil {
		t.Fatal(err)
	}
	listed, err := sfn.NewFromConfig(cfg).ListStateMachines(ctx, &sfn.ListStateMachinesInput{})
	if err != nil {
		t.Fatalf("list the state machines: %v", err)
	}
	arns := map[string]string{}
	for _, m := range listed.StateMachines {
		arns[aws.ToString(m.Name)] = aws.ToString(m.StateMachineArn)
	}
	if len(machines) != len(definitions.Names()) || len(arns) != len(machines) {
		t.Errorf("Step Functions has %d state machines, the template %d, want one per shipped definition (%d)", len(arns), len(machines), len(definitions.Names()))
	}
	for _, m := range machines {
		output := strings.TrimSuffix(m.resource, "StateMachine") + "StateMachineArn"
		if arns[m.name] != m.arn || outputs[output] != m.arn {
			t.Errorf("%s: Step Functions has %q, the output %s is %q; want %q", m.name, arns[m.name], output, outputs[output], m.arn)
		}
	}
	fn, err := lambda.NewFromConfig(cfg).GetFunction(ctx, &lambda.GetFunctionInput{FunctionName: aws.String(stackName + "-notifier")})
	if err != nil {
		t.Fatalf("get the notifier: %v", err)
	}
	c := fn.Configuration
	if string(c.Runtime) != "provided.al2023" || outputs["NotifierFunctionArn"] != aws.ToString(c.FunctionArn) {
		t.Errorf("the notifier runs %s as %s (output %s), want provided.al2023, the output its ARN",
			c.Runtime, aws.ToString(c.FunctionArn), outputs["NotifierFunctionArn"])
	}
}

// notifierCodeKey is the S3 key the notifier's code came from, as moto
// reports it (the end of the code location).
func notifierCodeKey(ctx context.Context, t *testing.T, cfg aws.Config) string {
	t.Helper()
	fn, err := lambda.NewFromConfig(cfg).GetFunction(ctx, &lambda.GetFunctionInput{FunctionName: aws.String(stackName + "-notifier")})
	if err != nil {
		t.Fatalf("get the notifier: %v", err)
	}
	if fn.Code == nil {
		t.Fatal("the notifier has no code location")
	}
	loc := aws.ToString(fn.Code.Location)
	for _, key := range []string{"notifier/1a2b3c4.zip", "notifier/5d6e7f8.zip"} {
		if strings.HasSuffix(loc, "/"+key) {
			return key
		}
	}
	return loc
}
