package dbarchive

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
)

// Signature is signature.json: an Ed25519 signature over the DSSE pre-authentication encoding of
// PayloadType and the manifest's bytes, with the signer's public key and key id. The public key here
// only says who claims to have signed; Open trusts the key it is given, never this one.
type Signature struct {
	PayloadType    string `json:"payloadType"`
	ManifestSHA256 string `json:"manifestSha256"`
	KeyID          string `json:"keyId"`
	PublicKey      string `json:"publicKey"`
	Signature      string `json:"sig"`
}

// KeyFromSeed is the archive signing key of a 32-byte seed (secretbox.Box.Derive("database-archive")); a
// seed of another length is first hashed with SHA-256.
func KeyFromSeed(seed []byte) ed25519.PrivateKey {
	if len(seed) != ed25519.SeedSize {
		sum := sha256.Sum256(seed)
		seed = sum[:]
	}
	return ed25519.NewKeyFromSeed(seed)
}

// PublicKeyString is pub in standard base64, as X-Svc-Archive-Public-Key carries it.
func PublicKeyString(pub ed25519.PublicKey) string {
	return base64.StdEncoding.EncodeToString(pub)
}

// ParsePublicKey decodes a PublicKeyString.
func ParsePublicKey(s string) (ed25519.PublicKey, error) {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil || len(b) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("database archive public key: want %d bytes of base64", ed25519.PublicKeySize)
	}
	return ed25519.PublicKey(b), nil
}

// KeyID names a public key: "ed25519:" and the first 8 bytes of its SHA-256, in hex.
func KeyID(pub ed25519.PublicKey) string {
	sum := sha256.Sum256(pub)
	return "ed25519:" + hex.EncodeToString(sum[:8])
}

// pae is DSSE's pre-authentication encoding: "DSSEv1" SP len(type) SP type SP len(body) SP body.
func pae(payloadType string, body []byte) []byte {
	b := []byte("DSSEv1 " + strconv.Itoa(len(payloadType)) + " " + payloadType + " " + strconv.Itoa(len(body)) + " ")
	return append(b, body...)
}

// sign answers signature.json's bytes for manifest.
func sign(key ed25519.PrivateKey, manifest []byte) ([]byte, error) {
	pub := key.Public().(ed25519.PublicKey)
	sum := sha256.Sum256(manifest)
	s := Signature{
		PayloadType:    PayloadType,
		ManifestSHA256: hex.EncodeToString(sum[:]),
		KeyID:          KeyID(pub),
		PublicKey:      PublicKeyString(pub),
		Signature:      base64.StdEncoding.EncodeToString(ed25519.Sign(key, pae(PayloadType, manifest))),
	}
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode the archive signature: %w", err)
	}
	return b, nil
}

// verifySignature checks signature.json's bytes against manifest and the trusted key.
func verifySignature(raw, manifest []byte, trusted ed25519.PublicKey) error {
	var s Signature
	if err := json.Unmarshal(raw, &s); err != nil {
		return refuse(KindSignature, SignatureFile, "the signature is not valid JSON")
	}
	if s.PayloadType != PayloadType {
		return refuse(KindSignature, SignatureFile, "the signature's payload type is %q, want %q", s.PayloadType, PayloadType)
	}
	sum := sha256.Sum256(manifest)
	if s.ManifestSHA256 != hex.EncodeToString(sum[:]) {
		return refuse(KindSignature, SignatureFile, "the signature is for another manifest")
	}
	if len(trusted) != ed25519.PublicKeySize {
		return refuse(KindSignature, SignatureFile, "no trusted public key to check the signature with")
	}
	if s.PublicKey != PublicKeyString(trusted) {
		return refuse(KindSignature, SignatureFile, "the archive is signed by another key (%s), not the platform's (%s)",
			s.KeyID, KeyID(trusted))
	}
	sig, err := base64.StdEncoding.DecodeString(s.Signature)
	if err != nil || !ed25519.Verify(trusted, pae(PayloadType, manifest), sig) {
		return refuse(KindSignature, SignatureFile, "the signature does not verify with the platform's key")
	}
	return nil
}
