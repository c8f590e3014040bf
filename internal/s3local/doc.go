// Package s3local is a small Amazon S3 of the local stack's own: the
// handful of S3 calls the local engine's distributed Map (ItemReader,
// ResultWriter), the shipped batch workflow and the AWS CLI's s3api need,
// kept as plain files in a folder, so what a workflow reads and writes can
// be looked at and edited with any tool.
//
// It answers path-style requests only (http://127.0.0.1:port/bucket/key:
// set UsePathStyle in aws-sdk-go-v2, addressing_style = path for the AWS
// CLI), on a loopback address only, and refuses a request whose Host is
// not a loopback name (DNS rebinding protection). It accepts any
// credentials and does not check request signatures, as DynamoDB Local
// does not. Calls: ListBuckets, CreateBucket, HeadBucket, DeleteBucket (of
// an empty bucket), PutObject, GetObject, HeadObject, DeleteObject and
// ListObjectsV2 (Prefix, Delimiter, MaxKeys, StartAfter,
// ContinuationToken, EncodingType url). Errors are S3's (NoSuchBucket,
// NoSuchKey, BucketAlreadyOwnedByYou, …) in S3's XML.
//
// Objects are files: bucket "b" is the folder <dir>/b and key "x/y.json"
// the file <dir>/b/x/y.json. Hence keys are limited to what maps onto
// files: no empty, "." or ".." segment, no trailing "/", and no key that
// is also the prefix folder of another ("a" beside "a/b"); such a key is
// refused with InvalidArgument. A file dropped into a bucket's folder is an
// object. ETag is the MD5 of the content, LastModified the file's
// modification time, and Content-Type follows the key's extension (S3's
// binary/octet-stream otherwise): metadata sent with PutObject is not
// kept.
package s3local
