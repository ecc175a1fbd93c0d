package client

import "time"

// File is a stored file's metadata, as the files routes answer it.
type File struct {
	ID        string `json:"id" doc:"File id (file_...)."`
	Name      string `json:"name" doc:"The name given at upload (X-File-Name): a name, never a path."`
	MediaType string `json:"mediaType" doc:"The Content-Type given at upload."`
	Bytes     int64  `json:"bytes" doc:"Size in bytes."`
	// SHA256 is the hex SHA-256 of the content.
	SHA256    string    `json:"sha256" doc:"Hex SHA-256 of the content."`
	Purpose   string    `json:"purpose" doc:"The X-Svc-File-Purpose given at upload, or empty."`
	ProjectID *string   `json:"projectId" doc:"The project the file belongs to, or null."`
	CreatedAt time.Time `json:"createdAt"`
}

// FileEnvelope is the answer of POST /v1/files, GET /v1/files/{fileId} and DELETE /v1/files/{fileId}.
type FileEnvelope struct {
	OK   bool `json:"ok"`
	File File `json:"file"`
}

// FileList is a page of GET /v1/files.
type FileList struct {
	OK         bool    `json:"ok"`
	Files      []File  `json:"files"`
	NextCursor *string `json:"nextCursor"`
}
