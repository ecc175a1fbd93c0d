package api

import (
	"bytes"

	"github.com/gin-gonic/gin"
)

// capture holds the answer back until it is recorded (see record), keeping a copy for the record.
type capture struct {
	gin.ResponseWriter
	buf bytes.Buffer
}

func (w *capture) Write(b []byte) (int, error) { return w.buf.Write(b) }

func (w *capture) WriteString(s string) (int, error) { return w.buf.WriteString(s) }

// WriteHeaderNow and Flush wait for the record too: the status and headers go out with the body.
func (w *capture) WriteHeaderNow() {}

// Flush does nothing until the answer is recorded.
func (w *capture) Flush() {}
