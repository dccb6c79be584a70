package s3

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"

	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// Explain adds to an error of a request about bucket what it most likely means and what to
// do, for the causes a user meets first: no credentials found, credentials refused, a bucket
// that does not exist or whose name is not valid, an endpoint that cannot be reached. The
// error is kept (errors.Is and errors.As still see it); an error of another cause, or one
// explained already, is returned as it is. endpoint is s3.endpoint ("" for AWS).
func Explain(err error, bucket, endpoint string) error {
	if err == nil || errors.As(err, new(*explained)) {
		return err
	}
	where := "AWS S3"
	if endpoint != "" {
		where = endpoint
	}
	if hint := hintOf(err, bucket, where); hint != "" {
		return &explained{err: err, hint: hint}
	}
	return err
}

// explained is an error with what it means.
type explained struct {
	err  error
	hint string
}

func (e *explained) Error() string { return e.hint + " (" + e.err.Error() + ")" }
func (e *explained) Unwrap() error { return e.err }

// hintOf is what err most likely means, or "".
func hintOf(err error, bucket, where string) string {
	var ae smithy.APIError
	code := ""
	if errors.As(err, &ae) {
		code = ae.ErrorCode()
	}
	status := 0
	var re *smithyhttp.ResponseError
	if errors.As(err, &re) {
		status = re.HTTPStatusCode()
	}
	var ne *net.OpError
	switch {
	case code == "NoSuchBucket":
		return fmt.Sprintf("the bucket %q does not exist at %s: create it first, or check the bucket name and s3.endpoint", bucket, where)
	case code == "InvalidBucketName" || status == http.StatusBadRequest && !validBucket(bucket):
		return fmt.Sprintf("%q is not a valid bucket name: S3 wants 3 to 63 lowercase letters, digits, '.' and '-', "+
			"starting and ending with a letter or digit", bucket)
	case code == "InvalidAccessKeyId" || code == "SignatureDoesNotMatch" || code == "InvalidToken" || code == "ExpiredToken" ||
		code == "XAdminUserNotFound": // versitygw's unknown access key
		return fmt.Sprintf("%s refused the credentials (%s): check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or "+
			"AWS_PROFILE / s3.profile), and that s3.endpoint names the store they belong to", where, code)
	case code == "AccessDenied" || status == http.StatusForbidden:
		return fmt.Sprintf("%s denied access to bucket %q: the credentials are not allowed to read or write it "+
			"(or, for a store other than AWS, they are not known there: check s3.endpoint)", where, bucket)
	case noCredentials(err):
		return "no AWS credentials were found: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE / " +
			"s3.profile, or run where a web identity or instance role provides them"
	case errors.As(err, &ne):
		return fmt.Sprintf("cannot reach %s: is s3.endpoint right (scheme, host and port), and is the store running?", where)
	}
	return ""
}

// noCredentials reports whether err is the SDK's failure to find any credentials. The SDK has
// no error type for it: its message says "get identity" around the credential provider's own
// error, which is what this looks for.
func noCredentials(err error) bool {
	var oe *smithy.OperationError
	return errors.As(err, &oe) && strings.Contains(oe.Err.Error(), "get identity: get credentials")
}

// validBucket reports whether name follows S3's bucket naming rules (3-63 lowercase letters,
// digits, '.' and '-', starting and ending with a letter or digit).
func validBucket(name string) bool {
	if len(name) < 3 || len(name) > 63 {
		return false
	}
	for i, c := range name {
		ok := c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || (c == '.' || c == '-') && i > 0 && i < len(name)-1
		if !ok {
			return false
		}
	}
	return true
}
