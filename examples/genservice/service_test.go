package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func get(t *testing.T, url string) (int, map[string]any) {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	var out map[string]any
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&out))
	return resp.StatusCode, out
}

func post(t *testing.T, url, key, accept, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Api-Key", key)
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// TestPreflight: /health, /v1/models and /v1/voices answer the contract's preflight.
func TestPreflight(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(handler("k", "1"))
	t.Cleanup(srv.Close)
	code, health := get(t, srv.URL+"/health")
	require.Equal(t, http.StatusOK, code)
	require.Equal(t, true, health["ok"])
	_, models := get(t, srv.URL+"/v1/models")
	require.Len(t, models["data"], 2)
	_, vs := get(t, srv.URL+"/v1/voices")
	require.Equal(t, "narrator", vs["data"].([]any)[0].(map[string]any)["id"])
	code, v := get(t, srv.URL+"/v1/voices/bright")
	require.Equal(t, http.StatusOK, code)
	require.Equal(t, "Bright", v["name"])
	code, _ = get(t, srv.URL+"/v1/voices/nobody")
	require.Equal(t, http.StatusNotFound, code)
}

// TestSpeechWritesAWavFile: the speech endpoint's answer, written to a file, is a WAV of 50 ms per
// character; a wrong key is 401 and a wrong voice, format or empty input a 400 naming the field.
func TestSpeechWritesAWavFile(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(handler("k", "2"))
	t.Cleanup(srv.Close)
	resp := post(t, srv.URL+"/v1/audio/speech", "k", "", `{"model":"tiny-tts","voice":"bright","input":"hello","format":"wav"}`)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, "audio/wav", resp.Header.Get("Content-Type"))
	require.Equal(t, "2", resp.Header.Get("X-Svc-Credits-Charged"))
	out := filepath.Join(t.TempDir(), "hello.wav")
	f, err := os.Create(out)
	require.NoError(t, err)
	_, err = io.Copy(f, resp.Body)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	raw, err := os.ReadFile(out)
	require.NoError(t, err)
	require.Equal(t, "RIFF", string(raw[:4]))
	require.Equal(t, "WAVE", string(raw[8:12]))
	samples := 5 * sampleRate / 20
	require.Len(t, raw, 44+2*samples)
	require.Equal(t, uint32(2*samples), binary.LittleEndian.Uint32(raw[40:44]))

	require.Equal(t, http.StatusUnauthorized, post(t, srv.URL+"/v1/audio/speech", "wrong", "", `{"input":"x"}`).StatusCode)
	for body, field := range map[string]string{`{"input":"x","voice":"nobody"}`: "voice", `{"input":"x","format":"mp3"}`: "format",
		`{"input":"  "}`: "input", `{"input":"x","speed":2}`: "speed", `{"input":"x","model":"big"}`: "model"} {
		r := post(t, srv.URL+"/v1/audio/speech", "k", "", body)
		require.Equal(t, http.StatusBadRequest, r.StatusCode, body)
		msg, _ := io.ReadAll(r.Body)
		require.Contains(t, string(msg), field, body)
	}
}

// TestImages: JSON by default (what the svc gateway example calls), a PNG file with Accept: image/png.
func TestImages(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(handler("k", "1"))
	t.Cleanup(srv.Close)
	resp := post(t, srv.URL+"/v1/images", "k", "", `{"prompt":"a red fox"}`)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var out map[string]any
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&out))
	require.Equal(t, "tiny-diffusion", out["model"])
	require.Equal(t, "gen-1", resp.Header.Get("X-Svc-Upstream-Request-Id"))
	resp = post(t, srv.URL+"/v1/images", "k", "image/png", `{"model":"tiny-diffusion","prompt":"a red fox"}`)
	require.Equal(t, "image/png", resp.Header.Get("Content-Type"))
	raw, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	img, err := png.Decode(bytes.NewReader(raw))
	require.NoError(t, err)
	require.Equal(t, 64, img.Bounds().Dx())
	require.Equal(t, http.StatusUnauthorized, post(t, srv.URL+"/v1/images", "", "", `{"prompt":"x"}`).StatusCode)
}
