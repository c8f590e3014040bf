package sfnlocal

import (
	"encoding/json"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/sfnapprovals/approvals/internal/s3local"
	s3integ "github.com/sfnapprovals/approvals/sfnlocal/integrations/s3"
	"github.com/sfnapprovals/approvals/sfnlocal/task"
)

// An item reader fixture (testdata/conformance/itemreader/*.json) is a
// conformance fixture whose Map reads its items from S3: the objects are
// put into the bucket "bucket-name" of a local S3 first.
type itemReaderFixture struct {
	conformanceFixture
	Objects map[string]string `json:"objects"`
}

// localS3 serves a local S3 with the buckets, and returns the engine's S3
// integration on it and an aws-sdk-go-v2 client.
func localS3(t *testing.T, buckets ...string) (*s3integ.Integration, *awss3.Client) {
	t.Helper()
	srv, err := s3local.Start(s3local.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	c := awss3.New(awss3.Options{Region: "us-east-1", BaseEndpoint: aws.String(srv.URL()), UsePathStyle: true,
		Credentials: credentials.NewStaticCredentialsProvider("local", "local", "")})
	for _, b := range buckets {
		if _, err := c.CreateBucket(ctx(t), &awss3.CreateBucketInput{Bucket: aws.String(b)}); err != nil {
			t.Fatal(err)
		}
	}
	return s3integ.New(c), c
}

func putObject(t *testing.T, c *awss3.Client, bucket, key, body string) {
	t.Helper()
	if _, err := c.PutObject(ctx(t), &awss3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), Body: strings.NewReader(body)}); err != nil {
		t.Fatal(err)
	}
}

func getObject(t *testing.T, c *awss3.Client, bucket, key string) string {
	t.Helper()
	out, err := c.GetObject(ctx(t), &awss3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	if err != nil {
		t.Fatalf("GetObject %s/%s: %v", bucket, key, err)
	}
	defer out.Body.Close()
	b, _ := io.ReadAll(out.Body)
	return string(b)
}

// TestItemReaderConformance runs the executions AWS recorded of Maps
// reading their items from S3 (LocalStack's AWS-validated snapshots).
func TestItemReaderConformance(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join("testdata", "conformance", "itemreader", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".json"), func(t *testing.T) {
			t.Parallel()
			var f itemReaderFixture
			decodeFixture(t, file, &f)
			if f.Source.Repo == "" || f.Source.Test == "" {
				t.Fatalf("%s does not name its recording", file)
			}
			resolveHistory(t, file, &f.conformanceFixture)
			integ, c := localS3(t, "bucket-name")
			for k, v := range f.Objects {
				putObject(t, c, "bucket-name", k, v)
			}
			h := newHarness(t, integ)
			arn := h.start(h.create(string(compactJSON(t, f.Definition))), string(compactJSON(t, f.Input)))
			x := h.wait(arn)
			diffs := &collector{}
			if x.Status != f.Status {
				diffs.Errorf("status = %s (%s: %s), want %s", x.Status, x.Error, x.Cause, f.Status)
			}
			compareHistory(diffs, h.events(arn), f.conformanceFixture)
			switch {
			case f.KnownDifference == "":
				for _, d := range diffs.msgs {
					t.Error(d)
				}
			case len(diffs.msgs) == 0:
				t.Errorf("the engine now matches the recording: remove knownDifference (%s)", f.KnownDifference)
			default:
				t.Skipf("known difference: %s\n%s", f.KnownDifference, strings.Join(diffs.msgs, "\n"))
			}
		})
	}
}

// resultWriterMachine is LocalStack's MAP_STATE_RESULT_WRITER template,
// with the child's Pass replaced by what a test needs.
func resultWriterMachine(extra, child string) string {
	return `{"StartAt":"MapState","States":{"MapState":{"Type":"Map",` + extra + `
		"ItemProcessor":{"ProcessorConfig":{"Mode":"DISTRIBUTED","ExecutionType":"STANDARD"},"StartAt":"IteratorInner","States":` + child + `},
		"ResultWriter":{"Resource":"arn:aws:states:::s3:putObject","Parameters":{"Bucket":"result-bucket","Prefix":"mapJobs"}},
		"Label":"TestMap","End":true}}}`
}

const passChild = `{"IteratorInner":{"Type":"Pass","End":true}}`

// failOddChild fails the items that are objects with "fail": true.
const failOddChild = `{"IteratorInner":{"Type":"Choice","Choices":[{"Variable":"$.fail","IsPresent":true,"Next":"Broken"}],"Default":"Done"},
	"Broken":{"Type":"Fail","Error":"ItemFailed","Cause":"the item says so"},"Done":{"Type":"Pass","End":true}}`

// manifestOf reads the manifest a Map with a ResultWriter returned, after
// checking the Map's output against AWS's recording: {"MapRunArn",
// "ResultWriterDetails": {"Bucket", "Key": "<Prefix>/<map run id>/manifest.json"}}.
func manifestOf(t *testing.T, c *awss3.Client, output, machineName string) (map[string]any, string) {
	t.Helper()
	var out struct {
		MapRunArn           string
		ResultWriterDetails struct{ Bucket, Key string }
	}
	dec := json.NewDecoder(strings.NewReader(output))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&out); err != nil {
		t.Fatalf("Map output %s: %v", output, err)
	}
	prefix := "arn:aws:states:us-east-1:123456789012:mapRun:" + machineName + "/TestMap:"
	id, ok := strings.CutPrefix(out.MapRunArn, prefix)
	if !ok || len(id) != 36 {
		t.Fatalf("MapRunArn %s, want %s<uuid>", out.MapRunArn, prefix)
	}
	if out.ResultWriterDetails.Bucket != "result-bucket" || out.ResultWriterDetails.Key != "mapJobs/"+id+"/manifest.json" {
		t.Fatalf("ResultWriterDetails %+v, want result-bucket, mapJobs/%s/manifest.json", out.ResultWriterDetails, id)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(getObject(t, c, "result-bucket", out.ResultWriterDetails.Key)), &m); err != nil {
		t.Fatal(err)
	}
	if m["DestinationBucket"] != "result-bucket" || m["MapRunArn"] != out.MapRunArn {
		t.Errorf("manifest %v", m)
	}
	return m, id
}

// resultRecords reads the records of one status's result file.
func resultRecords(t *testing.T, c *awss3.Client, m map[string]any, status string) []map[string]any {
	t.Helper()
	files, _ := m["ResultFiles"].(map[string]any)[status].([]any)
	if len(files) == 0 {
		return nil
	}
	key := files[0].(map[string]any)["Key"].(string)
	var recs []map[string]any
	if err := json.Unmarshal([]byte(getObject(t, c, "result-bucket", key)), &recs); err != nil {
		t.Fatalf("%s: %v", key, err)
	}
	return recs
}

// TestResultWriter runs AWS's recorded ResultWriter execution (LocalStack's
// test_map_state_result_writer) and checks what it wrote.
func TestResultWriter(t *testing.T) {
	t.Parallel()
	integ, c := localS3(t, "result-bucket")
	h := newHarness(t, integ)
	machine := h.create(resultWriterMachine("", passChild))
	arn := h.start(machine, `["Hello", "World"]`)
	x := h.wait(arn)
	if x.Status != StatusSucceeded {
		t.Fatalf("status %s (%s: %s)", x.Status, x.Error, x.Cause)
	}
	recorded := conformanceFixture{History: []map[string]json.RawMessage{
		{"id": raw(1), "previousEventId": raw(0), "type": raw(`"ExecutionStarted"`)},
		{"id": raw(2), "previousEventId": raw(0), "type": raw(`"MapStateEntered"`)},
		{"id": raw(3), "previousEventId": raw(2), "type": raw(`"MapStateStarted"`), "length": raw(2)},
		{"id": raw(4), "previousEventId": raw(3), "type": raw(`"MapRunStarted"`)},
		{"id": raw(5), "previousEventId": raw(4), "type": raw(`"MapRunSucceeded"`)},
		{"id": raw(6), "previousEventId": raw(5), "type": raw(`"MapStateSucceeded"`)},
		{"id": raw(7), "previousEventId": raw(5), "type": raw(`"MapStateExited"`)},
		{"id": raw(8), "previousEventId": raw(7), "type": raw(`"ExecutionSucceeded"`)},
	}}
	compareHistory(t, h.events(arn), recorded)
	name := machine[strings.LastIndexByte(machine, ':')+1:]
	m, _ := manifestOf(t, c, x.Output, name)
	recs := resultRecords(t, c, m, "SUCCEEDED")
	if len(recs) != 2 || resultRecords(t, c, m, "FAILED") != nil || resultRecords(t, c, m, "PENDING") != nil {
		t.Fatalf("manifest %v: want two SUCCEEDED records and no other file", m)
	}
	for i, want := range []string{`"Hello"`, `"World"`} {
		r := recs[i]
		if r["Input"] != want || r["Output"] != want || r["Status"] != "SUCCEEDED" ||
			!strings.HasPrefix(r["ExecutionArn"].(string), "arn:aws:states:us-east-1:123456789012:execution:"+name+"/TestMap:") ||
			r["StateMachineArn"] != "arn:aws:states:us-east-1:123456789012:stateMachine:"+name+"/TestMap" ||
			r["RedriveStatus"] != "NOT_REDRIVABLE" || r["StartDate"] != "2025-01-02T03:04:05.000Z" {
			t.Errorf("record %d = %v", i, r)
		}
	}
}

func raw(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	if s, ok := v.(string); ok && strings.HasPrefix(s, `"`) {
		return json.RawMessage(s)
	}
	return b
}

func TestResultWriterFailuresAndPending(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		extra       string
		input       string
		wantStatus  string
		wantError   string
		succeeded   int
		failed      []string // Error of each FAILED record, in item order
		pending     int
		wantHistory []string
	}{
		{"failures within the tolerance", `"ToleratedFailurePercentage":100,`, `[{"id":1},{"id":2,"fail":true},{"id":3},{"id":4,"fail":true}]`,
			StatusSucceeded, "", 2, []string{"ItemFailed", "ItemFailed"}, 0,
			[]string{"ExecutionStarted", "MapStateEntered", "MapStateStarted", "MapRunStarted", "MapRunSucceeded", "MapStateSucceeded", "MapStateExited", "ExecutionSucceeded"}},
		{"tolerance exceeded: the rest are pending", `"MaxConcurrency":1,`, `[{"id":1},{"id":2,"fail":true},{"id":3},{"id":4}]`,
			StatusFailed, "States.ExceedToleratedFailureThreshold", 1, []string{"ItemFailed"}, 2,
			[]string{"ExecutionStarted", "MapStateEntered", "MapStateStarted", "MapRunStarted", "MapRunFailed", "MapStateFailed", "ExecutionFailed"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			integ, c := localS3(t, "result-bucket")
			h := newHarness(t, integ)
			machine := h.create(resultWriterMachine(tt.extra, failOddChild))
			arn := h.start(machine, tt.input)
			x := h.wait(arn)
			if x.Status != tt.wantStatus || x.Error != tt.wantError {
				t.Fatalf("status %s (%s: %s), want %s %s", x.Status, x.Error, x.Cause, tt.wantStatus, tt.wantError)
			}
			if got := eventTypes(h.events(arn)); strings.Join(got, ",") != strings.Join(tt.wantHistory, ",") {
				t.Errorf("history %v, want %v", got, tt.wantHistory)
			}
			// The files are under mapJobs/<map run id>/ however the Map ended.
			out, err := c.ListObjectsV2(ctx(t), &awss3.ListObjectsV2Input{Bucket: aws.String("result-bucket"), Prefix: aws.String("mapJobs/")})
			if err != nil {
				t.Fatal(err)
			}
			var manifestKey string
			for _, o := range out.Contents {
				if strings.HasSuffix(aws.ToString(o.Key), "/manifest.json") {
					manifestKey = aws.ToString(o.Key)
				}
			}
			var m map[string]any
			if err := json.Unmarshal([]byte(getObject(t, c, "result-bucket", manifestKey)), &m); err != nil {
				t.Fatalf("manifest %q: %v", manifestKey, err)
			}
			if n := len(resultRecords(t, c, m, "SUCCEEDED")); n != tt.succeeded {
				t.Errorf("%d SUCCEEDED records, want %d", n, tt.succeeded)
			}
			failed := resultRecords(t, c, m, "FAILED")
			var errs []string
			for _, r := range failed {
				errs = append(errs, r["Error"].(string))
				if r["Status"] != "FAILED" || r["Cause"] != "the item says so" || r["Output"] != nil || !strings.Contains(r["Input"].(string), `"fail":true`) {
					t.Errorf("FAILED record %v", r)
				}
			}
			if strings.Join(errs, ",") != strings.Join(tt.failed, ",") {
				t.Errorf("FAILED errors %q, want %q", errs, tt.failed)
			}
			pending := resultRecords(t, c, m, "PENDING")
			if len(pending) != tt.pending {
				t.Errorf("%d PENDING records, want %d", len(pending), tt.pending)
			}
			for _, p := range pending {
				if p["Status"] != "PENDING" || p["Input"] == nil {
					t.Errorf("PENDING record %v", p)
				}
			}
		})
	}
}

func TestResultWriterTransformations(t *testing.T) {
	t.Parallel()
	const arrays = `{"IteratorInner":{"Type":"Pass","Parameters":{"v.$":"$"},"OutputPath":"$.v","End":true}}`
	tests := []struct {
		name, writer, want string
	}{
		{"COMPACT to S3", `"WriterConfig":{"Transformation":"COMPACT","OutputType":"JSON"},"Resource":"arn:aws:states:::s3:putObject","Parameters":{"Bucket":"result-bucket","Prefix":"x"}`, `[[1,2],[3]]`},
		{"FLATTEN to S3 as JSON Lines", `"WriterConfig":{"Transformation":"FLATTEN","OutputType":"JSONL"},"Resource":"arn:aws:states:::s3:putObject","Parameters":{"Bucket":"result-bucket","Prefix":"x"}`, "1\n2\n3\n"},
		{"WriterConfig only: FLATTEN in the state", `"WriterConfig":{"Transformation":"FLATTEN","OutputType":"JSON"}`, `[1,2,3]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			integ, c := localS3(t, "result-bucket")
			h := newHarness(t, integ)
			def := `{"StartAt":"M","States":{"M":{"Type":"Map","ItemProcessor":{"ProcessorConfig":{"Mode":"DISTRIBUTED","ExecutionType":"STANDARD"},
				"StartAt":"IteratorInner","States":` + arrays + `},"ResultWriter":{` + tt.writer + `},"End":true}}}`
			x := h.wait(h.start(h.create(def), `[[1,2],[3]]`))
			if x.Status != StatusSucceeded {
				t.Fatalf("status %s (%s: %s)", x.Status, x.Error, x.Cause)
			}
			if !strings.Contains(tt.writer, "Resource") {
				if x.Output != tt.want {
					t.Errorf("output %s, want %s", x.Output, tt.want)
				}
				return
			}
			var out struct{ ResultWriterDetails struct{ Key string } }
			_ = json.Unmarshal([]byte(x.Output), &out)
			var m struct {
				ResultFiles struct{ SUCCEEDED []struct{ Key string } }
			}
			if err := json.Unmarshal([]byte(getObject(t, c, "result-bucket", out.ResultWriterDetails.Key)), &m); err != nil || len(m.ResultFiles.SUCCEEDED) != 1 {
				t.Fatalf("manifest of %s: %v", x.Output, err)
			}
			if got := getObject(t, c, "result-bucket", m.ResultFiles.SUCCEEDED[0].Key); got != tt.want {
				t.Errorf("SUCCEEDED file %q, want %q", got, tt.want)
			}
		})
	}
}

// A reader or writer that cannot do its work fails the Map Run; Retry and
// Catch take the error like any other.
func TestItemReaderAndWriterFailures(t *testing.T) {
	t.Parallel()
	const child = `"ItemProcessor":{"ProcessorConfig":{"Mode":"DISTRIBUTED","ExecutionType":"STANDARD"},"StartAt":"P","States":{"P":{"Type":"Pass","End":true}}}`
	tests := []struct {
		name       string
		integs     bool
		mapFields  string
		wantStatus string
		wantOutput string
		wantError  string
		wantCause  string
	}{
		{"missing object, caught", true, `"ItemReader":{"ReaderConfig":{"InputType":"JSON"},"Resource":"arn:aws:states:::s3:getObject","Parameters":{"Bucket":"result-bucket","Key":"nope.json"}},
			"Catch":[{"ErrorEquals":["States.ItemReaderFailed"],"Next":"Caught"}],"Next":"Done"`,
			StatusSucceeded, `{"Error":"States.ItemReaderFailed","Cause":"Reading s3://result-bucket/nope.json: The specified key does not exist.`, "", ""},
		{"no S3 configured", false, `"ItemReader":{"ReaderConfig":{"InputType":"JSON"},"Resource":"arn:aws:states:::s3:getObject","Parameters":{"Bucket":"b","Key":"k"}},
			"Catch":[{"ErrorEquals":["Unrelated"],"Next":"Caught"}],"Next":"Done"`,
			StatusFailed, "", "States.ItemReaderFailed", "No integration of the local engine reads items from arn:aws:states:::s3:getObject (sfn-local reads S3 at AWS_ENDPOINT_URL_S3)."},
		{"missing results bucket", true, `"ItemsPath":"$","ResultWriter":{"Resource":"arn:aws:states:::s3:putObject","Parameters":{"Bucket":"no-such-bucket","Prefix":"p"}},
			"Catch":[{"ErrorEquals":["Unrelated"],"Next":"Caught"}],"Next":"Done"`,
			StatusFailed, "", "States.ResultWriterFailed", "Writing s3://no-such-bucket/"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var integs []task.Integration
			if tt.integs {
				integ, _ := localS3(t, "result-bucket")
				integs = append(integs, integ)
			}
			h := newHarness(t, integs...)
			def := `{"StartAt":"M","States":{"M":{"Type":"Map",` + child + `,` + tt.mapFields + `},
				"Caught":{"Type":"Pass","End":true},"Done":{"Type":"Succeed"}}}`
			arn := h.start(h.create(def), `[1]`)
			x := h.wait(arn)
			if x.Status != tt.wantStatus || x.Error != tt.wantError || !strings.HasPrefix(x.Cause, tt.wantCause) || !strings.HasPrefix(x.Output, tt.wantOutput) {
				t.Errorf("ended %s %s: %s, output %s; want %s %s: %s…, %s…", x.Status, x.Error, x.Cause, x.Output, tt.wantStatus, tt.wantError, tt.wantCause, tt.wantOutput)
			}
			types := eventTypes(h.events(arn))
			if !strings.Contains(strings.Join(types, ","), "MapRunStarted,MapRunFailed,MapStateFailed") {
				t.Errorf("history %v: want MapRunStarted, MapRunFailed, MapStateFailed", types)
			}
		})
	}
}
