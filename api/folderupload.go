package api

import (
	"context"
	"mime"

	"github.com/svcplatform/svc/internal/svcerr"
)

// folderReader turns an upload body of one media type into a folder's files by path.
type folderReader func(data []byte) (map[string][]byte, error)

// readFolderUpload reads the raw body of a folder upload (an app, a skill), at most maxBytes of it, and
// turns it into the folder's files by path with the reader of its Content-Type; another media type is
// 415 with refusal as the message.
func readFolderUpload(ctx context.Context, contentType string, maxBytes int64, readers map[string]folderReader, refusal string) (map[string][]byte, error) {
	data, err := readAppBody(ctx, maxBytes)
	if err != nil {
		return nil, err
	}
	media, _, _ := mime.ParseMediaType(contentType)
	read, ok := readers[media]
	if !ok {
		return nil, &svcerr.Error{Code: svcerr.UnsupportedMediaType, Param: "Content-Type", Message: refusal}
	}
	return read(data)
}
