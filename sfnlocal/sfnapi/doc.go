// Package sfnapi serves a local Step Functions engine (package sfnlocal)
// behind AWS's own Step Functions API, the AWS JSON 1.0 protocol, so the
// real aws-sdk-go-v2 sfn client and the AWS CLI talk to it unchanged.
//
// Every request is a POST whose X-Amz-Target header names the operation
// ("AWSStepFunctions.StartExecution") and whose body is a JSON object with
// the operation's camelCase members. Responses carry the members the SDK's
// deserializers read, timestamps as epoch seconds. Errors are HTTP 400 with
// AWS's bare error code in both the X-Amzn-ErrorType header and the body's
// "__type" (so the SDK returns *types.TaskTimedOut and the like), and every
// response has an x-amzn-RequestId. Signatures are not checked.
//
// The operations served are listed in routes.go.
package sfnapi
