package core

import "time"

// ObjectInfo describes one stored object for maintenance: gc keeps objects
// younger than its grace period, and measures what it frees.
type ObjectInfo struct {
	Digest  string
	Size    int64     // bytes at rest: the stored form, compressed in format 2
	ModTime time.Time // when the object was written (file mtime, S3 LastModified)
}

// Kinds of leftover: what an interrupted write leaves behind.
const (
	LeftoverTempFile  = "temp_file"        // a file in the file backend's tmp/ folder
	LeftoverSpoolFile = "spool_file"       // a local spool file of the S3 backend whose writer is gone
	LeftoverUpload    = "multipart_upload" // an incomplete S3 multipart upload
)

// Leftover is something a killed or failed write left behind: it is never an
// object or a ref, takes space, and is safe to remove once no writer can
// still be working on it.
type Leftover struct {
	Kind  string
	Name  string    // a path (files) or an object key (uploads)
	ID    string    // the upload id of a multipart upload
	Size  int64     // bytes, when known
	Since time.Time // last modified, or when the upload started
}
