// Command genservice is a tiny generation service that follows seed 001's generation-service contract
// and is the worked example of the bundled skill shelf (svc skills install-shelf): GET /health,
// GET /v1/models, GET /v1/voices, GET /v1/voices/{id}, POST /v1/images (JSON, or a PNG file with
// Accept: image/png) and POST /v1/audio/speech (a WAV file). It is also the upstream for trying the svc
// service gateway locally: the generation calls require the API key in X-Api-Key and report what each
// call costs in X-Svc-Credits-Charged. Everything it makes is synthetic (a colour, a tone).
//
//	go run ./examples/genservice -addr 127.0.0.1:9100 -key demo-secret
package main

import (
	"flag"
	"log"
	"net/http"
	"time"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:9100", "listen address")
	key := flag.String("key", "demo-secret", "the API key callers must send in X-Api-Key")
	price := flag.String("credits", "1", "credits charged per generation (X-Svc-Credits-Charged)")
	flag.Parse()
	srv := &http.Server{Addr: *addr, Handler: handler(*key, *price), ReadHeaderTimeout: 5 * time.Second}
	log.Printf("genservice listening on http://%s", *addr)
	log.Fatal(srv.ListenAndServe())
}
