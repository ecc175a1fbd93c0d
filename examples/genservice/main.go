// Command genservice is a tiny image-generation service that follows the generation-service contract
// (GET /health, GET /v1/models, POST /v1/images), for trying the svc service gateway locally. It
// requires its API key in X-Api-Key and reports what each call costs in X-Svc-Credits-Charged.
//
//	go run ./examples/genservice -addr 127.0.0.1:9100 -key demo-secret
package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net/http"
	"sync/atomic"
	"time"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:9100", "listen address")
	key := flag.String("key", "demo-secret", "the API key callers must send in X-Api-Key")
	price := flag.String("credits", "1", "credits charged per image (X-Svc-Credits-Charged)")
	flag.Parse()
	srv := &http.Server{Addr: *addr, Handler: handler(*key, *price), ReadHeaderTimeout: 5 * time.Second}
	log.Printf("genservice listening on http://%s", *addr)
	log.Fatal(srv.ListenAndServe())
}

func handler(key, price string) http.Handler {
	var served atomic.Int64
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, map[string]any{"ok": true})
	})
	mux.HandleFunc("GET /v1/models", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, map[string]any{"data": []map[string]string{{"id": "tiny-diffusion"}}})
	})
	mux.HandleFunc("POST /v1/images", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Api-Key") != key {
			w.WriteHeader(http.StatusUnauthorized)
			writeJSON(w, map[string]any{"error": "missing or wrong X-Api-Key"})
			return
		}
		var in struct {
			Prompt string `json:"prompt"`
		}
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil || in.Prompt == "" {
			w.WriteHeader(http.StatusBadRequest)
			writeJSON(w, map[string]any{"error": `send {"prompt": "..."}`})
			return
		}
		n := served.Add(1)
		sum := sha256.Sum256([]byte(in.Prompt))
		w.Header().Set("X-Svc-Credits-Charged", price)
		w.Header().Set("X-Svc-Upstream-Request-Id", fmt.Sprintf("gen-%d", n))
		writeJSON(w, map[string]any{"model": "tiny-diffusion", "prompt": in.Prompt, "image": "sha256:" + hex.EncodeToString(sum[:8])})
	})
	return mux
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}
