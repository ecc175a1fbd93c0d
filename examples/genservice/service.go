package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"net/http"
	"strings"
	"sync/atomic"
)

// The models and voices the service offers.
const (
	imageModel  = "tiny-diffusion"
	speechModel = "tiny-tts"
	sampleRate  = 16000
	maxInput    = 2000 // characters of speech input
)

// voices maps each voice id to its name and tone (Hz).
var voices = []struct {
	ID   string  `json:"id"`
	Name string  `json:"name"`
	Hz   float64 `json:"-"`
}{{"narrator", "Narrator", 220}, {"bright", "Bright", 440}}

// service is the handler's state.
type service struct {
	key, price string
	served     atomic.Int64
}

// handler serves the contract's routes.
func handler(key, price string) http.Handler {
	s := &service{key: key, price: price}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"ok": true, "service": "genservice", "capabilities": []string{"image", "speech"}})
	})
	mux.HandleFunc("GET /v1/models", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"data": []map[string]string{
			{"id": imageModel, "kind": "image"}, {"id": speechModel, "kind": "speech"}}})
	})
	mux.HandleFunc("GET /v1/voices", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"data": voices})
	})
	mux.HandleFunc("GET /v1/voices/{id}", s.voice)
	mux.HandleFunc("POST /v1/images", s.images)
	mux.HandleFunc("POST /v1/audio/speech", s.speech)
	return mux
}

// voice answers one voice, 404 for an unknown id.
func (s *service) voice(w http.ResponseWriter, r *http.Request) {
	for _, v := range voices {
		if v.ID == r.PathValue("id") {
			writeJSON(w, http.StatusOK, v)
			return
		}
	}
	writeJSON(w, http.StatusNotFound, map[string]any{"error": "no voice " + r.PathValue("id")})
}

// authorized checks X-Api-Key, answering 401 when it is wrong.
func (s *service) authorized(w http.ResponseWriter, r *http.Request) bool {
	if r.Header.Get("X-Api-Key") != s.key {
		writeJSON(w, http.StatusUnauthorized, map[string]any{"error": "missing or wrong X-Api-Key"})
		return false
	}
	return true
}

// charged sets the gateway's headers of a billed call.
func (s *service) charged(w http.ResponseWriter) {
	w.Header().Set("X-Svc-Credits-Charged", s.price)
	w.Header().Set("X-Svc-Upstream-Request-Id", fmt.Sprintf("gen-%d", s.served.Add(1)))
}

// images makes an "image" of the prompt: JSON with its digest, or a PNG with Accept: image/png.
func (s *service) images(w http.ResponseWriter, r *http.Request) {
	if !s.authorized(w, r) {
		return
	}
	var in struct {
		Model  string `json:"model"`
		Prompt string `json:"prompt"`
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil || in.Prompt == "" {
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": `send {"prompt": "..."}`})
		return
	}
	if in.Model != "" && in.Model != imageModel {
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": "model: unknown model " + in.Model})
		return
	}
	sum := sha256.Sum256([]byte(in.Prompt))
	s.charged(w)
	if !strings.Contains(r.Header.Get("Accept"), "image/png") {
		writeJSON(w, http.StatusOK, map[string]any{"model": imageModel, "prompt": in.Prompt, "image": "sha256:" + hex.EncodeToString(sum[:8])})
		return
	}
	img := image.NewRGBA(image.Rect(0, 0, 64, 64))
	c := color.RGBA{R: sum[0], G: sum[1], B: sum[2], A: 255}
	for y := 0; y < 64; y++ {
		for x := 0; x < 64; x++ {
			img.Set(x, y, c)
		}
	}
	var buf bytes.Buffer
	_ = png.Encode(&buf, img)
	w.Header().Set("Content-Type", "image/png")
	_, _ = w.Write(buf.Bytes())
}

// speechRequest is the body of POST /v1/audio/speech.
type speechRequest struct {
	Model  string `json:"model"`
	Voice  string `json:"voice"`
	Input  string `json:"input"`
	Format string `json:"format"`
}

// speech "speaks" the input: a WAV file of a tone, 50 ms per character, in the voice's pitch.
func (s *service) speech(w http.ResponseWriter, r *http.Request) {
	if !s.authorized(w, r) {
		return
	}
	var in speechRequest
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": "body: " + err.Error()})
		return
	}
	hz, problem := checkSpeech(in)
	if problem != "" {
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": problem})
		return
	}
	s.charged(w)
	w.Header().Set("Content-Type", "audio/wav")
	_, _ = w.Write(wav(hz, len([]rune(in.Input))*sampleRate/20))
}

// checkSpeech validates a speech request, answering the voice's tone or a problem naming the field.
func checkSpeech(in speechRequest) (float64, string) {
	switch {
	case strings.TrimSpace(in.Input) == "":
		return 0, "input: say something"
	case len([]rune(in.Input)) > maxInput:
		return 0, fmt.Sprintf("input: at most %d characters", maxInput)
	case in.Model != "" && in.Model != speechModel:
		return 0, "model: unknown model " + in.Model
	case in.Format != "" && in.Format != "wav":
		return 0, "format: only wav"
	}
	voice := in.Voice
	if voice == "" {
		voice = voices[0].ID
	}
	for _, v := range voices {
		if v.ID == voice {
			return v.Hz, ""
		}
	}
	return 0, "voice: unknown voice " + voice + " (see GET /v1/voices)"
}

// wav is a 16-bit mono PCM WAV file of n samples of a sine tone.
func wav(hz float64, n int) []byte {
	var buf bytes.Buffer
	data := uint32(n * 2)
	buf.WriteString("RIFF")
	_ = binary.Write(&buf, binary.LittleEndian, 36+data)
	buf.WriteString("WAVEfmt ")
	for _, v := range []any{uint32(16), uint16(1), uint16(1), uint32(sampleRate), uint32(sampleRate * 2), uint16(2), uint16(16)} {
		_ = binary.Write(&buf, binary.LittleEndian, v)
	}
	buf.WriteString("data")
	_ = binary.Write(&buf, binary.LittleEndian, data)
	for i := 0; i < n; i++ {
		sample := int16(8000 * math.Sin(2*math.Pi*hz*float64(i)/sampleRate))
		_ = binary.Write(&buf, binary.LittleEndian, sample)
	}
	return buf.Bytes()
}

// writeJSON answers v as JSON with status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
