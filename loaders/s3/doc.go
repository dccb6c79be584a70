// Package s3 reads input files from Amazon S3 or an S3-compatible store (versitygw, MinIO, …)
// for package loaders: FS satisfies loaders.FS for names of the form "s3://bucket/key".
//
// Contract:
//   - New builds a client (NewClient, also used for checkpoints kept in object storage) with
//     the AWS SDK's standard configuration: the default credential chain
//     (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY/AWS_SESSION_TOKEN, shared config and credentials
//     files with Options.Profile or AWS_PROFILE, SSO, web identity, container and instance
//     roles), Options.Region (else the configured region, else us-east-1), and Options.Endpoint
//     to override the endpoint for S3-compatible stores (PathStyle for stores without
//     virtual-host buckets).
//   - Glob returns sorted "s3://bucket/key" names. A name with glob metacharacters
//     (* ? [ \\) that is an existing object's key is that object, taken literally; otherwise it is
//     a pattern, listed from its longest literal key prefix, each key matched with
//     loaders.MatchPath: * never crosses '/', a "**" segment spans any number of "directories".
//     A pattern without metacharacters names one object, or else a
//     "directory": the objects directly under key+"/", without names starting with '.', like
//     loaders.LocalFS; a name that is neither is an error wrapping fs.ErrNotExist. Keys ending
//     in '/' (folder markers) are never returned.
//   - Open issues one HeadObject for the size and ETag. Reads are ranged GetObject requests
//     conditioned on that ETag (an object replaced mid-read fails instead of mixing versions).
//     Reads smaller than Options.BlockSize are served from a small cache of aligned blocks
//     (at most Options.CacheBlocks of them per open file); larger reads go straight into the
//     caller's buffer. No request ever asks for the whole object, so memory stays bounded by
//     BlockSize×CacheBlocks per file whatever the object size.
//   - The context given to Open governs every request of the File it returns.
//   - ReadAt is safe for concurrent use; Read (a sequential cursor) is not.
//   - Errors name the s3:// object and never contain credentials; New rejects an endpoint URL
//     with user information so that it cannot leak through an error message.
package s3
