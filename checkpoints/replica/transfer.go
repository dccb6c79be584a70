package replica

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"
	"github.com/klauspost/compress/zstd"
)

// partSize is the part size of a multipart upload; smaller snapshots go in one PutObject.
var partSize int64 = 64 << 20

// encoding is how a snapshot object is stored: the database file compressed with zstd (at its
// fastest level: 3.6 times smaller for the LoCoMo store, at about 120 MB/s on one core).
const encoding = "zstd"

// Metadata keys of a snapshot object (x-amz-meta-…).
const (
	metaID       = "backfill-snapshot"
	metaSeq      = "backfill-seq"
	metaSHA256   = "backfill-sha256"
	metaSize     = "backfill-size"
	metaEncoding = "backfill-encoding"
	metaTaken    = "backfill-taken"
	metaHost     = "backfill-host"
)

// snapshotInfo describes a snapshot object.
type snapshotInfo struct {
	ID     string    // random; the local copy records the id of the snapshot it continues
	Seq    int64     // 1 for a store's first snapshot, then one more for each
	SHA256 string    // of the database file (before compression)
	Size   int64     // of the database file
	Taken  time.Time // when it was taken
	Host   string    // by which host
	ETag   string    // of the object
	Bytes  int64     // of the object (compressed)
}

func (i snapshotInfo) metadata() map[string]string {
	return map[string]string{metaID: i.ID, metaSeq: strconv.FormatInt(i.Seq, 10), metaSHA256: i.SHA256,
		metaSize: strconv.FormatInt(i.Size, 10), metaEncoding: encoding, metaTaken: i.Taken.UTC().Format(time.RFC3339Nano), metaHost: i.Host}
}

// headSnapshot reads the metadata of the snapshot at loc; ok is false when there is none.
func headSnapshot(ctx context.Context, client ObjectStore, loc Location) (info snapshotInfo, ok bool, err error) {
	out, err := client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &loc.Bucket, Key: &loc.Key})
	if s := status(err); s == http.StatusNotFound || s == http.StatusForbidden {
		if err := absent(ctx, client, loc); err != nil {
			return snapshotInfo{}, false, err
		}
		if s == http.StatusNotFound {
			return snapshotInfo{}, false, nil
		}
	}
	if err != nil {
		return snapshotInfo{}, false, fmt.Errorf("reading snapshot %s: %w", loc, err)
	}
	md := out.Metadata
	info = snapshotInfo{ID: md[metaID], SHA256: md[metaSHA256], Host: md[metaHost], ETag: aws.ToString(out.ETag), Bytes: aws.ToInt64(out.ContentLength)}
	info.Seq, err = strconv.ParseInt(md[metaSeq], 10, 64)
	if err == nil {
		info.Size, err = strconv.ParseInt(md[metaSize], 10, 64)
	}
	if err == nil {
		info.Taken, err = time.Parse(time.RFC3339Nano, md[metaTaken])
	}
	if err == nil && (info.ID == "" || len(info.SHA256) != 64 || md[metaEncoding] != encoding) {
		err = fmt.Errorf("metadata %v", md)
	}
	if err != nil {
		return snapshotInfo{}, false, fmt.Errorf("reading snapshot %s: not a backfill checkpoint snapshot (%v): is the checkpoint key right?", loc, err)
	}
	return info, true, nil
}

// absent tells what a HEAD's 404 or 403 means: a HEAD response has no body, so a bucket that
// does not exist, credentials the store does not know or a bad signature look the same as a
// missing key. A GET of the key's first byte says which (its error names the code): nil for
// NoSuchKey or a 404 without a code (or an object there after all), else the GET's error.
func absent(ctx context.Context, client ObjectStore, loc Location) error {
	out, err := client.GetObject(ctx, &s3.GetObjectInput{Bucket: &loc.Bucket, Key: &loc.Key, Range: aws.String("bytes=0-0")})
	if err == nil {
		out.Body.Close()
		return nil // it appeared meanwhile: the next HEAD sees it
	}
	var ae smithy.APIError
	if notFound(err) && (!errors.As(err, &ae) || ae.ErrorCode() == "NoSuchKey" || ae.ErrorCode() == "NotFound") {
		return nil
	}
	return fmt.Errorf("reading snapshot %s: %w", loc, err)
}

// upload compresses the database file db into a file beside it and puts that at loc, with
// info's metadata (its SHA256 and Size are filled here), on the condition that the object
// there is still the snapshot with ETag prev (or that there is none, when prev is ""): a
// snapshot another process uploaded meanwhile is never overwritten (ErrLost). It returns info
// with the new object's ETag and size.
func upload(ctx context.Context, client ObjectStore, loc Location, db string, info snapshotInfo, prev string) (snapshotInfo, error) {
	zpath := db + ".zst"
	defer os.Remove(zpath)
	sum, size, err := compress(db, zpath)
	if err != nil {
		return info, err
	}
	info.SHA256, info.Size = sum, size
	z, err := os.Open(zpath)
	if err != nil {
		return info, fmt.Errorf("uploading snapshot: %w", err)
	}
	defer z.Close()
	st, err := z.Stat()
	if err != nil {
		return info, fmt.Errorf("uploading snapshot: %w", err)
	}
	info.Bytes = st.Size()
	var ifMatch, ifNoneMatch *string
	if prev == "" {
		ifNoneMatch = aws.String("*")
	} else {
		ifMatch = aws.String(prev)
	}
	if info.Bytes <= partSize {
		out, err := client.PutObject(ctx, &s3.PutObjectInput{Bucket: &loc.Bucket, Key: &loc.Key, Body: z, ContentLength: aws.Int64(info.Bytes),
			ContentType: aws.String("application/zstd"), Metadata: info.metadata(), IfMatch: ifMatch, IfNoneMatch: ifNoneMatch})
		if err != nil {
			return info, uploadError(loc, err)
		}
		info.ETag = aws.ToString(out.ETag)
		return info, nil
	}
	info.ETag, err = uploadParts(ctx, client, loc, z, info, ifMatch, ifNoneMatch)
	return info, err
}

// uploadError says what a failed snapshot upload means.
func uploadError(loc Location, err error) error {
	if conflicted(err) || notFound(err) {
		return fmt.Errorf("%w: snapshot %s was replaced by another process's (%v)", ErrLost, loc, err)
	}
	return fmt.Errorf("uploading snapshot %s: %w", loc, err)
}

// uploadParts puts a large snapshot in parts of partSize read from z; the condition is checked
// when the upload completes, and a failed upload is aborted.
func uploadParts(ctx context.Context, client ObjectStore, loc Location, z *os.File, info snapshotInfo, ifMatch, ifNoneMatch *string) (string, error) {
	mp, err := client.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: &loc.Bucket, Key: &loc.Key,
		ContentType: aws.String("application/zstd"), Metadata: info.metadata()})
	if err != nil {
		return "", uploadError(loc, err)
	}
	abort := func(err error) (string, error) {
		_, _ = client.AbortMultipartUpload(context.WithoutCancel(ctx), &s3.AbortMultipartUploadInput{Bucket: &loc.Bucket, Key: &loc.Key, UploadId: mp.UploadId})
		return "", uploadError(loc, err)
	}
	var parts []types.CompletedPart
	for off, n := int64(0), int32(1); off < info.Bytes; off, n = off+partSize, n+1 {
		size := min(partSize, info.Bytes-off)
		out, err := client.UploadPart(ctx, &s3.UploadPartInput{Bucket: &loc.Bucket, Key: &loc.Key, UploadId: mp.UploadId, PartNumber: aws.Int32(n),
			Body: io.NewSectionReader(z, off, size), ContentLength: aws.Int64(size)})
		if err != nil {
			return abort(err)
		}
		parts = append(parts, types.CompletedPart{ETag: out.ETag, PartNumber: aws.Int32(n)})
	}
	out, err := client.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: &loc.Bucket, Key: &loc.Key, UploadId: mp.UploadId,
		MultipartUpload: &types.CompletedMultipartUpload{Parts: parts}, IfMatch: ifMatch, IfNoneMatch: ifNoneMatch})
	if err != nil {
		return abort(err)
	}
	return aws.ToString(out.ETag), nil
}

// compress writes the zstd compression of src to dst and returns src's SHA-256 and size.
func compress(src, dst string) (sum string, size int64, err error) {
	in, err := os.Open(src)
	if err != nil {
		return "", 0, fmt.Errorf("compressing snapshot: %w", err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", 0, fmt.Errorf("compressing snapshot: %w", err)
	}
	defer out.Close()
	enc, err := zstd.NewWriter(out, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1))
	if err != nil {
		return "", 0, fmt.Errorf("compressing snapshot: %w", err)
	}
	h := sha256.New()
	size, err = io.Copy(enc, io.TeeReader(in, h))
	if err == nil {
		err = enc.Close()
	}
	if err == nil {
		err = out.Close()
	}
	if err != nil {
		return "", 0, fmt.Errorf("compressing snapshot into %s: %w", dst, err)
	}
	return hex.EncodeToString(h.Sum(nil)), size, nil
}

// download gets the snapshot info describes (If-Match its ETag) into a new file dst,
// decompressing it and checking its size and SHA-256.
func download(ctx context.Context, client ObjectStore, loc Location, info snapshotInfo, dst string) error {
	out, err := client.GetObject(ctx, &s3.GetObjectInput{Bucket: &loc.Bucket, Key: &loc.Key, IfMatch: aws.String(info.ETag)})
	if err != nil {
		return fmt.Errorf("downloading snapshot %s: %w", loc, err)
	}
	defer out.Body.Close()
	f, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("downloading snapshot %s: %w", loc, err)
	}
	defer f.Close()
	dec, err := zstd.NewReader(out.Body, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true))
	if err != nil {
		return fmt.Errorf("downloading snapshot %s: %w", loc, err)
	}
	defer dec.Close()
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(f, h), dec)
	if err == nil {
		err = f.Sync()
	}
	if err == nil {
		err = f.Close()
	}
	if err != nil {
		return fmt.Errorf("downloading snapshot %s into %s: %w", loc, dst, err)
	}
	if sum := hex.EncodeToString(h.Sum(nil)); n != info.Size || sum != info.SHA256 {
		return fmt.Errorf("downloading snapshot %s: got %d bytes with SHA-256 %s, its metadata says %d bytes with %s: the object is damaged",
			loc, n, sum, info.Size, info.SHA256)
	}
	return nil
}
