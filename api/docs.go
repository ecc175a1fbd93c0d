package api

import (
	_ "embed" // the docs viewer is compiled in
	"net/http"

	"github.com/gin-gonic/gin"
)

// The API reference at /docs renders /openapi.json with Redoc (MIT, api/docsui/LICENSE), served from the
// binary so that it works without internet. api/docsui/fetch.sh re-fetches the pinned bundle from npm.
var (
	//go:embed docsui/redoc.standalone.js
	redocJS []byte
	//go:embed docsui/LICENSE
	redocLicense []byte
	//go:embed docsui/redoc.standalone.js.LICENSE.txt
	redocBundledLicenses []byte
)

// docsAssetPath is where the viewer's script is served.
const docsAssetPath = "/docs/assets/redoc.standalone.js"

// docsPage is the HTML of /docs: every reference is to this host.
const docsPage = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>svc platform API</title>
<style>body { margin: 0; padding: 0; }</style>
</head>
<body>
<redoc spec-url="/openapi.json"></redoc>
<script src="` + docsAssetPath + `"></script>
</body>
</html>
`

// docsCSP keeps the page to this host; Redoc injects its styles and runs its search in a blob worker.
const docsCSP = "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; worker-src 'self' blob:; " +
	"font-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"

// registerDocs serves /docs, the viewer's script and the licenses that ship with it.
func (s *Server) registerDocs() {
	s.engine.GET("/docs", func(c *gin.Context) {
		c.Header("Content-Security-Policy", docsCSP)
		c.Data(http.StatusOK, "text/html; charset=utf-8", []byte(docsPage))
	})
	asset := func(contentType string, body []byte) gin.HandlerFunc {
		return func(c *gin.Context) {
			c.Header("Cache-Control", "public, max-age=86400")
			c.Data(http.StatusOK, contentType, body)
		}
	}
	s.engine.GET(docsAssetPath, asset("text/javascript; charset=utf-8", redocJS))
	s.engine.GET("/docs/assets/LICENSE", asset("text/plain; charset=utf-8", redocLicense))
	s.engine.GET("/docs/assets/redoc.standalone.js.LICENSE.txt", asset("text/plain; charset=utf-8", redocBundledLicenses))
}
