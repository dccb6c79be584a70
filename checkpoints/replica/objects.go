package replica

import (
	"context"
	"errors"
	"net/http"
	"time"

	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// ObjectStore is the part of the S3 API a replica uses (*s3.Client has it).
type ObjectStore interface {
	HeadObject(ctx context.Context, in *s3.HeadObjectInput, opts ...func(*s3.Options)) (*s3.HeadObjectOutput, error)
	GetObject(ctx context.Context, in *s3.GetObjectInput, opts ...func(*s3.Options)) (*s3.GetObjectOutput, error)
	PutObject(ctx context.Context, in *s3.PutObjectInput, opts ...func(*s3.Options)) (*s3.PutObjectOutput, error)
	CreateMultipartUpload(ctx context.Context, in *s3.CreateMultipartUploadInput, opts ...func(*s3.Options)) (*s3.CreateMultipartUploadOutput, error)
	UploadPart(ctx context.Context, in *s3.UploadPartInput, opts ...func(*s3.Options)) (*s3.UploadPartOutput, error)
	CompleteMultipartUpload(ctx context.Context, in *s3.CompleteMultipartUploadInput, opts ...func(*s3.Options)) (*s3.CompleteMultipartUploadOutput, error)
	AbortMultipartUpload(ctx context.Context, in *s3.AbortMultipartUploadInput, opts ...func(*s3.Options)) (*s3.AbortMultipartUploadOutput, error)
}

// status is the HTTP status of an S3 error (0 when it is no HTTP response).
func status(err error) int {
	var re *smithyhttp.ResponseError
	if errors.As(err, &re) {
		return re.HTTPStatusCode()
	}
	return 0
}

// conflicted reports whether a conditional write failed its condition: 412 Precondition Failed,
// or 409 ConditionalRequestConflict (AWS: a concurrent conditional write to the same key).
func conflicted(err error) bool {
	var ae smithy.APIError
	if errors.As(err, &ae) && (ae.ErrorCode() == "PreconditionFailed" || ae.ErrorCode() == "ConditionalRequestConflict") {
		return true
	}
	s := status(err)
	return s == http.StatusPreconditionFailed || s == http.StatusConflict
}

// notFound reports whether err is a 404 (no such key).
func notFound(err error) bool { return status(err) == http.StatusNotFound }

// serverTime is the Date of a response (the server's clock), or the local clock's now.
func serverTime(md middleware.Metadata) time.Time {
	if t, ok := awsmiddleware.GetServerTime(md); ok && !t.IsZero() {
		return t
	}
	return time.Now()
}
