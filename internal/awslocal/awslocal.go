// Package awslocal adjusts AWS SDK clients that talk to local stand-ins
// (DynamoDB Local, a local Step Functions) through the standard
// AWS_ENDPOINT_URL_* variables.
package awslocal

import (
	"net"
	"net/url"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// DynamoDBOptions returns client options for the DynamoDB endpoint in the
// environment. DynamoDB Local answers conditional-check failures without the
// CRC32 the SDK expects, which makes the SDK log a checksum warning on every
// lost claim; for a loopback endpoint the check is off. Real AWS endpoints
// keep it.
func DynamoDBOptions(getenv func(string) string) func(*dynamodb.Options) {
	endpoint := getenv("AWS_ENDPOINT_URL_DYNAMODB")
	if endpoint == "" {
		endpoint = getenv("AWS_ENDPOINT_URL")
	}
	local := IsLoopback(endpoint)
	return func(o *dynamodb.Options) {
		if local {
			o.DisableValidateResponseChecksum = true
		}
	}
}

// IsLoopback reports whether the endpoint URL points at this machine.
func IsLoopback(endpoint string) bool {
	u, err := url.Parse(endpoint)
	if err != nil || u.Host == "" {
		return false
	}
	host := u.Hostname()
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
