package s3

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/google/go-cmp/cmp"

	"github.com/sfnapprovals/approvals/internal/s3local"
	"github.com/sfnapprovals/approvals/sfnlocal/task"
)

const bucket = "data-bucket"

// fixture serves a local S3 and returns the integration on it, through
// aws-sdk-go-v2's S3 client, and that client.
func fixture(t *testing.T, objects map[string][]byte) (*Integration, *awss3.Client) {
	t.Helper()
	srv, err := s3local.Start(s3local.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	c := awss3.New(awss3.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(srv.URL()),
		UsePathStyle: true,
		Credentials:  credentials.NewStaticCredentialsProvider("local", "local", ""),
	})
	if _, err := c.CreateBucket(ctx(t), &awss3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		t.Fatal(err)
	}
	for k, v := range objects {
		if _, err := c.PutObject(ctx(t), &awss3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(k), Body: bytes.NewReader(v)}); err != nil {
			t.Fatal(err)
		}
	}
	return New(c), c
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return c
}

func params(bucket, key string) json.RawMessage {
	b, _ := json.Marshal(map[string]string{"Bucket": bucket, "Key": key})
	return b
}

// The CSV file of LocalStack's AWS-validated item reader tests
// (test_base_scenarios: test_map_item_reader_base_csv_headers_*).
const recordedCSV = "Value1,Value2,Value3\nValue4,Value5,Value6\n,,,\ntrue,1,'HelloWorld'\nNull,None,\n   \n"

func gzipped(t *testing.T, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	_, _ = io.WriteString(zw, s)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestReadItems checks each input type against the items AWS recorded
// for the same file where a recording exists (the CSV and JSON cases,
// whose outputs are copied from the snapshots' MapStateExited events).
func TestReadItems(t *testing.T) {
	t.Parallel()
	objects := map[string][]byte{
		"file.json":     []byte(`[{"verdict":"true","statement_date":"6/11/2008","statement_source":"speech"},{"verdict":"false","statement_date":"6/7/2022","statement_source":"television"},{"verdict":"mostly-true","statement_date":"5/18/2016","statement_source":"news"}]`),
		"object.json":   []byte(`{"Hello": "world"}`),
		"broken.json":   []byte(`[{"a": `),
		"items.jsonl":   []byte("{\"id\":1}\n\n  {\"id\":2}\n\"three\"\n"),
		"bad.jsonl":     []byte("{\"id\":1}\n{oops\n"),
		"first_row.csv": []byte("Col1,Col2,Col3\n" + recordedCSV),
		"given.csv":     []byte(recordedCSV),
		"typed.csv":     []byte("0,True,{}\nValue4,Value5,Value6\n,,,\ntrue,1,'HelloWorld'\nNull,None,\n   \n"),
		"extra.csv":     []byte("H1,\nValue4,Value5,Value6\n,,,\ntrue,1,'HelloWorld'\nNull,None,\n   \n"),
		"max.csv":       []byte("Col1,Col2\nValue1,Value2\nValue3,Value4\nValue5,Value6\nValue7,Value8\n"),
		"pipes.csv":     []byte("a|b\n1|2\n"),
		"inv/manifest.json": []byte(`{"sourceBucket":"src","destinationBucket":"arn:aws:s3:::` + bucket + `","version":"2016-11-30",` +
			`"fileFormat":"CSV","fileSchema":"Bucket, Key, Size","files":[{"key":"inv/data/1.csv.gz","size":1,"MD5checksum":"x"},{"key":"inv/data/2.csv","size":1,"MD5checksum":"y"}]}`),
		"inv/data/2.csv": []byte("src,c.txt,3\n"),
	}
	objects["inv/data/1.csv.gz"] = gzipped(t, "src,a.txt,1\nsrc,b.txt,2\n")
	integ, _ := fixture(t, objects)
	tests := []struct {
		name      string
		key       string
		cfg       task.ReaderConfig
		want      string
		wantError string
	}{
		{"json (recorded)", "file.json", task.ReaderConfig{InputType: "JSON"},
			`[{"verdict":"true","statement_date":"6/11/2008","statement_source":"speech"},{"verdict":"false","statement_date":"6/7/2022","statement_source":"television"},{"verdict":"mostly-true","statement_date":"5/18/2016","statement_source":"news"}]`, ""},
		{"json max items (recorded)", "file.json", task.ReaderConfig{InputType: "JSON", MaxItems: 2},
			`[{"verdict":"true","statement_date":"6/11/2008","statement_source":"speech"},{"verdict":"false","statement_date":"6/7/2022","statement_source":"television"}]`, ""},
		{"json object (recorded)", "object.json", task.ReaderConfig{InputType: "JSON"}, "", "Attempting to map over non-iterable node."},
		{"json broken", "broken.json", task.ReaderConfig{InputType: "JSON"}, "", "The object is not valid JSON"},
		{"jsonl", "items.jsonl", task.ReaderConfig{InputType: "JSONL"}, `[{"id":1},{"id":2},"three"]`, ""},
		{"jsonl bad line", "bad.jsonl", task.ReaderConfig{InputType: "JSONL"}, "", "Line 2 of the JSON Lines object is not valid JSON."},
		{"csv first row (recorded)", "first_row.csv", task.ReaderConfig{InputType: "CSV", CSVHeaderLocation: "FIRST_ROW"},
			`[{"Col1":"Value1","Col2":"Value2","Col3":"Value3"},{"Col1":"Value4","Col2":"Value5","Col3":"Value6"},{"Col1":"","Col2":"","Col3":""},{"Col1":"true","Col2":"1","Col3":"'HelloWorld'"},{"Col1":"Null","Col2":"None","Col3":""},{"Col1":"   ","Col2":"","Col3":""}]`, ""},
		{"csv given (recorded)", "given.csv", task.ReaderConfig{InputType: "CSV", CSVHeaderLocation: "GIVEN", CSVHeaders: []string{"H1", "H2", "H3"}},
			`[{"H1":"Value1","H2":"Value2","H3":"Value3"},{"H1":"Value4","H2":"Value5","H3":"Value6"},{"H1":"","H2":"","H3":""},{"H1":"true","H2":"1","H3":"'HelloWorld'"},{"H1":"Null","H2":"None","H3":""},{"H1":"   ","H2":"","H3":""}]`, ""},
		{"csv given duplicate headers (recorded)", "given.csv", task.ReaderConfig{InputType: "CSV", CSVHeaderLocation: "GIVEN", CSVHeaders: []string{"H1", "H1", "H3"}},
			"", "CSV headers cannot contain duplicates."},
		{"csv given extra fields (recorded)", "given.csv", task.ReaderConfig{InputType: "CSV", CSVHeaderLocation: "GIVEN", CSVHeaders: []string{"H1"}},
			`[{"H1":"Value1"},{"H1":"Value4"},{"H1":""},{"H1":"true"},{"H1":"Null"},{"H1":"   "}]`, ""},
		{"csv first row typed headers (recorded)", "typed.csv", task.ReaderConfig{InputType: "CSV"},
			`[{"0":"Value4","True":"Value5","{}":"Value6"},{"0":"","True":"","{}":""},{"0":"true","True":"1","{}":"'HelloWorld'"},{"0":"Null","True":"None","{}":""},{"0":"   ","True":"","{}":""}]`, ""},
		{"csv first row extra fields (recorded)", "extra.csv", task.ReaderConfig{InputType: "CSV"},
			`[{"H1":"Value4","":"Value5"},{"H1":"","":""},{"H1":"true","":"1"},{"H1":"Null","":"None"},{"H1":"   ","":""}]`, ""},
		{"csv max items", "max.csv", task.ReaderConfig{InputType: "CSV", MaxItems: 2},
			`[{"Col1":"Value1","Col2":"Value2"},{"Col1":"Value3","Col2":"Value4"}]`, ""},
		{"csv pipes", "pipes.csv", task.ReaderConfig{InputType: "CSV", CSVDelimiter: "PIPE"}, `[{"a":"1","b":"2"}]`, ""},
		{"s3 inventory manifest", "inv/manifest.json", task.ReaderConfig{InputType: "MANIFEST"},
			`[{"Bucket":"src","Key":"a.txt","Size":"1"},{"Bucket":"src","Key":"b.txt","Size":"2"},{"Bucket":"src","Key":"c.txt","Size":"3"}]`, ""},
		{"missing key", "nope.json", task.ReaderConfig{InputType: "JSON"}, "", "Reading s3://data-bucket/nope.json: The specified key does not exist. (Service: Amazon S3; Status Code: 404; Error Code: NoSuchKey; Request ID: "},
		{"no input type", "file.json", task.ReaderConfig{}, "", "has no InputType"},
		{"parquet", "file.json", task.ReaderConfig{InputType: "PARQUET"}, "", "The ItemReader's InputType PARQUET is not supported"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := integ.ReadItems(ctx(t), task.ItemRead{Resource: "arn:aws:states:::s3:getObject", Parameters: params(bucket, tt.key), Config: tt.cfg})
			if tt.wantError != "" {
				var f *task.Failure
				if !errors.As(err, &f) || f.Name != task.ErrItemReaderFailed || !strings.Contains(f.Cause, tt.wantError) {
					t.Fatalf("ReadItems = %s, %v; want States.ItemReaderFailed: …%s…", got, err, tt.wantError)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			// Key order matters to a workflow's JSON text: compare texts.
			if string(got) != tt.want {
				t.Errorf("items\n got %s\nwant %s", got, tt.want)
			}
		})
	}
}

// The listing of LocalStack's AWS-validated test (three 12-byte files),
// item by item as Step Functions shapes them.
func TestListObjectsV2Items(t *testing.T) {
	t.Parallel()
	integ, c := fixture(t, map[string][]byte{"file_0.txt": []byte("0HelloWorld!"), "file_1.txt": []byte("1HelloWorld!"), "other/file_2.txt": []byte("2HelloWorld!")})
	got, err := integ.ReadItems(ctx(t), task.ItemRead{Resource: "arn:aws:states:::s3:listObjectsV2", Parameters: json.RawMessage(`{"Bucket":"` + bucket + `","Prefix":"file_"}`)})
	if err != nil {
		t.Fatal(err)
	}
	var items []struct {
		Etag, Key, StorageClass string
		LastModified, Size      int64
	}
	if err := json.Unmarshal(got, &items); err != nil {
		t.Fatal(err)
	}
	if len(items) != 2 || !strings.HasPrefix(string(got), `[{"Etag":"\"`) {
		t.Fatalf("items %s", got)
	}
	for i, it := range items {
		head, err := c.HeadObject(ctx(t), &awss3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String(it.Key)})
		if err != nil {
			t.Fatal(err)
		}
		want := []any{aws.ToString(head.ETag), []string{"file_0.txt", "file_1.txt"}[i], head.LastModified.Unix(), int64(12), "STANDARD"}
		if diff := cmp.Diff(want, []any{it.Etag, it.Key, it.LastModified, it.Size, it.StorageClass}); diff != "" {
			t.Errorf("item %d (-want +got):\n%s", i, diff)
		}
	}
	got, err = integ.ReadItems(ctx(t), task.ItemRead{Resource: "arn:aws:states:::s3:listObjectsV2", Parameters: json.RawMessage(`{"Bucket":"` + bucket + `"}`), Config: task.ReaderConfig{MaxItems: 1}})
	if err != nil || strings.Count(string(got), `"Key"`) != 1 {
		t.Errorf("MaxItems 1: %s, %v", got, err)
	}
	_, err = integ.ReadItems(ctx(t), task.ItemRead{Resource: "arn:aws:states:::s3:listObjectsV2", Parameters: json.RawMessage(`{"Bucket":"no-such-bucket"}`)})
	var f *task.Failure
	if !errors.As(err, &f) || f.Name != task.ErrItemReaderFailed || !strings.Contains(f.Cause, "Error Code: NoSuchBucket") {
		t.Errorf("listing a missing bucket = %v", err)
	}
}

func TestWriteResults(t *testing.T) {
	t.Parallel()
	integ, c := fixture(t, nil)
	const run = "arn:aws:states:us-east-1:123456789012:mapRun:batch/Process:6dbfba93-bcff-410b-9b5c-abf41ae9eddb"
	read := func(key string) string {
		t.Helper()
		out, err := c.GetObject(ctx(t), &awss3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
		if err != nil {
			t.Fatalf("GetObject %s: %v", key, err)
		}
		defer out.Body.Close()
		b, _ := io.ReadAll(out.Body)
		return string(b)
	}
	tests := []struct {
		name, prefix, outputType   string
		succeeded, failed, pending []json.RawMessage
		wantKey                    string
		files                      map[string]string
	}{
		{"json", "jobs/", "JSON", []json.RawMessage{json.RawMessage(`{"a":1}`), json.RawMessage(`{"a":2}`)}, []json.RawMessage{json.RawMessage(`{"b":1}`)}, nil,
			"jobs/6dbfba93-bcff-410b-9b5c-abf41ae9eddb/manifest.json",
			map[string]string{"jobs/6dbfba93-bcff-410b-9b5c-abf41ae9eddb/SUCCEEDED_0.json": `[{"a":1},{"a":2}]`, "jobs/6dbfba93-bcff-410b-9b5c-abf41ae9eddb/FAILED_0.json": `[{"b":1}]`}},
		{"jsonl, no prefix", "", "JSONL", []json.RawMessage{json.RawMessage(`1`), json.RawMessage(`2`)}, nil, []json.RawMessage{json.RawMessage(`{"p":1}`)},
			"6dbfba93-bcff-410b-9b5c-abf41ae9eddb/manifest.json",
			map[string]string{"6dbfba93-bcff-410b-9b5c-abf41ae9eddb/SUCCEEDED_0.json": "1\n2\n", "6dbfba93-bcff-410b-9b5c-abf41ae9eddb/PENDING_0.json": "{\"p\":1}\n"}},
	}
	for _, tt := range tests {
		p, _ := json.Marshal(map[string]string{"Bucket": bucket, "Prefix": tt.prefix})
		loc, err := integ.WriteResults(ctx(t), task.ResultExport{Resource: "arn:aws:states:::s3:putObject", Parameters: p, MapRunARN: run,
			OutputType: tt.outputType, Succeeded: tt.succeeded, Failed: tt.failed, Pending: tt.pending})
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if loc != (task.ResultLocation{Bucket: bucket, Key: tt.wantKey}) {
			t.Errorf("%s: location %+v", tt.name, loc)
		}
		var m manifest
		if err := json.Unmarshal([]byte(read(loc.Key)), &m); err != nil {
			t.Fatal(err)
		}
		if m.DestinationBucket != bucket || m.MapRunArn != run {
			t.Errorf("%s: manifest %+v", tt.name, m)
		}
		listed := map[string]string{}
		for _, fs := range [][]resultFile{m.ResultFiles.Succeeded, m.ResultFiles.Failed, m.ResultFiles.Pending} {
			for _, f := range fs {
				listed[f.Key] = read(f.Key)
				if int64(len(listed[f.Key])) != f.Size {
					t.Errorf("%s: %s is %d bytes, the manifest says %d", tt.name, f.Key, len(listed[f.Key]), f.Size)
				}
			}
		}
		if diff := cmp.Diff(tt.files, listed); diff != "" {
			t.Errorf("%s: result files (-want +got):\n%s", tt.name, diff)
		}
	}
	// The manifest's members, in Step Functions' order, with empty lists
	// for statuses without results.
	manifest := read("jobs/6dbfba93-bcff-410b-9b5c-abf41ae9eddb/manifest.json")
	want := `{"DestinationBucket":"data-bucket","MapRunArn":"` + run + `","ResultFiles":{"FAILED":[{"Key":"jobs/6dbfba93-bcff-410b-9b5c-abf41ae9eddb/FAILED_0.json","Size":9}],"PENDING":[],"SUCCEEDED":[{"Key":"jobs/6dbfba93-bcff-410b-9b5c-abf41ae9eddb/SUCCEEDED_0.json","Size":17}]}}`
	if manifest != want {
		t.Errorf("manifest\n got %s\nwant %s", manifest, want)
	}
	_, err := integ.WriteResults(ctx(t), task.ResultExport{Parameters: json.RawMessage(`{"Bucket":"no-such-bucket"}`), MapRunARN: run, Succeeded: []json.RawMessage{json.RawMessage(`1`)}})
	var f *task.Failure
	if !errors.As(err, &f) || f.Name != task.ErrResultWriterFailed || !strings.Contains(f.Cause, "NoSuchBucket") {
		t.Errorf("writing to a missing bucket = %v", err)
	}
}

func TestGetObjectTask(t *testing.T) {
	t.Parallel()
	integ, _ := fixture(t, map[string][]byte{"r/manifest.json": []byte(`{"ResultFiles":{}}`)})
	const res = "arn:aws:states:::aws-sdk:s3:getObject"
	if !integ.Supports(res) || integ.Supports("arn:aws:states:::s3:getObject") {
		t.Fatal("Supports is wrong")
	}
	out, err := integ.Invoke(ctx(t), task.Call{Resource: res, Parameters: params(bucket, "r/manifest.json")})
	if err != nil {
		t.Fatal(err)
	}
	var got getObjectResult
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	if got.Body != `{"ResultFiles":{}}` || got.ContentLength != 18 || got.ContentType != "application/json" || got.ETag == "" || got.LastModified == "" {
		t.Errorf("getObject = %s", out)
	}
	_, err = integ.Invoke(ctx(t), task.Call{Resource: res, Parameters: params(bucket, "missing")})
	var f *task.Failure
	if !errors.As(err, &f) || f.Name != "S3.NoSuchKeyException" {
		t.Errorf("getObject of a missing key = %v, want S3.NoSuchKeyException", err)
	}
}
