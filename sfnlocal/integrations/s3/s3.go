// Package s3 connects the local engine's distributed Map to Amazon S3,
// through an S3 API client (aws-sdk-go-v2's *s3.Client;
// config.LoadDefaultConfig points it at AWS_ENDPOINT_URL_S3):
//
//   - ItemReader (arn:aws:states:::s3:getObject with ReaderConfig InputType
//     JSON, JSONL, CSV or MANIFEST, and arn:aws:states:::s3:listObjectsV2)
//     reads a Map's items, shaped as Step Functions shapes them: a CSV row
//     is an object of strings keyed by the header, an object listed is
//     {"Etag", "Key", "LastModified", "Size", "StorageClass"}.
//   - ResultWriter (arn:aws:states:::s3:putObject) writes a Map Run's
//     results as SUCCEEDED_0.json, FAILED_0.json and PENDING_0.json under
//     <Prefix>/<map run id>/, then manifest.json listing them.
//   - The Task resource arn:aws:states:::aws-sdk:s3:getObject returns an
//     object with its Body as text, so a workflow can read a manifest.
//
// A reader or writer that cannot do its work fails the Map Run with
// States.ItemReaderFailed or States.ResultWriterFailed; the Task fails
// with S3.<Exception> as Step Functions' AWS SDK integrations do.
package s3

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"

	"github.com/sfnapprovals/approvals/sfnlocal/integrations/internal/awstask"
	"github.com/sfnapprovals/approvals/sfnlocal/task"
)

// API is the part of the S3 API the integration calls; aws-sdk-go-v2's
// *s3.Client satisfies it.
type API interface {
	GetObject(ctx context.Context, params *awss3.GetObjectInput, optFns ...func(*awss3.Options)) (*awss3.GetObjectOutput, error)
	PutObject(ctx context.Context, params *awss3.PutObjectInput, optFns ...func(*awss3.Options)) (*awss3.PutObjectOutput, error)
	ListObjectsV2(ctx context.Context, params *awss3.ListObjectsV2Input, optFns ...func(*awss3.Options)) (*awss3.ListObjectsV2Output, error)
}

// Integration reads items, writes results and runs the getObject Task. It
// is safe for concurrent use.
type Integration struct {
	client API
}

var (
	_ task.Integration  = (*Integration)(nil)
	_ task.ItemReader   = (*Integration)(nil)
	_ task.ResultWriter = (*Integration)(nil)
)

// New returns an integration that calls S3 with client.
func New(client API) *Integration { return &Integration{client: client} }

var s3Service = awstask.Service{Prefix: "S3", Name: "Amazon S3", Generic: "S3Exception"}

// ReadsItems reports whether resource is s3:getObject or s3:listObjectsV2.
func (i *Integration) ReadsItems(resource string) bool {
	r, ok := awstask.ParseResource(resource)
	return ok && r.Service == "s3" && r.Pattern == "" && (r.Action == "getObject" || r.Action == "listObjectsV2")
}

// WritesResults reports whether resource is s3:putObject.
func (i *Integration) WritesResults(resource string) bool {
	r, ok := awstask.ParseResource(resource)
	return ok && r.Service == "s3" && r.Action == "putObject" && r.Pattern == ""
}

// Supports reports whether the Task resource is aws-sdk:s3:getObject.
func (i *Integration) Supports(resource string) bool {
	r, ok := awstask.ParseResource(resource)
	return ok && r.Service == "aws-sdk" && r.Action == "s3:getObject" && r.Pattern == ""
}

// objectRef names an object: Parameters of s3:getObject.
type objectRef struct {
	Bucket    string `json:"Bucket"`
	Key       string `json:"Key"`
	VersionId string `json:"VersionId"`
	Prefix    string `json:"Prefix"`
}

// parseRef reads Bucket and Key (or Prefix) from Parameters; what names
// no bucket fails with name.
func parseRef(raw json.RawMessage, name, what string, needKey bool) (objectRef, error) {
	var ref objectRef
	if err := json.Unmarshal(raw, &ref); err != nil {
		return ref, &task.Failure{Name: name, Cause: fmt.Sprintf("The %s's Parameters must be an object with string Bucket and Key fields: %v", what, err)}
	}
	switch {
	case ref.Bucket == "":
		return ref, &task.Failure{Name: name, Cause: fmt.Sprintf("The %s's Parameters name no Bucket.", what)}
	case needKey && ref.Key == "":
		return ref, &task.Failure{Name: name, Cause: fmt.Sprintf("The %s's Parameters name no Key.", what)}
	}
	return ref, nil
}

// serviceCause is the cause of an S3 error in the AWS SDK for Java's
// words; a done ctx's error is returned as is.
func serviceCause(ctx context.Context, err error) (string, error) {
	if ctx.Err() != nil {
		return "", ctx.Err()
	}
	var apiErr smithy.APIError
	if !errors.As(err, &apiErr) {
		return "Unable to execute HTTP request: " + err.Error(), nil
	}
	status, requestID := 0, ""
	var respErr *awshttp.ResponseError
	if errors.As(err, &respErr) {
		status, requestID = respErr.HTTPStatusCode(), respErr.ServiceRequestID()
	}
	msg := apiErr.ErrorMessage()
	if msg == "" {
		msg = apiErr.ErrorCode()
	}
	return awstask.ServiceErrorCause(msg, "Amazon S3", status, apiErr.ErrorCode(), requestID), nil
}

// failure turns an S3 call's error into a Map Run failure named name.
func failure(ctx context.Context, err error, name, doing string) error {
	cause, done := serviceCause(ctx, err)
	if done != nil {
		return done
	}
	return &task.Failure{Name: name, Cause: doing + ": " + cause}
}

// s3URI names an object in causes.
func s3URI(bucket, key string) string { return "s3://" + bucket + "/" + strings.TrimPrefix(key, "/") }
